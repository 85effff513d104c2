using System.Numerics;
using DivCon.Skeletons;

namespace DivCon.Programs.Recursion;

/// <summary>
/// Counts the ways to place n non-attacking queens on an n x n board (BOTS's nqueens): an irregular search tree,
/// since a partial board has anywhere from 0 to n safe squares in its next row.
/// </summary>
/// <remarks>
/// The problem is a partial board (<see cref="BoardState"/>); its size is the number of rows left to fill. Split
/// places a queen on each safe square of the next row (one child per safe column, up to n), a leaf counts its
/// completions by sequential bit-mask backtracking, merge adds. A board with no safe square is a leaf worth 0. The
/// granularity is the cut-off in rows left (<c>Granularity.Fixed(n - d)</c> or <c>Granularity.Depth(d)</c> split the
/// first d rows); the automatic granularity picks the shallowest cut-off depth whose level holds at least the target
/// number of partial boards.
/// </remarks>
public sealed class NQueens : GranularDivideAndConquer<BoardState, long>
{
    /// <summary>The largest board this program accepts.</summary>
    public const int MaxN = 30;

    /// <summary>Creates the program for an <paramref name="n"/> x <paramref name="n"/> board.</summary>
    /// <param name="n">The board size, 1 to <see cref="MaxN"/>.</param>
    /// <param name="options">Default options; <see langword="null"/>: the defaults.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="n"/> is out of range.</exception>
    public NQueens(int n, DivideAndConquerOptions? options = null)
        : base(options)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(n, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(n, MaxN);
        N = n;
    }

    /// <summary>The board size.</summary>
    public int N { get; }

    /// <summary>Counts the completions of <paramref name="board"/> by sequential backtracking (the execute muscle).</summary>
    /// <param name="board">A partial board.</param>
    /// <returns>The number of full solutions extending it.</returns>
    public long CountCompletions(BoardState board)
    {
        if (board.Row == N)
        {
            return 1;
        }

        long count = 0;
        int safe = board.SafeColumns(N);
        while (safe != 0)
        {
            int bit = safe & -safe;
            safe ^= bit;
            count += CountCompletions(board.Place(bit));
        }

        return count;
    }

    /// <summary>How many partial boards (queens placed safely in every row) exist with <paramref name="rows"/> rows filled.</summary>
    /// <param name="rows">Rows filled, 0 to n.</param>
    /// <returns>The count.</returns>
    public long CountPartialBoards(int rows)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(rows);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(rows, N);
        return Count(BoardState.Empty, rows);

        long Count(BoardState board, int target)
        {
            if (board.Row == target)
            {
                return 1;
            }

            long count = 0;
            int safe = board.SafeColumns(N);
            while (safe != 0)
            {
                int bit = safe & -safe;
                safe ^= bit;
                count += Count(board.Place(bit), target);
            }

            return count;
        }
    }

    /// <inheritdoc/>
    protected override long GetSize(BoardState problem) => N - problem.Row;

    /// <summary>Rows left at the shallowest depth holding at least <paramref name="targetLeaves"/> partial boards.</summary>
    /// <param name="problemSize">n (rows left at the root).</param>
    /// <param name="targetLeaves">The leaf count to aim at.</param>
    /// <returns>The cut-off in rows left, at least 1.</returns>
    protected override long ResolveAutomaticGranularity(long problemSize, int targetLeaves)
    {
        for (int depth = 0; depth < N; depth++)
        {
            if (CountPartialBoards(depth) >= targetLeaves)
            {
                return Math.Max(N - depth, 1);
            }
        }

        return 1;
    }

    /// <inheritdoc/>
    protected override bool ShouldSplit(BoardState problem, int depth) =>
        problem.Row < N && problem.SafeColumns(N) != 0 && base.ShouldSplit(problem, depth);

    /// <inheritdoc/>
    protected override IReadOnlyList<BoardState> Split(BoardState problem, int depth)
    {
        int safe = problem.SafeColumns(N);
        var children = new BoardState[BitOperations.PopCount((uint)safe)];
        for (int i = 0; safe != 0; i++)
        {
            int bit = safe & -safe;
            safe ^= bit;
            children[i] = problem.Place(bit);
        }

        return children;
    }

    /// <inheritdoc/>
    protected override long Execute(BoardState problem, int depth) => CountCompletions(problem);

    /// <inheritdoc/>
    protected override long Merge(IReadOnlyList<long> subresults, int depth)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        long total = 0;
        for (int i = 0; i < subresults.Count; i++)
        {
            total += subresults[i];
        }

        return total;
    }
}
