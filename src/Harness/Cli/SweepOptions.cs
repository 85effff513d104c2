using System.CommandLine;

namespace DivCon.Harness.Cli;

/// <summary>Repetition options of the sweeps (granularity, scalability, phases).</summary>
public sealed class SweepOptions
{
    /// <summary>Creates the options.</summary>
    /// <param name="defaultRuns">Default recorded runs per configuration.</param>
    /// <param name="withWarmup">Whether to offer --warmup.</param>
    public SweepOptions(int defaultRuns, bool withWarmup = true)
    {
        Runs = OptionTable.Whole("--runs", "Recorded runs per configuration.", defaultRuns, 1, aliases: "-r");
        Warmup = withWarmup ? OptionTable.Whole("--warmup", "Unrecorded runs per configuration before the recorded ones.", 1, 0) : null;
    }

    /// <summary>--runs / -r.</summary>
    public Option<int> Runs { get; }

    /// <summary>--warmup, if offered.</summary>
    public Option<int>? Warmup { get; }

    /// <summary>Adds the options to <paramref name="command"/>.</summary>
    /// <param name="command">The command.</param>
    public void AddTo(Command command)
    {
        ArgumentNullException.ThrowIfNull(command);
        command.Add(Runs);
        if (Warmup is not null)
        {
            command.Add(Warmup);
        }
    }
}
