using System.Collections.Concurrent;
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
/// <para><b>Long sweeps.</b> A split writes 14 quadrant-sized operands (14 (n/2)^2 elements) and a merge the n^2
/// elements of its result; at the thesis size the root's split and merge were single tasks of tens of milliseconds,
/// holding their worker, which delays the multiprogram scheduler's moves of that CPU. So a split or merge that writes
/// more than <see cref="MaximumSweepLength"/> elements is asynchronous: it allocates its matrices (uninitialised where
/// the runtime allows; every element is written), then computes them as a parallel sweep over blocks of rows on the
/// run's scheduler (<see cref="TaskScheduler.Current"/>), each block computing its rows of all 14 operands (or of the
/// four result quadrants), at most that many elements per block. Smaller ones run as before, in one task. The
/// arithmetic per element is the same either way, so the product is identical.</para>
/// <para><b>Temporary matrices are reused.</b> Every operand and product below the root is a temporary: an operand is
/// read only by the child it was made for (by its split or its leaf multiplication), a product only by its parent's
/// merge. Once read, it goes back to a per-instance store by order, and the next split, leaf or merge of that order
/// takes it from there instead of allocating. Matrices of orders 192 and up are on the large-object heap, where every
/// allocation is fresh memory (page faults, and gen2 collections triggered by the allocation volume) and allocations
/// from several workers contend; with 1 ms leaves a run at the thesis order allocated about 300 MB this way, and its
/// 2-worker time was bimodal and no better than its 1-worker time. The root's operands (the caller's) and the root's
/// product (the result) never enter the store. A run that fails or is cancelled leaves its matrices to the garbage
/// collector.</para>
/// </remarks>
public sealed class StrassenMultiplication : GranularDivideAndConquer<StrassenProblem, SquareMatrix>
{
    /// <summary>The default of <see cref="MinimumSplitOrder"/>.</summary>
    public const int DefaultMinimumSplitOrder = 64;

    /// <summary>The default of <see cref="MaxSplitDepth"/> (343 leaves at most).</summary>
    public const int DefaultMaxSplitDepth = 3;

    // The 14 operands of a split, in the order of the products I..VII (left, right of each): which operand, how it is
    // made and from which quadrants (1-based row, column).
    private static readonly Operand[] s_operands =
    [
        new(Left: true, OperandKind.Sum, 1, 1, 2, 2), new(Left: false, OperandKind.Sum, 1, 1, 2, 2),
        new(Left: true, OperandKind.Sum, 2, 1, 2, 2), new(Left: false, OperandKind.Copy, 1, 1, 0, 0),
        new(Left: true, OperandKind.Copy, 1, 1, 0, 0), new(Left: false, OperandKind.Difference, 1, 2, 2, 2),
        new(Left: true, OperandKind.Copy, 2, 2, 0, 0), new(Left: false, OperandKind.Difference, 2, 1, 1, 1),
        new(Left: true, OperandKind.Sum, 1, 1, 1, 2), new(Left: false, OperandKind.Copy, 2, 2, 0, 0),
        new(Left: true, OperandKind.Difference, 2, 1, 1, 1), new(Left: false, OperandKind.Sum, 1, 1, 1, 2),
        new(Left: true, OperandKind.Difference, 1, 2, 2, 2), new(Left: false, OperandKind.Sum, 2, 1, 2, 2),
    ];

    private readonly int _minimumSplitOrder = DefaultMinimumSplitOrder;
    private readonly int _maxSplitDepth = DefaultMaxSplitDepth;
    private readonly int _maximumSweepLength = ParallelSweep.DefaultMaximumLength;

    // Temporary matrices no longer read, by order (see the remarks). Bags: a worker takes back what it returned.
    private readonly ConcurrentDictionary<int, ConcurrentBag<int[]>> _spare = new();

    // The engine of the run started last, read by the asynchronous split and merge (concurrent runs of one instance
    // must therefore use the same engine). Written in OnRunStarting, before the root task is queued (which publishes it).
    private ExecutionEngine _engine;

    private enum OperandKind
    {
        Copy,
        Sum,
        Difference,
    }

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

