using System.CommandLine;
using DivCon.Harness.Machine;
using DivCon.Harness.Workload;
using DivCon.Programs;

namespace DivCon.Harness.Cli;

/// <summary>
/// The options every experiment command takes: programs, sizes, seed, workers, results folder, verification. One
/// instance per command (a System.CommandLine option belongs to one command).
/// </summary>
public sealed class CommonOptions
{
    /// <summary>The thesis's five programs, the default of most experiments.</summary>
    public static readonly IReadOnlyList<string> ThesisPrograms = ["sumsq", "pi", "strassen", "quicksort", "mergesort"];

    /// <summary>
    /// Results root of runs without <c>--out</c>: ad-hoc runs land here (ignored by git), so that trying a command never
    /// rewrites the committed reference results.
    /// </summary>
    public const string AdHocRoot = "results-local";

    /// <summary>The committed reference results root (written only when named with <c>--out</c>).</summary>
    public const string ReferenceRoot = "results";

    /// <summary>Creates the options.</summary>
    /// <param name="host">The host (its machine bounds --workers).</param>
    /// <param name="defaultPrograms">Default of --programs.</param>
    public CommonOptions(CliHost host, IReadOnlyList<string> defaultPrograms)
    {
        ArgumentNullException.ThrowIfNull(host);
        Programs = OptionTable.Names("--programs", "Programs to run (space- or comma-separated).", defaultPrograms, "program",
            n => ProgramCatalog.TryFind(n, out _), ProgramCatalog.Names, "-p");
        Size = OptionTable.Choice("--size", "Problem size preset: quick (seconds) or thesis (the thesis's sizes, minutes).", "quick", ["quick", "thesis"]);
        Sizes = OptionTable.List("--sizes", "Explicit sizes overriding the preset, as program=size (e.g. quicksort=1000000 strassen=512).", [], "program=size", [],
            (values, addError) =>
            {
                foreach (string error in SizeArguments.Errors(values))
                {
                    addError(error);
                }
            }, ["quicksort", "quicksort=-5", "heapsort=100"]);
        Seed = OptionTable.Whole("--seed", "Seed of the programs' input data.", ProgramCatalog.DefaultSeed, int.MinValue);
        Workers = OptionTable.OptionalWhole("--workers", "CPUs (workers) to use. [default: all allowed CPUs]", 1, () => host.Machine.CpuCount, "the allowed CPUs", "-w");
        Out = OptionTable.Text("--out", $"Results root folder; each experiment writes a subfolder. Reference results: --out {ReferenceRoot}. [default: {AdHocRoot} (ad-hoc, ignored by git)]",
            null, "folder", aliases: "-o");
        NoVerify = OptionTable.Flag("--no-verify", "Skip checking the programs' results after each scheme/sweep (verification is never timed).");
    }

    /// <summary>--programs / -p.</summary>
    public Option<string[]> Programs { get; }

    /// <summary>--size.</summary>
    public Option<string> Size { get; }

    /// <summary>--sizes.</summary>
    public Option<string[]> Sizes { get; }

    /// <summary>--seed.</summary>
    public Option<int> Seed { get; }

    /// <summary>--workers / -w.</summary>
    public Option<int?> Workers { get; }

    /// <summary>--out / -o.</summary>
    public Option<string?> Out { get; }

    /// <summary>--no-verify.</summary>
    public Option<bool> NoVerify { get; }

    /// <summary>Adds every option to <paramref name="command"/>.</summary>
    /// <param name="command">The command.</param>
    /// <param name="includePrograms">Whether to add --programs.</param>
    public void AddTo(Command command, bool includePrograms = true)
    {
        ArgumentNullException.ThrowIfNull(command);
        if (includePrograms)
        {
            command.Add(Programs);
        }

        command.Add(Size);
        command.Add(Sizes);
        command.Add(Seed);
        command.Add(Workers);
        command.Add(Out);
        command.Add(NoVerify);
    }

    /// <summary>Writes a warning for each program whose size would make a run absurdly long (<see cref="SizeWarnings"/>).</summary>
    /// <param name="host">Where warnings go.</param>
    /// <param name="workload">The programs.</param>
    /// <returns>The writing.</returns>
    public static async Task WarnAboutSizesAsync(CliHost host, IReadOnlyList<WorkloadProgram> workload)
    {
        ArgumentNullException.ThrowIfNull(host);
        foreach (string warning in SizeWarnings.Check(workload))
        {
            await host.Error.WriteLineAsync($"warning: {warning}").ConfigureAwait(false);
        }
    }

    /// <summary>Reads the values.</summary>
    /// <param name="parse">The parse result.</param>
    /// <param name="machine">The machine (default worker count).</param>
    /// <returns>The settings.</returns>
    public CommonSettings Read(ParseResult parse, HarnessMachine machine)
    {
        ArgumentNullException.ThrowIfNull(parse);
        ArgumentNullException.ThrowIfNull(machine);
        SizePreset preset = parse.GetValue(Size) == "thesis" ? SizePreset.Thesis : SizePreset.Quick;
        return new CommonSettings(
            parse.GetValue(Programs) ?? [],
            new SizeSelection(preset, SizeArguments.Parse(parse.GetValue(Sizes) ?? [])),
            parse.GetValue(Seed),
            parse.GetValue(Workers) ?? machine.CpuCount,
            parse.GetValue(Out) ?? AdHocRoot,
            !parse.GetValue(NoVerify))
        {
            OutGiven = parse.GetValue(Out) is not null,
        };
    }
}

/// <summary>The values of <see cref="CommonOptions"/>.</summary>
/// <param name="Programs">Program names as given.</param>
/// <param name="Sizes">The sizes.</param>
/// <param name="Seed">Input seed.</param>
/// <param name="Workers">Workers (CPUs) to use.</param>
/// <param name="OutRoot">Results root folder.</param>
/// <param name="Verify">Whether to verify results.</param>
public sealed record CommonSettings(IReadOnlyList<string> Programs, SizeSelection Sizes, int Seed, int Workers, string OutRoot, bool Verify)
{
    /// <summary>Whether the thesis preset is selected.</summary>
    public bool IsThesisSize => Sizes.Preset == SizePreset.Thesis;

    /// <summary>Whether <c>--out</c> was given; without it <see cref="OutRoot"/> is the ad-hoc root
    /// (<see cref="CommonOptions.AdHocRoot"/>) and profiles are also read from the committed store.</summary>
    public bool OutGiven { get; init; }
}
