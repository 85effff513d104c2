using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Workload;

namespace DivCon.Harness.Cli;
/// <summary>
/// <c>cyclic</c>: a workload of different programs, each restarted the moment it finishes until the time limit;
/// runs ending after the limit are discarded; C_SP from isolated runs first (thesis 5.4.1, figures 7.8-7.15).
/// <c>demo</c> is the same command with a small three-program workload and short defaults (what a bare
/// <c>divcon</c> runs).
/// </summary>
public static class CyclicCommand
{
    /// <summary>Demo sizes: each run takes roughly 0.2-1 s on a small machine, so every program completes several runs per scheme.</summary>
    public static readonly IReadOnlyDictionary<string, long> DemoSizes = new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase)
    {
        ["quicksort"] = 1 << 22,
        ["mergesort"] = 1 << 22,
        ["strassen"] = 1024,
    };

    /// <summary>The demo's schemes.</summary>
    public static IReadOnlyList<string> DemoSchemes { get; } = [SchemeRegistry.Default.Name, SchemeRegistry.Shared.Name, SchemeRegistry.Dynamic.Name];

    /// <summary>Builds <c>cyclic</c>.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command CreateCyclic(CliHost host) => Create(
        host, "cyclic", "Cyclic multiprogram test: every program restarted as it finishes until the time limit; NTT, ANTT, STP per scheme.",
        CommonOptions.ThesisPrograms, SchemeRegistry.Names, defaultRuns: 5, quickSeconds: 30, thesisSeconds: 480, baseSizes: null, folder: "cyclic");

    /// <summary>Builds <c>demo</c>.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command CreateDemo(CliHost host) => Create(
        host, "demo", "About a minute: quicksort, mergesort and strassen cyclically under the default, shared and dynamic schemes (what a bare 'divcon' runs).",
        ["quicksort", "mergesort", "strassen"], DemoSchemes, defaultRuns: 3, quickSeconds: 12, thesisSeconds: 120, baseSizes: DemoSizes, folder: "demo");

    private static Command Create(
        CliHost host, string name, string description, IReadOnlyList<string> programs, IReadOnlyList<string> schemes,
        int defaultRuns, double quickSeconds, double thesisSeconds, IReadOnlyDictionary<string, long>? baseSizes, string folder)
    {
        var common = new CommonOptions(host, programs);
        var schemeOptions = new SchemeOptions(schemes, defaultRuns, $"{quickSeconds} s at quick size, {thesisSeconds} s at thesis size");
        var nameOption = OptionTable.FolderName("--name", "Results subfolder (and workload name).", folder);
        var repeat = OptionTable.Whole("--repeat", "Repeat the whole test; system metrics then get intervals across repetitions (folders <name>-rep1.., summary in <name>).", 1, 1);
        var command = new Command(name, description);
        common.AddTo(command);
        schemeOptions.AddTo(command);
        command.Add(nameOption);
        command.Add(repeat);
        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            CommonSettings settings = common.Read(parse, host.Machine);
            if (baseSizes is not null && !settings.IsThesisSize)
            {
                var merged = new Dictionary<string, long>(baseSizes, StringComparer.OrdinalIgnoreCase);
                foreach (KeyValuePair<string, long> size in settings.Sizes.Explicit)
                {
                    merged[size.Key] = size.Value;
                }

                settings = settings with { Sizes = settings.Sizes with { Explicit = merged } };
            }

            SchemeSettings schemeSettings = schemeOptions.Read(parse, settings, TimeSpan.FromSeconds(settings.IsThesisSize ? thesisSeconds : quickSeconds));
            IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(settings.Programs, settings.Sizes, settings.Seed);
            await CommonOptions.WarnAboutSizesAsync(host, workload).ConfigureAwait(false);
            string folderName = parse.GetValue(nameOption)!;
            int repetitions = parse.GetValue(repeat);
            if (repetitions == 1)
            {
                await CyclicWorkflow.RunAsync(host, folderName, workload, settings, schemeSettings, cancellationToken).ConfigureAwait(false);
                return;
            }

            var results = new List<CyclicExperimentResult>(repetitions);
            for (int i = 1; i <= repetitions; i++)
            {
                string repetitionFolder = string.Create(CultureInfo.InvariantCulture, $"{folderName}-rep{i}");
                results.Add(await CyclicWorkflow.RunAsync(host, repetitionFolder, workload, settings, schemeSettings, cancellationToken).ConfigureAwait(false));
            }

            await ExperimentOutput.RunAsync(host, settings.OutRoot, folderName, settings.Workers,
                (context, _) => Task.FromResult(RepetitionReport.Write(context.Output, folderName, results)),
                summaries => host.Console.Write(RepetitionReport.Table(summaries)), cancellationToken).ConfigureAwait(false);
        });
        return command;
    }
}
