namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>Identifies one program registered with the multiprogram scheduler.</summary>
/// <param name="Value">The number the scheduler gave the program when it registered.</param>
public readonly record struct ProgramId(int Value)
{
    /// <inheritdoc />
    public override string ToString() => $"P{Value}";
}
