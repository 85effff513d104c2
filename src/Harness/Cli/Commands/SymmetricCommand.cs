using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Metrics;
using DivCon.Harness.Reports;
using DivCon.Harness.Schemes;
using DivCon.Harness.Wiring;
using Spectre.Console;

namespace DivCon.Harness.Cli.Commands;

/// <summary>
/// <c>symmetric</c>: k instances of one program (different inputs) at once under each scheme, as a cyclic test;
/// the figure of merit is MNTT (thesis 7.4, figures 7.6 and 7.7). One results folder per program
/// (<c>symmetric-&lt;program&gt;</c>) and a combined MNTT table.
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
        var instances = new Option<int?>("--instances", "-k") { Description = "Instances per test. [default: 8, at most the CPU count, at least 2]" };
        instances.Validators.Add(r =>
        {
            if (r.GetValueOrDefault<int?>() is { } k && k < 1)
            {
                r.AddError(string.Create(CultureInfo.InvariantCulture, $"--instances must be at least 1, not {k}."));
            }
        });
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
                IReadOnlyList<WorkloadMember> workload = WorkloadBuilder.Symmetric(name, k, settings.Sizes, settings.Seed);
                CyclicExperimentResult result = await CyclicWorkflow.RunAsync(host, $"symmetric-{FileNames.Slug(name)}", workload, settings, schemeSettings, cancellationToken).ConfigureAwait(false);
                results.Add((name, result.Metrics));
            }

            host.Console.Write(MnttTable(results, k));
        });
        return command;
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
