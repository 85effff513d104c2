using System.Runtime.CompilerServices;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots.Kernels;

/// <summary>
/// BOTS NQueens: count the placements of n queens on an n x n board by backtracking, row by row. A node is a board
/// whose first j rows hold non-attacking queens; for each column of row j it copies the board, places the queen and,
/// if no two queens attack each other (the suite checks every pair again), recurses. The TPL versions spawn the
/// children as tasks above depth <see cref="DepthCutoff"/> (the suite's manual cutoff).
/// </summary>
internal sealed class NQueensKernel : KernelCase
{
    /// <summary>The TPL versions spawn tasks only for nodes above this depth (the suite's default).</summary>
    public const int DepthCutoff = 3;

    private readonly int _n;
    private readonly DivideAndConquer<Board, long> _divCon;
    private long _solutions;

    /// <summary>Creates the count for <paramref name="n"/> queens.</summary>
    public NQueensKernel(int n)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(n, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(n, 20);
        _n = n;

        // Every placement a node, as the README suggests: the default granularity chooses which become tasks. A
        // board with no safe column for the next row still needs a subproblem (a split returns at least one): a dead
        // end, which executes to 0. Execute is the sequential search, which solves any board, so a subtree predicted
        // cheaper than a task is one call of it instead of a node per placement (ExecuteSolvesAnyProblem).
        _divCon = DivideAndConquer.Create<Board, long>(
            shouldSplit: (board, depth) => !board.IsDeadEnd && board.Rows < _n,
            split: (board, depth) =>
            {
                var children = new List<Board>(_n);
                for (int column = 0; column < _n; column++)
                {
                    if (board.TryPlace(column) is { } child)
                    {
                        children.Add(child);
                    }
                }

                return children.Count > 0 ? children : [Board.DeadEnd];
            },
            execute: (board, depth) => board.IsDeadEnd ? 0 : CountSequential(board),
            merge: (counts, depth) =>
            {
                long sum = 0;
                for (int i = 0; i < counts.Count; i++)
                {
                    sum += counts[i];
                }

                return sum;
            });
        _divCon.ExecuteSolvesAnyProblem = true;
    }

    /// <inheritdoc/>
    public override string Name => "nqueens";

    /// <inheritdoc/>
    public override string Description => $"{_n} queens; tasks above depth {DepthCutoff}";

    /// <summary>The count of the last run.</summary>
    public long Solutions => _solutions;

    /// <inheritdoc/>
    public override void Reset() => _solutions = -1;

    /// <inheritdoc/>
    public override ulong Checksum() => (ulong)_solutions;

    /// <inheritdoc/>
    public override async Task RunAsync(Variant variant, DivideAndConquerOptions divCon)
    {
        var empty = new Board([], 0);
        _solutions = variant switch
        {
            Variant.Sequential => CountSequential(empty),
            Variant.ParallelInvoke => CountInvoke(empty, 0),
            Variant.TaskRun => await CountTasksAsync(empty, 0).ConfigureAwait(false),
            _ => await _divCon.RunAsync(empty, divCon).ConfigureAwait(false),
        };
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private long CountSequential(Board board)
    {
        if (board.Rows == _n)
        {
            return 1;
        }

        long sum = 0;
        for (int column = 0; column < _n; column++)
        {
            if (board.TryPlace(column) is { } child)
            {
                sum += CountSequential(child);
            }
        }

        return sum;
    }

    private long CountInvoke(Board board, int depth)
    {
        if (board.Rows == _n)
        {
            return 1;
        }

        if (depth >= DepthCutoff)
        {
            return CountSequential(board);
        }

        var counts = new long[_n];
        var actions = new List<Action>(_n);
        for (int column = 0; column < _n; column++)
        {
            if (board.TryPlace(column) is { } child)
            {
                int slot = column;
                actions.Add(() => counts[slot] = CountInvoke(child, depth + 1));
            }
        }

        Parallel.Invoke([.. actions]);
        return counts.Sum();
    }

    private async Task<long> CountTasksAsync(Board board, int depth)
    {
        if (board.Rows == _n)
        {
            return 1;
        }

        if (depth >= DepthCutoff)
        {
            return CountSequential(board);
        }

        var tasks = new List<Task<long>>(_n);
        for (int column = 0; column < _n; column++)
        {
            if (board.TryPlace(column) is { } child)
            {
                tasks.Add(Task.Run(() => CountTasksAsync(child, depth + 1)));
            }
        }

        long[] counts = await Task.WhenAll(tasks).ConfigureAwait(false);
        return counts.Sum();
    }

    /// <summary>The columns of the queens in the first <see cref="Rows"/> rows (a dead end has <see cref="Rows"/> -1).</summary>
    internal sealed record Board(byte[] Columns, int Rows)
    {
        public static Board DeadEnd { get; } = new([], -1);

        public bool IsDeadEnd => Rows < 0;

        /// <summary>The board with a queen in <paramref name="column"/> of the next row, or null if two queens attack.</summary>
        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public Board? TryPlace(int column)
        {
            var next = new byte[Rows + 1];
            Array.Copy(Columns, next, Rows);
            next[Rows] = (byte)column;
            return Safe(next) ? new Board(next, Rows + 1) : null;
        }

        // The suite's test: no two queens share a column or a diagonal (every pair).
        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        private static bool Safe(byte[] columns)
        {
            for (int i = 0; i < columns.Length; i++)
            {
                int p = columns[i];
                for (int j = i + 1; j < columns.Length; j++)
                {
                    int q = columns[j];
                    if (q == p || q == p - (j - i) || q == p + (j - i))
                    {
                        return false;
                    }
                }
            }

            return true;
        }
    }
}
