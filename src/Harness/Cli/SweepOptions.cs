using System.CommandLine;
using System.Globalization;

namespace DivCon.Harness.Cli;

/// <summary>Repetition options of the sweeps (granularity, scalability, phases).</summary>
public sealed class SweepOptions
{
    /// <summary>Creates the options.</summary>
    /// <param name="defaultRuns">Default recorded runs per configuration.</param>
    /// <param name="withWarmup">Whether to offer --warmup.</param>
    public SweepOptions(int defaultRuns, bool withWarmup = true)
    {
        Runs = new Option<int>("--runs", "-r") { Description = "Recorded runs per configuration.", DefaultValueFactory = _ => defaultRuns };
        Runs.Validators.Add(r => AtLeast(r, "--runs", 1));
        Warmup = withWarmup ? new Option<int>("--warmup") { Description = "Unrecorded runs per configuration before the recorded ones.", DefaultValueFactory = _ => 1 } : null;
        Warmup?.Validators.Add(r => AtLeast(r, "--warmup", 0));
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

    /// <summary>Checks that an integer option is at least <paramref name="minimum"/>.</summary>
    /// <param name="result">The option's result.</param>
    /// <param name="name">The option's name.</param>
    /// <param name="minimum">The minimum.</param>
    internal static void AtLeast(System.CommandLine.Parsing.OptionResult result, string name, int minimum)
    {
        // A token that is not an integer is the parser's error to report ("Cannot parse argument ..."); reading the
        // value here would throw instead of adding an error line.
        if (result.Tokens.Count > 0
            && !int.TryParse(result.Tokens[^1].Value, NumberStyles.Integer, CultureInfo.InvariantCulture, out _))
        {
            return;
        }

        int value = result.GetValueOrDefault<int>();
        if (value < minimum)
        {
            result.AddError(string.Create(CultureInfo.InvariantCulture, $"{name} must be at least {minimum}, not {value}."));
        }
    }
}
