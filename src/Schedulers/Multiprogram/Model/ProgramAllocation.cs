namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>The number of cores a decision gives one program.</summary>
/// <param name="Id">The program.</param>
/// <param name="Cores">Its cores (at least 0).</param>
public readonly record struct ProgramAllocation(ProgramId Id, int Cores)
{
    /// <summary>The program's name, or <c>P</c> and its number when it has none (see <see cref="ProgramId.Name"/>).</summary>
    public string Name => Id.ToString();

    /// <inheritdoc />
    /// <remarks>For example <c>mergesort: 2 cores</c>.</remarks>
    public override string ToString() => $"{Id}: {Cores} {(Cores == 1 ? "core" : "cores")}";
}
