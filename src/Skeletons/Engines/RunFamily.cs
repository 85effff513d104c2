namespace DivCon.Skeletons.Engines;

/// <summary>
/// A run and the runs nested in it (loops and runs started from its nodes' splits and merges): how many of their
/// tasks are queued or running right now. A nested loop reads it to tell whether the enclosing program already offers
/// the scheduler's workers enough to do (see <see cref="NestedLoop.RunsSequentially"/>).
/// </summary>
/// <remarks>
/// <para>Counted by the continuation engine: one more when it queues a task (a node, a sibling batch, a merge, the
/// resumption of an unfinished split or merge), one less when that task's delegate returns (or when the scheduler
/// refused it). A node suspended on an unfinished phase is therefore not counted; the tasks of the loop it awaits are.
/// The fork-join engine counts nothing (its runs start families that always read 0).</para>
/// <para>Which family a new run joins: the one whose task is running on the calling thread
/// (<see cref="Current"/>, a thread-static set around every counted task's delegate), else a new one. A thread-static
/// and not an <see cref="AsyncLocal{T}"/>: the engine's own tasks set it, so nothing flows into the program's
/// continuations. A run started by a split or merge before its first <c>await</c> (the loops of a node, as the
/// package teaches) joins its node's family; one started from a continuation after an <c>await</c> runs on another
/// task and starts a family of its own, which only means its loops see less of the enclosing parallelism.</para>
/// <para>The count is a hint read without a lock: a loop that reads a stale value only runs in parallel when it
/// could have run sequentially or the reverse; it never changes what is computed. Every task of a run changes it twice
/// (queued, ended), on every worker at once, so it is striped: each thread counts on its own stripe (a cache line of
/// its own, <see cref="t_stripe"/>), with an interlocked add because two threads may share a stripe. One shared
/// counter made every task pay for moving that cache line between the cores, twice: a tree whose every node is a
/// task ran 1.6-1.9 times as long. A task is counted up on the stripe of the thread that queues it and down on the
/// stripe of the thread that runs it, so a single stripe may go negative; only the sum (<see cref="ActiveTasks"/>,
/// read only when a nested loop starts) means anything, and it is exact once the adds it sums have happened.</para>
/// </remarks>
internal sealed class RunFamily
{
    [ThreadStatic]
    private static RunFamily? t_current;

    // Nonzero while an inline node (one whose subtree was predicted cheaper than a task) calls the program's split or
    // merge on this thread: a count, since a loop run inline may itself start a nested run whose node runs inline.
    [ThreadStatic]
    private static int t_inlineCalls;

    // Stripes of the count, Stride ints apart (128 bytes: a cache line and the one the hardware prefetches with it),
    // Stripes of them; a power of two.
    private const int Stride = 32;
    private static readonly int s_stripes = (int)Math.Min(16, RoundUpToPowerOfTwo((uint)Math.Max(1, Environment.ProcessorCount)));
    private static int s_nextStripe;

    // This thread's stripe plus one (0: not chosen yet): threads take stripes in turn, so up to Stripes threads (a
    // scheduler's workers) count without sharing a cache line.
    [ThreadStatic]
    private static int t_stripe;

    // Tasks of the family queued or running, summed over the stripes (see the remarks).
    private readonly int[] _active = new int[s_stripes * Stride];

    /// <summary>The family whose task is running on this thread, if any.</summary>
    public static RunFamily? Current => t_current;

    /// <summary>Whether the code running on this thread was called by a node of an inline subtree.</summary>
    public static bool CallerRunsInline => t_inlineCalls > 0;

    /// <summary>The family's tasks queued or running now (a hint, see the remarks).</summary>
    public int ActiveTasks
    {
        get
        {
            int sum = 0;
            for (int i = 0; i < _active.Length; i += Stride)
            {
                sum += Volatile.Read(ref _active[i]);
            }

            return sum;
        }
    }

    /// <summary>Counts a task about to be queued; if queueing throws, call <see cref="TaskEnded"/>.</summary>
    public void TaskQueued() => Interlocked.Increment(ref _active[StripeOffset()]);

    /// <summary>Counts a task of the family that ended (or was refused).</summary>
    public void TaskEnded() => Interlocked.Decrement(ref _active[StripeOffset()]);

    // The index of this thread's stripe in _active.
    private static int StripeOffset()
    {
        int stripe = t_stripe;
        if (stripe == 0)
        {
            stripe = t_stripe = ((Interlocked.Increment(ref s_nextStripe) - 1) & (s_stripes - 1)) + 1;
        }

        return (stripe - 1) * Stride;
    }

    private static uint RoundUpToPowerOfTwo(uint value)
    {
        uint power = 1;
        while (power < value)
        {
            power <<= 1;
        }

        return power;
    }

    /// <summary>
    /// Makes this family current on the thread while one of its tasks runs (and clears the inline mark, which belongs
    /// to whatever this thread was doing before: a task run inside a blocking wait); <see cref="TaskScope.Dispose"/>
    /// restores both and counts the task down.
    /// </summary>
    public TaskScope EnterTask()
    {
        var scope = new TaskScope(this, t_current, t_inlineCalls);
        t_current = this;
        t_inlineCalls = 0;
        return scope;
    }

    /// <summary>One task of the family running on this thread (see <see cref="EnterTask"/>).</summary>
    internal readonly struct TaskScope(RunFamily family, RunFamily? previous, int previousInlineCalls) : IDisposable
    {
        /// <summary>Restores the thread's previous family and inline mark, and counts the task down.</summary>
        public void Dispose()
        {
            t_current = previous;
            t_inlineCalls = previousInlineCalls;
            family.TaskEnded();
        }
    }

    /// <summary>Marks the start of an inline node's call of the program on this thread (pair with <see cref="EndInlineCall"/>).</summary>
    public static void BeginInlineCall() => t_inlineCalls++;

    /// <summary>Marks the end of the call started by <see cref="BeginInlineCall"/>.</summary>
    public static void EndInlineCall() => t_inlineCalls--;
}
