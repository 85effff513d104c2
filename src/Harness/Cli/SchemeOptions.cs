using System.CommandLine;
using System.Globalization;
using DivCon.Harness.Workload;
using DivCon.Schedulers.Multiprogram.Policies;

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
        Schemes = OptionTable.Names("--schemes", "Multiprogramming schemes to compare (space- or comma-separated).", defaultSchemes, "scheme",
            n => SchemeRegistry.TryFind(n, out _), SchemeRegistry.SelectableNames, "-s");
        Duration = OptionTable.OptionalNumber("--duration", $"Seconds each scheme's cyclic test restarts programs, in all (split evenly over --rounds). [default: {durationHelp}]",
            above: 0, unit: "seconds", aliases: "-d");
        Runs = OptionTable.Whole("--runs", "Isolated (single-program) runs per program for C_SP, spread over the rounds (at least one per round).", defaultRuns, 1, aliases: "-r");
        Warmup = OptionTable.Whole("--warmup", "Unrecorded isolated runs per program at the start of every isolated block (each block opens fresh programs, whose first run is cold).", 1, 0);
        Rounds = OptionTable.Whole("--rounds", "Measured rounds: every round runs the isolated runs and every scheme for duration/rounds, in an order rotated each round; "
            + "ANTT/STP/MNTT get intervals across rounds and a ranking is stated only where they separate.", DefaultRounds, 1);
        Bracket = OptionTable.Flag("--bracket",
            "Measure C_SP before and after every scheme block (not once per round) and normalise each block by the isolated runs around it, so that a machine whose speed drifts over minutes biases no scheme.");
        WarmupSeconds = OptionTable.OptionalNumber("--warmup-seconds", string.Create(CultureInfo.InvariantCulture,
            $"Each scheme's cyclic test in the uncounted warm-up round (every program alone and under every scheme before any measured round); 0 for none. [default: duration/rounds, at most {MaxDefaultWarmupSeconds} s]"),
            atLeast: 0, unit: "seconds");
        Profiles = OptionTable.Text("--profiles",
            $"Scalability profile store (JSON) of the partitioning schemes; quick profiles measured for missing programs are added to it. [default: <out>/profiles.json; without --out, {CommonOptions.AdHocRoot}/profiles.json, falling back to {CommonOptions.ReferenceRoot}/profiles.json for reading]",
            null, "file");
        ProfileFallback = OptionTable.Choice("--profile-fallback", "For a program without a stored profile: measure a quick one (and store it) or assume speedup 1.", "measure", ["measure", "unit"]);
        RebalanceMilliseconds = OptionTable.Whole("--rebalance-ms", "Rebalancing interval of the dynamic schemes, in milliseconds.", 100, 1);
        NoLending = OptionTable.Flag("--no-lending", "Multiprogram schemes: never lend an idle worker to another program (strict partitions).");
        LendingPreferenceOption = LendingPreferenceChoice(
            "Multiprogram schemes: to which program an idle worker is lent: round-robin (or the policy's order; the default), runs-in-progress (programs with work under way before those holding only a new start), oldest-run (the program busy longest first).");
        NoStandby = OptionTable.Flag("--no-standby",
            "Multiprogram schemes: no standby worker per CPU, so a moved core waits for its worker's current task to end (the mechanism before standby handover).");
    }

    private static readonly string[] PreferenceNames = ["round-robin", "runs-in-progress", "oldest-run"];

    /// <summary>
    /// What an error names when a multiprogram option is given without such a scheme: "the multiprogram schemes (static,
    /// dynamic, ...)", listed from <see cref="SchemeRegistry"/> (schemes and variants) so the list cannot drift from it.
    /// </summary>
    private static readonly string MultiprogramSchemes =
        $"the multiprogram schemes ({string.Join(", ", SchemeRegistry.Schemes.Concat(SchemeRegistry.Variants).Where(s => s.Layout == SchedulerLayout.Multiprogram).Select(s => s.Name))})";

    /// <summary>Default of --rounds.</summary>
    public const int DefaultRounds = 3;

    /// <summary>
    /// The longest default warm-up test per scheme, in seconds (the default is a full round, duration/rounds, up to
    /// this). A method reaches tier 1 after 30 calls, so a short program's once-per-run code needs tens of runs under
    /// each scheme: with 5 s of warm-up per scheme the first measured block of the multiprogram scheme still spent
    /// over ten times the JIT time of later blocks (<c>blocks.csv</c>).
    /// </summary>
    public const double MaxDefaultWarmupSeconds = 30;

    /// <summary>The values of --lending-preference, in <see cref="LendingPreference"/> order.</summary>
    public static IReadOnlyList<string> LendingPreferenceNames => PreferenceNames;

    /// <summary>--no-standby.</summary>
    public Option<bool> NoStandby { get; }

    /// <summary>--lending-preference.</summary>
    public Option<string> LendingPreferenceOption { get; }

    /// <summary>--no-lending.</summary>
    public Option<bool> NoLending { get; }

    /// <summary>--rounds.</summary>
    public Option<int> Rounds { get; }

    /// <summary>--bracket.</summary>
    public Option<bool> Bracket { get; }

    /// <summary>--warmup-seconds.</summary>
    public Option<double?> WarmupSeconds { get; }

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
        command.Add(Rounds);
        command.Add(Bracket);
        command.Add(WarmupSeconds);
        command.Add(Profiles);
        command.Add(ProfileFallback);
        command.Add(RebalanceMilliseconds);
        command.Add(NoLending);
        command.Add(LendingPreferenceOption);
        command.Add(NoStandby);
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
        TimeSpan duration = parse.GetValue(Duration) is { } seconds ? TimeSpan.FromSeconds(seconds) : defaultDuration;
        int rounds = parse.GetValue(Rounds);
        TimeSpan warmup = parse.GetValue(WarmupSeconds) is { } warmupSeconds
            ? TimeSpan.FromSeconds(warmupSeconds)
            : TimeSpan.FromSeconds(Math.Min(MaxDefaultWarmupSeconds, duration.TotalSeconds / rounds));
        string? profiles = parse.GetValue(Profiles);
        var chosen = (parse.GetValue(Schemes) ?? []).Select(SchemeRegistry.Find).ToArray();

        // Options of schemes the run leaves out would change nothing: refused rather than ignored (in a command that takes
        // --schemes at all; one that runs its own set, as processes does, has no result for it).
        // --rebalance-ms is one of them: static too decides every interval when the programs outnumber the workers.
        bool named = parse.GetResult(Schemes) is not null;
        OptionTable.RequireScheme(parse, !named || chosen.Any(d => d.Layout == SchedulerLayout.Multiprogram),
            MultiprogramSchemes,
            NoLending, LendingPreferenceOption, NoStandby, Profiles, ProfileFallback, RebalanceMilliseconds);
        return new SchemeSettings(
            [.. chosen.Select(d => d.Name)],
            duration,
            parse.GetValue(Runs),
            parse.GetValue(Warmup),
            profiles ?? Path.Combine(common.OutRoot, ProfileStoreFileName),
            parse.GetValue(ProfileFallback) == "unit" ? Cli.ProfileFallback.Unit : Cli.ProfileFallback.Measure,
            TimeSpan.FromMilliseconds(parse.GetValue(RebalanceMilliseconds)),
            !parse.GetValue(NoLending))
        {
            Rounds = rounds,
            Bracketed = parse.GetValue(Bracket),
            WarmupTime = warmup,
            Standby = !parse.GetValue(NoStandby),
            LendingPreference = ParseLendingPreference(parse.GetValue(LendingPreferenceOption)),

            // An ad-hoc run (no --out, no --profiles) reads the committed profiles but never writes them.
            ReferenceProfilesPath = profiles is null && !common.OutGiven ? Path.Combine(CommonOptions.ReferenceRoot, ProfileStoreFileName) : null,
        };
    }

    /// <summary>The --lending-preference option (names <see cref="LendingPreferenceNames"/>, default round-robin), as every command that takes it declares it.</summary>
    /// <param name="help">The option's help, in the command's terms.</param>
    /// <returns>The option; read it with <see cref="ParseLendingPreference"/>.</returns>
    internal static Option<string> LendingPreferenceChoice(string help) => OptionTable.Choice("--lending-preference", help, PreferenceNames[0], PreferenceNames);

    /// <summary>A --lending-preference value (one of <see cref="LendingPreferenceNames"/>, checked by the parser).</summary>
    /// <param name="name">The value.</param>
    /// <returns>The preference.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="name"/> is not one of the names.</exception>
    public static LendingPreference ParseLendingPreference(string? name)
    {
        int index = name is null ? 0 : Array.IndexOf(PreferenceNames, name);
        return index >= 0 ? (LendingPreference)index : throw new ArgumentOutOfRangeException(nameof(name), name, "Not a lending preference.");
    }
}

