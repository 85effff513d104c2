using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Schemes;
using DivCon.Harness.Wiring;

namespace DivCon.Harness.Cli;

/// <summary>The options of the multiprogram commands: schemes, profiles, rebalancing, cyclic timing.</summary>
public sealed class SchemeOptions
{
    /// <summary>File name of the profile store in a results root.</summary>
    public const string ProfileStoreFileName = "profiles.json";

    /// <summary>Creates the options.</summary>
    /// <param name="defaultSchemes">Default of --schemes.</param>
    /// <param name="defaultRuns">Default isolated runs per program.</param>
    /// <param name="durationHelp">What the default duration is, for the help text.</param>
    public SchemeOptions(IReadOnlyList<string> defaultSchemes, int defaultRuns, string durationHelp)
    {
        Schemes = NameListOption.Create("--schemes", "Multiprogramming schemes to compare (space- or comma-separated).", defaultSchemes, "scheme",
            n => SchemeRegistry.TryFind(n, out _), SchemeRegistry.Names, "-s");
        Duration = new Option<double?>("--duration", "-d") { Description = $"Seconds each scheme's cyclic test restarts programs. [default: {durationHelp}]", HelpName = "seconds" };
        Duration.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<double?>() is { } seconds && !(seconds > 0 && seconds <= TimeSpan.MaxValue.TotalSeconds / 2))
            {
                result.AddError(string.Create(CultureInfo.InvariantCulture, $"--duration must be a positive number of seconds, not {seconds}."));
            }
        });
        Runs = new Option<int>("--runs", "-r") { Description = "Isolated (single-program) runs per program for C_SP.", DefaultValueFactory = _ => defaultRuns };
        Runs.Validators.Add(result => Positive(result, "--runs"));
        Warmup = new Option<int>("--warmup") { Description = "Unrecorded isolated runs per program before the recorded ones.", DefaultValueFactory = _ => 1 };
        Warmup.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() < 0)
            {
                result.AddError("--warmup cannot be negative.");
            }
        });
        Profiles = new Option<string?>("--profiles")
        {
            Description = $"Scalability profile store (JSON) of the partitioning schemes; quick profiles measured for missing programs are added to it. [default: <out>/profiles.json; without --out, {CommonOptions.AdHocRoot}/profiles.json, falling back to {CommonOptions.ReferenceRoot}/profiles.json for reading]",
            HelpName = "file",
        };
        ProfileFallback = new Option<string>("--profile-fallback")
        {
            Description = "For a program without a stored profile: measure a quick one (and store it) or assume speedup 1.",
            DefaultValueFactory = _ => "measure",
            HelpName = "measure|unit",
        };
        ProfileFallback.AcceptOnlyFromAmong("measure", "unit");
        RebalanceMilliseconds = new Option<int>("--rebalance-ms") { Description = "Rebalancing interval of the dynamic schemes, in milliseconds.", DefaultValueFactory = _ => 100 };
        RebalanceMilliseconds.Validators.Add(result => Positive(result, "--rebalance-ms"));
        NoLending = new Option<bool>("--no-lending") { Description = "Multiprogram schemes: never lend an idle worker to another program (strict partitions)." };
    }

    /// <summary>--no-lending.</summary>
    public Option<bool> NoLending { get; }

    /// <summary>--schemes / -s.</summary>
    public Option<string[]> Schemes { get; }

    /// <summary>--duration / -d (seconds).</summary>
    public Option<double?> Duration { get; }

    /// <summary>--runs / -r.</summary>
    public Option<int> Runs { get; }

    /// <summary>--warmup.</summary>
    public Option<int> Warmup { get; }

    /// <summary>--profiles.</summary>
    public Option<string?> Profiles { get; }

    /// <summary>--profile-fallback.</summary>
    public Option<string> ProfileFallback { get; }

    /// <summary>--rebalance-ms.</summary>
    public Option<int> RebalanceMilliseconds { get; }

    /// <summary>Adds every option to <paramref name="command"/>.</summary>
    /// <param name="command">The command.</param>
    public void AddTo(Command command)
    {
        ArgumentNullException.ThrowIfNull(command);
        command.Add(Schemes);
        command.Add(Duration);
        command.Add(Runs);
        command.Add(Warmup);
        command.Add(Profiles);
        command.Add(ProfileFallback);
        command.Add(RebalanceMilliseconds);
        command.Add(NoLending);
    }

    /// <summary>Reads the values.</summary>
    /// <param name="parse">The parse result.</param>
    /// <param name="common">The common settings (for the default profile path).</param>
    /// <param name="defaultDuration">The duration when none is given.</param>
    /// <returns>The settings.</returns>
    public SchemeSettings Read(ParseResult parse, CommonSettings common, TimeSpan defaultDuration)
    {
        ArgumentNullException.ThrowIfNull(parse);
        ArgumentNullException.ThrowIfNull(common);
        string? profiles = parse.GetValue(Profiles);
        return new SchemeSettings(
            (parse.GetValue(Schemes) ?? []).Select(n => SchemeRegistry.Find(n).Name).ToArray(),
            parse.GetValue(Duration) is { } seconds ? TimeSpan.FromSeconds(seconds) : defaultDuration,
            parse.GetValue(Runs),
            parse.GetValue(Warmup),
            profiles ?? Path.Combine(common.OutRoot, ProfileStoreFileName),
            parse.GetValue(ProfileFallback) == "unit" ? Wiring.ProfileFallback.Unit : Wiring.ProfileFallback.Measure,
            TimeSpan.FromMilliseconds(parse.GetValue(RebalanceMilliseconds)),
            !parse.GetValue(NoLending))
        {
            // An ad-hoc run (no --out, no --profiles) reads the committed profiles but never writes them.
            ReferenceProfilesPath = profiles is null && !common.OutGiven ? Path.Combine(CommonOptions.ReferenceRoot, ProfileStoreFileName) : null,
        };
    }

    private static void Positive(System.CommandLine.Parsing.OptionResult result, string name)
    {
        int value = result.GetValueOrDefault<int>();
        if (value < 1)
        {
            result.AddError(string.Create(CultureInfo.InvariantCulture, $"{name} must be at least 1, not {value}."));
        }
    }
}
