namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>Identifies one program registered with the multiprogram scheduler.</summary>
/// <param name="Value">The number the scheduler gave the program when it registered.</param>
/// <remarks>
/// Two ids are equal when their numbers are; the <see cref="Name"/> is for people only (programs registered with
/// the scheduler carry the name they were registered with, so events, allocations and worker assignments print
/// it; ids built by hand, for example for a policy's tests, have none and print as <c>P</c> and the number).
/// </remarks>
public readonly record struct ProgramId(int Value)
{
    /// <summary>Creates an id that prints as <paramref name="name"/>.</summary>
    /// <param name="value">The number the scheduler gave the program.</param>
    /// <param name="name">The name it was registered with; null or empty: none.</param>
    public ProgramId(int value, string? name)
        : this(value)
    {
        Name = string.IsNullOrEmpty(name) ? null : name;
    }

    /// <summary>The name the program was registered with, or <see langword="null"/> for an id built by hand.</summary>
    public string? Name { get; }

    /// <summary>Equal when the numbers are (the name does not count).</summary>
    /// <param name="other">Another id.</param>
    /// <returns>Whether both name the same program.</returns>
    public bool Equals(ProgramId other) => Value == other.Value;

    /// <inheritdoc />
    public override int GetHashCode() => Value;

    /// <inheritdoc />
    /// <remarks>The registered name, or <c>P</c> and the number when there is none.</remarks>
    public override string ToString() => Name ?? $"P{Value}";
}
