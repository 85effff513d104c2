using DivCon.Skeletons;

namespace DivCon.Programs.Matrices;

/// <summary>
/// Strassen's matrix multiplication as a divide-and-conquer program: each split makes the seven half-order
/// products I..VII (doing the operand additions), the leaves multiply plainly (i-k-j, vectorised), and each merge
/// assembles the four quadrants of the result from the seven products (the result additions).
/// </summary>
/// <remarks>
/// <para><b>Algorithm.</b> With A and B cut into quadrants A11..A22 and B11..B22:
/// I = (A11 + A22)(B11 + B22), II = (A21 + A22) B11, III = A11 (B12 - B22), IV = A22 (B21 - B11),
/// V = (A11 + A12) B22, VI = (A21 - A11)(B11 + B12), VII = (A12 - A22)(B21 + B22); then
/// C11 = I + IV - V + VII, C12 = III + V, C21 = II + IV, C22 = I - II + III + VI.</para>
/// <para><b>Where splitting stops.</b> Besides the granularity, a problem is split only when its order is even and
/// larger than <see cref="MinimumSplitOrder"/>, and only above depth <see cref="MaxSplitDepth"/> (3 by default: at most
/// 7^3 = 343 leaves, the thesis's limit). The size is the element count (order^2), which a split divides by 4 while
/// making 7 children, so automatic granularity is resolved by <see cref="ResolveAutomaticGranularity"/>.</para>
/// <para><b>Cost.</b> The O(n^2) additions in split and merge run inside single tasks, so this program scales less
/// well than the map-reduce ones. Each split allocates its 14 operands and each merge its result.</para>
/// </remarks>
public sealed class StrassenMultiplication : GranularDivideAndConquer<StrassenProblem, SquareMatrix>
{
    /// <summary>The default of <see cref="MinimumSplitOrder"/>.</summary>
    public const int DefaultMinimumSplitOrder = 64;

    /// <summary>The default of <see cref="MaxSplitDepth"/> (343 leaves at most).</summary>
    public const int DefaultMaxSplitDepth = 3;

    private readonly int _minimumSplitOrder = DefaultMinimumSplitOrder;
    private readonly int _maxSplitDepth = DefaultMaxSplitDepth;

    /// <summary>Creates the program.</summary>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    public StrassenMultiplication(DivideAndConquerOptions? options = null)
        : base(options)
    {
    }

