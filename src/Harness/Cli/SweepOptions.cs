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

    /// <summary>
    /// Checks that a numeric option given on the command line is a finite number of 0 or more (and, with
    /// <paramref name="orAbove"/>, either 0 or above that value); an option left at its default is not checked.
    /// </summary>
    /// <param name="result">The option's result.</param>
    /// <param name="name">The option's name.</param>
    /// <param name="unit">What the number counts, for the message ("microseconds").</param>
    /// <param name="orAbove">When given, a nonzero value must exceed it.</param>
    internal static void NotNegative(System.CommandLine.Parsing.OptionResult result, string name, string unit, double? orAbove = null)
    {
        // Read from the token, not the typed value: a token the option's type cannot parse is the parser's error to
        // report, and reading the typed value would throw instead.
        if (result.Tokens.Count == 0
            || !double.TryParse(result.Tokens[^1].Value, NumberStyles.Float, CultureInfo.InvariantCulture, out double value))
        {
            return;
        }

        if (!double.IsFinite(value) || value < 0)
        {
            result.AddError(string.Create(CultureInfo.InvariantCulture, $"{name} must be 0 or more {unit}, not {result.Tokens[^1].Value}."));
        }
        else if (orAbove is { } floor && value != 0 && value <= floor)
        {
            result.AddError(string.Create(CultureInfo.InvariantCulture, $"{name} must be 0 (off) or above {floor}, not {result.Tokens[^1].Value}."));
        }
    }
}
