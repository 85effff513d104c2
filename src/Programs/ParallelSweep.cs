using System.Runtime.ExceptionServices;
using DivCon.Skeletons;

namespace DivCon.Programs;

/// <summary>
/// Runs one long sweep (a pass over many elements: a partition, a merge, a matrix sum) as independent blocks in
/// parallel on a run's scheduler, so that no single task of a program touches more than a bounded number of elements.
/// </summary>
/// <remarks>
/// <para><b>Why.</b> A task that runs for a long time holds its worker: the multiprogram scheduler cannot move that
/// CPU to another program until the task ends (or its standby takes over, which only covers one long task per CPU).
/// The top-level sweeps of the sorts and of Strassen were single tasks of hundreds of milliseconds; cut into blocks of
/// at most <see cref="DefaultMaximumLength"/> elements, each task lasts about a millisecond.</para>
/// <para><b>Engines.</b> Under the continuation engine the blocks are a nested skeleton run (a map-reduce over block
/// indexes, one block per leaf, every node a task) on the given scheduler, whose task the caller hands to the engine:
/// no thread waits. Under the fork-join engine, which blocks anyway, the blocks are a fork-join recursion on the same
/// scheduler (fork one half, run the other, wait for the first, which the scheduler may run inline), because a thread
/// blocked on a nested non-blocking run could starve a fixed-size scheduler.</para>
/// </remarks>
internal static class ParallelSweep
{
    /// <summary>The default longest sweep a single task performs, in elements (about a millisecond of streaming work).</summary>
    public const int DefaultMaximumLength = 1 << 19;

    private static readonly Action<object?> s_forked = static state =>
    {
        var fork = (Fork)state!;
        ForkJoin(fork.Start, fork.End, fork.Body, fork.Scheduler, fork.Token);
    };

    /// <summary>The number of blocks of at most <paramref name="maximumBlockLength"/> that cover <paramref name="length"/> units.</summary>
    /// <param name="length">Units to cover, at least 0.</param>
    /// <param name="maximumBlockLength">The most units per block, at least 1.</param>
    /// <returns>ceil(length / maximumBlockLength), at least 1.</returns>
    public static int BlockCount(long length, long maximumBlockLength) =>
        (int)Math.Max(1, (length + maximumBlockLength - 1) / maximumBlockLength);

    /// <summary>
    /// Runs <paramref name="body"/> for every block index in [0, <paramref name="blockCount"/>), blocks in parallel on
    /// <paramref name="scheduler"/> (see the remarks for the engines). One block runs on the calling thread.
    /// </summary>
    /// <param name="blockCount">The number of blocks, at least 1.</param>
    /// <param name="body">Processes one block; blocks must be independent.</param>
    /// <param name="scheduler">The run's scheduler.</param>
    /// <param name="engine">The run's engine.</param>
    /// <param name="cancellationToken">The run's token, checked before every block is started.</param>
    /// <returns>A task that completes when every block has run, faults with a block's exception, or is cancelled.</returns>
    public static Task RunAsync(int blockCount, Action<int> body, TaskScheduler scheduler, ExecutionEngine engine, CancellationToken cancellationToken)
    {
        if (blockCount <= 1 || engine == ExecutionEngine.ForkJoin)
        {
            try
            {
                ForkJoin(0, blockCount, body, scheduler, cancellationToken);
                return Task.CompletedTask;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return Task.FromCanceled(cancellationToken);
            }
            catch (Exception exception)
            {
                return Task.FromException(exception);
            }
        }

        var blocks = MapReduce.CreateRanged(
            range =>
            {
                for (int block = range.Start; block < range.End; block++)
                {
                    body(block);
                }

                return 0;
            },
            static (_, _) => 0,
            identity: 0,
            granularity: Granularity.Fixed(1));
        return blocks.RunAsync(new IndexRange(0, blockCount), DivideAndConquerOptions.Default with { Scheduler = scheduler }, cancellationToken);
    }

    // Blocks [start, end): fork the first half, run the second here, then wait for the first (the scheduler may inline it).
    private static void ForkJoin(int start, int end, Action<int> body, TaskScheduler scheduler, CancellationToken cancellationToken)
    {
        if (end - start > 1)
        {
            cancellationToken.ThrowIfCancellationRequested();
            int middle = start + ((end - start) / 2);
            var forked = Task.Factory.StartNew(s_forked, new Fork(start, middle, body, scheduler, cancellationToken), CancellationToken.None, TaskCreationOptions.DenyChildAttach, scheduler);
            Exception? error = null;
            try
            {
                ForkJoin(middle, end, body, scheduler, cancellationToken);
            }
            catch (Exception exception)
            {
                error = exception;
            }

            // Always wait for the forked half, so no block of this sweep is still running when the sweep ends.
            forked.GetAwaiter().GetResult();
            if (error is not null)
            {
                ExceptionDispatchInfo.Capture(error).Throw();
            }

            return;
        }

        if (start < end)
        {
            cancellationToken.ThrowIfCancellationRequested();
            body(start);
        }
    }

    private sealed record Fork(int Start, int End, Action<int> Body, TaskScheduler Scheduler, CancellationToken Token);
}
