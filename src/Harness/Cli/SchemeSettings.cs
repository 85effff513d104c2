using DivCon.Harness.Wiring;

namespace DivCon.Harness.Cli;

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

    /// <summary>Each scheme's cyclic test in the uncounted warm-up round; zero (no warm-up round) when not set.</summary>
    public TimeSpan WarmupTime { get; init; } = TimeSpan.Zero;

    /// <summary>Whether multiprogram schemes have a standby worker per CPU (default); false: <c>--no-standby</c>.</summary>
    public bool Standby { get; init; } = true;

    /// <summary>A store read (never written) for programs <see cref="ProfilesPath"/> lacks: the committed reference
    /// profiles during an ad-hoc run; null when there is none.</summary>
    public string? ReferenceProfilesPath { get; init; }
}
