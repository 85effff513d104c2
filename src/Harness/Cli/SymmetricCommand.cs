using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Workload;
using Spectre.Console;

namespace DivCon.Harness.Cli;
/// <summary>
/// <c>symmetric</c>: k instances of one program (different inputs) at once under each scheme, as a cyclic test;
/// the figure of merit is MNTT (thesis 7.4, figures 7.6 and 7.7). One results folder per program
/// (<c>symmetric-&lt;program&gt;</c>) and a combined one (<c>symmetric</c>: MNTT per program and scheme, table and chart).
/// </summary>
public static class SymmetricCommand
{
    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var common = new CommonOptions(host, ["quicksort", "mergesort"]);
        var schemeOptions = new SchemeOptions(SchemeRegistry.Names, defaultRuns: 5, "10 s at quick size, 120 s at thesis size");
        var instances = OptionTable.OptionalWhole("--instances", "Instances per test (each runs the program on its own input). [default: the workers, at least 2, at most 8]",
            1, () => host.Machine.CpuCount, "the allowed CPUs", "-k");
        var command = new Command("symmetric", "Symmetric tests: k instances of one program at once under each scheme; MNTT per program and scheme.");
        common.AddTo(command);
        schemeOptions.AddTo(command);
        command.Add(instances);
        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            CommonSettings settings = common.Read(parse, host.Machine);
            SchemeSettings schemeSettings = schemeOptions.Read(parse, settings, TimeSpan.FromSeconds(settings.IsThesisSize ? 120 : 10));
            int k = parse.GetValue(instances) ?? Math.Clamp(settings.Workers, 2, 8);
            var results = new List<(string Program, IReadOnlyList<SchemeMetrics> Metrics)>();
            foreach (string program in settings.Programs)
            {
                string name = DivCon.Programs.ProgramCatalog.Find(program).Name;
                IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Symmetric(name, k, settings.Sizes, settings.Seed);
                await CommonOptions.WarnAboutSizesAsync(host, workload).ConfigureAwait(false);
                CyclicExperimentResult result = await CyclicWorkflow.RunAsync(host, $"symmetric-{FileNames.Slug(name)}", workload, settings, schemeSettings, cancellationToken).ConfigureAwait(false);
                results.Add((name, result.Metrics));
            }

            await ExperimentOutput.RunAsync(host, settings.OutRoot, "symmetric", settings.Workers, (context, _) =>
            {
                WriteCombined(context.Output, results, k);
                return Task.FromResult(results);
            }, r => host.Console.Write(MnttTable(r, k)), cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Writes the combined MNTT files of all programs: <c>mntt.csv</c>, <c>summary.md</c>, <c>mntt.svg</c>.</summary>
    private static void WriteCombined(ResultsFolder folder, IReadOnlyList<(string Program, IReadOnlyList<SchemeMetrics> Metrics)> results, int instances)
    {
        string[] schemes = results.SelectMany(r => r.Metrics.Select(m => m.Scheme)).Distinct(StringComparer.Ordinal).ToArray();
        double Mntt(IReadOnlyList<SchemeMetrics> metrics, string scheme) => metrics.FirstOrDefault(m => m.Scheme == scheme)?.Metrics.Mntt ?? double.NaN;
        string Flags(IReadOnlyList<SchemeMetrics> metrics, string scheme) => MetricFlag.Codes(metrics.FirstOrDefault(m => m.Scheme == scheme)?.Flags ?? []);
        folder.WriteText("mntt.csv", w => Csv.Write(w, ["program", "scheme", "instances", "mntt", "flags"],
            results.SelectMany(r => schemes.Select(s => (IReadOnlyList<string>)[r.Program, s, instances.ToString(CultureInfo.InvariantCulture), Csv.Number(Mntt(r.Metrics, s)), Flags(r.Metrics, s)]))));
        folder.WriteText("summary.md", w =>
        {
            w.WriteLine(string.Create(CultureInfo.InvariantCulture, $"# Symmetric tests: {instances} instances per program"));
            w.WriteLine();
            w.WriteLine("MNTT (the worst normalized turnaround time among the instances; lower is better). Per-program details in `../symmetric-<program>/`.");
            w.WriteLine();
            var table = new MarkdownTable(["Program", .. schemes]);
            foreach ((string program, IReadOnlyList<SchemeMetrics> metrics) in results)
            {
                table.AddRow([program, .. schemes.Select(s => NumberText.Fixed(Mntt(metrics, s)))]);
            }

            table.WriteTo(w);
            MarkdownStamp.Write(w, folder.Stamp);
        });
        var chart = new GroupedBarChart(
            string.Create(CultureInfo.InvariantCulture, $"MNTT, {instances} instances of each program (lower is better)"),
            "MNTT",
            results.Select(r => r.Program).ToArray(),
            schemes.Select(s => new BarSeries(s, results.Select(r => Mntt(r.Metrics, s) is var v && double.IsFinite(v) ? v : 0).ToArray())).ToArray(),
            xLabel: "Program",
            referenceLine: 1);
        SvgFile.Save(folder, "mntt.svg", chart);
    }

    private static Table MnttTable(IReadOnlyList<(string Program, IReadOnlyList<SchemeMetrics> Metrics)> results, int instances)
    {
        var table = new Table().Title(string.Create(CultureInfo.InvariantCulture, $"MNTT, {instances} instances per test (lower is better)")).AddColumn("Program");
        string[] schemes = results.SelectMany(r => r.Metrics.Select(m => m.Scheme)).Distinct(StringComparer.Ordinal).ToArray();
        foreach (string scheme in schemes)
        {
            table.AddColumn(new TableColumn(Markup.Escape(scheme)).RightAligned());
        }

        foreach ((string program, IReadOnlyList<SchemeMetrics> metrics) in results)
        {
            table.AddRow([Markup.Escape(program), .. schemes.Select(s => Markup.Escape(metrics.FirstOrDefault(m => m.Scheme == s) is { } m ? NumberText.Fixed(m.Metrics.Mntt) : NumberText.Undefined))]);
        }

        return table;
    }
}
