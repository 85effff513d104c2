namespace DivCon.Programs.Matrices;

/// <summary>A product to compute: <see cref="Left"/> x <see cref="Right"/>, both of the same order.</summary>
/// <param name="Left">The left operand (never written).</param>
/// <param name="Right">The right operand (never written).</param>
public readonly record struct StrassenProblem(SquareMatrix Left, SquareMatrix Right)
{
    /// <summary>The order of both operands.</summary>
    public int Order => Left.Order;
}