    /// <summary>Matrices of this order or smaller are multiplied plainly, never split. At least 1.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MinimumSplitOrder
    {
        get => _minimumSplitOrder;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _minimumSplitOrder = value;
        }
    }

    /// <summary>Problems at this depth or deeper are never split. At least 0.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is negative.</exception>
    public int MaxSplitDepth
    {
        get => _maxSplitDepth;
        init
        {
            ArgumentOutOfRangeException.ThrowIfNegative(value);
            _maxSplitDepth = value;
        }
    }

    /// <summary>Multiplies the whole problem plainly (the execute muscle) on the calling thread.</summary>
    /// <param name="problem">The operands.</param>
    /// <returns>The product.</returns>
    public static SquareMatrix MultiplyDirectly(StrassenProblem problem)
    {
        var product = new SquareMatrix(problem.Order);
        MatrixKernels.MultiplyAdd(problem.Left.Elements, problem.Right.Elements, product.Elements, problem.Order);
        return product;
    }

    /// <summary>
    /// The granularity (in elements) for about <paramref name="targetLeaves"/> leaves: each level multiplies the
    /// leaves by 7 and divides the size by 4, so split ceil(log7(leaves)) levels, i.e. granularity =
    /// size / 4^levels.
    /// </summary>
    /// <param name="problemSize">The root's element count.</param>
    /// <param name="targetLeaves">The leaf count to aim at.</param>
    /// <returns>The granularity, at least 1.</returns>
    public static long StrassenGranularity(long problemSize, int targetLeaves)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(problemSize);
        ArgumentOutOfRangeException.ThrowIfLessThan(targetLeaves, 1);
        long size = problemSize;
        for (long leaves = 1; leaves < targetLeaves && size > 1; leaves *= 7)
        {
            size = (size + 3) / 4;
        }

        return Math.Max(size, 1);
    }

    /// <inheritdoc/>
    protected override long GetSize(StrassenProblem problem) => (long)problem.Order * problem.Order;

    /// <inheritdoc/>
    protected override long ResolveAutomaticGranularity(long problemSize, int targetLeaves) => StrassenGranularity(problemSize, targetLeaves);

    /// <inheritdoc/>
    protected override bool ShouldSplit(StrassenProblem problem, int depth) =>
        depth < _maxSplitDepth && problem.Order > _minimumSplitOrder && problem.Order % 2 == 0 && base.ShouldSplit(problem, depth);

    /// <inheritdoc/>
    protected override IReadOnlyList<StrassenProblem> Split(StrassenProblem problem, int depth)
    {
        var a = new Quadrants(problem.Left);
        var b = new Quadrants(problem.Right);
        return
        [
            new(a.Sum(1, 1, 2, 2), b.Sum(1, 1, 2, 2)),
            new(a.Sum(2, 1, 2, 2), b.Copy(1, 1)),
            new(a.Copy(1, 1), b.Difference(1, 2, 2, 2)),
            new(a.Copy(2, 2), b.Difference(2, 1, 1, 1)),
            new(a.Sum(1, 1, 1, 2), b.Copy(2, 2)),
            new(a.Difference(2, 1, 1, 1), b.Sum(1, 1, 1, 2)),
            new(a.Difference(1, 2, 2, 2), b.Sum(2, 1, 2, 2)),
        ];
    }

    /// <inheritdoc/>
    protected override SquareMatrix Execute(StrassenProblem problem, int depth) => MultiplyDirectly(problem);

    /// <inheritdoc/>
    protected override SquareMatrix Merge(IReadOnlyList<SquareMatrix> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        int h = subresults[0].Order;
        int n = 2 * h;
        var c = new SquareMatrix(n);
        ReadOnlySpan<int> p1 = subresults[0].Elements, p2 = subresults[1].Elements, p3 = subresults[2].Elements, p4 = subresults[3].Elements;
        ReadOnlySpan<int> p5 = subresults[4].Elements, p6 = subresults[5].Elements, p7 = subresults[6].Elements;
        var elements = c.Elements.AsSpan();
        for (int i = 0; i < h; i++)
        {
            var r = new Range(i * h, (i * h) + h);
            var c11 = elements.Slice(i * n, h);
            var c12 = elements.Slice((i * n) + h, h);
            var c21 = elements.Slice((i + h) * n, h);
            var c22 = elements.Slice(((i + h) * n) + h, h);

            // C11 = I + IV - V + VII
            MatrixKernels.Add(p1[r], p4[r], c11);
            MatrixKernels.Subtract(c11, p5[r], c11);
            MatrixKernels.Add(c11, p7[r], c11);

            // C12 = III + V; C21 = II + IV
            MatrixKernels.Add(p3[r], p5[r], c12);
            MatrixKernels.Add(p2[r], p4[r], c21);

            // C22 = I - II + III + VI
            MatrixKernels.Subtract(p1[r], p2[r], c22);
            MatrixKernels.Add(c22, p3[r], c22);
            MatrixKernels.Add(c22, p6[r], c22);
        }

        return c;
    }

    /// <summary>Reads the four quadrants of a matrix of even order without copying them first.</summary>
    private readonly struct Quadrants(SquareMatrix matrix)
    {
        private readonly int[] _elements = matrix.Elements;
        private readonly int _order = matrix.Order;

        private int Half => _order / 2;

        public SquareMatrix Copy(int row, int column)
        {
            var result = new SquareMatrix(Half);
            for (int i = 0; i < Half; i++)
            {
                QuadrantRow(row, column, i).CopyTo(result.Elements.AsSpan(i * Half, Half));
            }

            return result;
        }

        public SquareMatrix Sum(int row1, int column1, int row2, int column2)
        {
            var result = new SquareMatrix(Half);
            for (int i = 0; i < Half; i++)
            {
                MatrixKernels.Add(QuadrantRow(row1, column1, i), QuadrantRow(row2, column2, i), result.Elements.AsSpan(i * Half, Half));
            }

            return result;
        }

        public SquareMatrix Difference(int row1, int column1, int row2, int column2)
        {
            var result = new SquareMatrix(Half);
            for (int i = 0; i < Half; i++)
            {
                MatrixKernels.Subtract(QuadrantRow(row1, column1, i), QuadrantRow(row2, column2, i), result.Elements.AsSpan(i * Half, Half));
            }

            return result;
        }

        // Row i of quadrant (row, column), both 1-based as in the textbook formulas.
        private ReadOnlySpan<int> QuadrantRow(int row, int column, int i) =>
            _elements.AsSpan((((row - 1) * Half) + i) * _order + ((column - 1) * Half), Half);
    }
}
