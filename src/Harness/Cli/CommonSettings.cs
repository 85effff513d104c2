using DivCon.Harness.Wiring;
using DivCon.Programs;

namespace DivCon.Harness.Cli;

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
