namespace DivCon.Harness.Experiments;

/// <summary>A scheme of a cyclic experiment that has no metrics because some programs finished no run in time.</summary>
/// <param name="Scheme">The scheme.</param>
/// <param name="ProgramsWithoutRuns">The programs with no counted run.</param>
public sealed record IncompleteScheme(string Scheme, IReadOnlyList<string> ProgramsWithoutRuns)
{
    /// <inheritdoc/>
    public override string ToString() =>
        $"under '{Scheme}', {string.Join(", ", ProgramsWithoutRuns)} finished no run within the time limit";
}