/// <summary>The values of <see cref="SchemeOptions"/>.</summary>
/// <param name="Schemes">Canonical scheme names.</param>
/// <param name="Duration">Cyclic time limit per scheme.</param>
/// <param name="Runs">Isolated runs per program.</param>
/// <param name="Warmup">Unrecorded isolated runs per program.</param>
/// <param name="ProfilesPath">The profile store file.</param>
/// <param name="Fallback">What to do without a profile.</param>
/// <param name="RebalanceInterval">Rebalancing interval.</param>
/// <param name="Lending">Whether multiprogram schemes lend idle workers.</param>
public sealed record SchemeSettings(
    IReadOnlyList<string> Schemes, TimeSpan Duration, int Runs, int Warmup, string ProfilesPath, ProfileFallback Fallback, TimeSpan RebalanceInterval, bool Lending)
{
    /// <summary>Measured rounds, the schemes interleaved (see <see cref="Experiments.CyclicExperimentOptions.Rounds"/>); 1 when not set.</summary>
    public int Rounds { get; init; } = 1;

    /// <summary>Whether C_SP brackets every scheme block (see <see cref="Experiments.CyclicExperimentOptions.Bracketed"/>).</summary>
    public bool Bracketed { get; init; }

    /// <summary>To which program an idle worker of a multiprogram scheme is lent (default round-robin).</summary>
    public LendingPreference LendingPreference { get; init; } = LendingPreference.RoundRobin;

    /// <summary>Each scheme's cyclic test in the uncounted warm-up round; zero (no warm-up round) when not set.</summary>
    public TimeSpan WarmupTime { get; init; } = TimeSpan.Zero;

    /// <summary>Whether multiprogram schemes have a standby worker per CPU (default); false: <c>--no-standby</c>.</summary>
    public bool Standby { get; init; } = true;

    /// <summary>A store read (never written) for programs <see cref="ProfilesPath"/> lacks: the committed reference
    /// profiles during an ad-hoc run; null when there is none.</summary>
    public string? ReferenceProfilesPath { get; init; }
}