    /// <summary>
    /// Splits and merges that write more than this many elements compute them in parallel, in blocks of rows of at
    /// most this many elements (see the remarks); default 2^19. At least 1.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaximumSweepLength
    {
        get => _maximumSweepLength;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _maximumSweepLength = value;
        }
    }

    /// <summary>Receives the number of elements written by every sequential piece of a split or merge: for tests.</summary>
    internal Action<long>? PieceObserver { get; set; }

    /// <summary>Multiplies the whole problem plainly (the execute muscle) on the calling thread.</summary>
    /// <param name="problem">The operands.</param>
    /// <returns>The product.</returns>
    public static SquareMatrix MultiplyDirectly(StrassenProblem problem) => MultiplyAddInto(problem, new SquareMatrix(problem.Order));

    /// <summary>Adds the problem's product to <paramref name="product"/> (zero for a plain product) and returns it.</summary>
    private static SquareMatrix MultiplyAddInto(StrassenProblem problem, SquareMatrix product)
    {
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
    protected override void OnRunStarting(StrassenProblem problem, DivideAndConquerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        base.OnRunStarting(problem, options);
        _engine = options.Engine;
    }

    /// <inheritdoc/>
    protected override IReadOnlyList<StrassenProblem> Split(StrassenProblem problem, int depth)
    {
        int half = problem.Order / 2;
        var operands = new SquareMatrix[s_operands.Length];
        for (int k = 0; k < operands.Length; k++)
        {
            operands[k] = Take(half);
        }

        PieceObserver?.Invoke((long)s_operands.Length * half * half);
        FillOperands(problem, operands, 0, half);
        Release(problem, depth);
        return Pair(operands);
    }

    /// <inheritdoc/>
    protected override ValueTask<IReadOnlyList<StrassenProblem>> SplitAsync(StrassenProblem problem, int depth, CancellationToken cancellationToken)
    {
        int half = problem.Order / 2;
        int rowLength = s_operands.Length * half;
        if ((long)rowLength * half <= _maximumSweepLength)
        {
            return new ValueTask<IReadOnlyList<StrassenProblem>>(Split(problem, depth));
        }

        var operands = new SquareMatrix[s_operands.Length];
        for (int k = 0; k < operands.Length; k++)
        {
            operands[k] = Take(half);
        }

        var observer = PieceObserver;
        var scheduler = TaskScheduler.Current; // The run's: the engine runs splits and merges as its tasks.
        var (blocks, rows) = RowBlocks(half, rowLength);
        var sweep = ParallelSweep.RunAsync(
            blocks,
            block =>
            {
                int first = block * rows, end = Math.Min(first + rows, half);
                observer?.Invoke((long)rowLength * (end - first));
                FillOperands(problem, operands, first, end);
            },
            scheduler,
            _engine,
            cancellationToken);
        return new ValueTask<IReadOnlyList<StrassenProblem>>(ThenAsync<IReadOnlyList<StrassenProblem>>(sweep, scheduler, () =>
        {
            Release(problem, depth);
            return Pair(operands);
        }));
    }

    /// <inheritdoc/>
    protected override SquareMatrix Execute(StrassenProblem problem, int depth)
    {
        // The root's product is the caller's result, so it never comes from the store. The product accumulates, so a
        // reused matrix is cleared first.
        SquareMatrix product;
        if (depth == 0)
        {
            product = new SquareMatrix(problem.Order);
        }
        else
        {
            product = Take(problem.Order);
            Array.Clear(product.Elements, 0, product.Elements.Length);
        }

        MultiplyAddInto(problem, product);
        Release(problem, depth);
        return product;
    }

    /// <inheritdoc/>
    protected override SquareMatrix Merge(IReadOnlyList<SquareMatrix> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        int h = subresults[0].Order;
        var c = Take(2 * h);
        PieceObserver?.Invoke(4L * h * h);
        MergeRows(subresults, c, 0, h);
        Release(subresults);
        return c;
    }

    /// <inheritdoc/>
    protected override ValueTask<SquareMatrix> MergeAsync(StrassenProblem problem, IReadOnlyList<SquareMatrix> subresults, int depth, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        int h = subresults[0].Order;
        int rowLength = 4 * h;
        if ((long)rowLength * h <= _maximumSweepLength)
        {
            return new ValueTask<SquareMatrix>(Merge(subresults, depth));
        }

        var c = Take(2 * h);
        var observer = PieceObserver;
        var scheduler = TaskScheduler.Current; // The run's: the engine runs splits and merges as its tasks.
        var (blocks, rows) = RowBlocks(h, rowLength);
        var sweep = ParallelSweep.RunAsync(
            blocks,
            block =>
            {
                int first = block * rows, end = Math.Min(first + rows, h);
                observer?.Invoke((long)rowLength * (end - first));
                MergeRows(subresults, c, first, end);
            },
            scheduler,
            _engine,
            cancellationToken);
        return new ValueTask<SquareMatrix>(ThenAsync(sweep, scheduler, () =>
        {
            Release(subresults);
            return c;
        }));
    }

    // Rows [first, end) of the quadrants of C from the seven products (rows of the half-order products).
    private static void MergeRows(IReadOnlyList<SquareMatrix> subresults, SquareMatrix product, int first, int end)
    {
        int h = subresults[0].Order;
        int n = 2 * h;
        ReadOnlySpan<int> p1 = subresults[0].Elements, p2 = subresults[1].Elements, p3 = subresults[2].Elements, p4 = subresults[3].Elements;
        ReadOnlySpan<int> p5 = subresults[4].Elements, p6 = subresults[5].Elements, p7 = subresults[6].Elements;
        var elements = product.Elements.AsSpan();
        for (int i = first; i < end; i++)
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
    }

    // Rows [first, end) of all 14 operands of a split.
    private static void FillOperands(StrassenProblem problem, SquareMatrix[] operands, int first, int end)
    {
        var a = new Quadrants(problem.Left);
        var b = new Quadrants(problem.Right);
        for (int k = 0; k < s_operands.Length; k++)
        {
            var operand = s_operands[k];
            var quadrants = operand.Left ? a : b;
            var result = operands[k].Elements;
            int half = operands[k].Order;
            for (int i = first; i < end; i++)
            {
                var row = result.AsSpan(i * half, half);
                switch (operand.Kind)
                {
                    case OperandKind.Copy:
                        quadrants.Row(operand.Row1, operand.Column1, i).CopyTo(row);
                        break;
                    case OperandKind.Sum:
                        MatrixKernels.Add(quadrants.Row(operand.Row1, operand.Column1, i), quadrants.Row(operand.Row2, operand.Column2, i), row);
                        break;
                    default:
                        MatrixKernels.Subtract(quadrants.Row(operand.Row1, operand.Column1, i), quadrants.Row(operand.Row2, operand.Column2, i), row);
                        break;
                }
            }
        }
    }

    private static StrassenProblem[] Pair(SquareMatrix[] operands)
    {
        var problems = new StrassenProblem[operands.Length / 2];
        for (int p = 0; p < problems.Length; p++)
        {
            problems[p] = new StrassenProblem(operands[2 * p], operands[(2 * p) + 1]);
        }

        return problems;
    }

    // Blocks of whole rows with at most MaximumSweepLength elements each (at least one row per block).
    private (int Blocks, int Rows) RowBlocks(int rowCount, int rowLength)
    {
        int rows = Math.Max(1, _maximumSweepLength / Math.Max(rowLength, 1));
        return ((rowCount + rows - 1) / rows, rows);
    }

    // A matrix of the order from the store, else a new one; its elements are arbitrary (every caller writes them all,
    // or clears them).
    private SquareMatrix Take(int order) =>
        _spare.TryGetValue(order, out var bag) && bag.TryTake(out int[]? elements) ? new SquareMatrix(order, elements) : Uninitialized(order);

    // The operands of a problem below the root, once read (the root's belong to the caller).
    private void Release(StrassenProblem problem, int depth)
    {
        if (depth > 0)
        {
            Store(problem.Left);
            Store(problem.Right);
        }
    }

    // The products of the children, once merged (never the root's product: it is the merge's own result).
    private void Release(IReadOnlyList<SquareMatrix> products)
    {
        for (int i = 0; i < products.Count; i++)
        {
            Store(products[i]);
        }
    }

    private void Store(SquareMatrix matrix) =>
        _spare.GetOrAdd(matrix.Order, static _ => new ConcurrentBag<int[]>()).Add(matrix.Elements);

    private static SquareMatrix Uninitialized(int order) =>
#if NET5_0_OR_GREATER
        new(order, GC.AllocateUninitializedArray<int>(order * order));
#else
        new(order);
#endif

    // Resumes on the sweep's scheduler (the run's): with ConfigureAwait(false) the result would be built on the .NET
    // thread pool, outside the program's workers.
    private static async Task<T> ThenAsync<T>(Task sweep, TaskScheduler scheduler, Func<T> result)
    {
        await sweep.ResumeOn(scheduler);
        return result();
    }

    /// <summary>Reads the four quadrants of a matrix of even order without copying them.</summary>
    private readonly struct Quadrants(SquareMatrix matrix)
    {
        private readonly int[] _elements = matrix.Elements;
        private readonly int _order = matrix.Order;

        private int Half => _order / 2;

        // Row i of quadrant (row, column), both 1-based as in the textbook formulas.
        public ReadOnlySpan<int> Row(int row, int column, int i) =>
            _elements.AsSpan((((row - 1) * Half) + i) * _order + ((column - 1) * Half), Half);
    }

    /// <summary>One operand of a split: a copy, sum or difference of quadrants of the left or right matrix.</summary>
    private readonly record struct Operand(bool Left, OperandKind Kind, int Row1, int Column1, int Row2, int Column2);
}
