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
    /// <summary>A store read (never written) for programs <see cref="ProfilesPath"/> lacks: the committed reference
    /// profiles during an ad-hoc run; null when there is none.</summary>
    public string? ReferenceProfilesPath { get; init; }
}
