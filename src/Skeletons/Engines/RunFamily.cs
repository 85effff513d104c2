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
/// could have run sequentially or the reverse; it never changes what is computed. Every counted task changes it
/// twice (queued, ended), on every worker at once, and one shared counter made each task pay for moving its cache
/// line between the cores twice (a tree whose every node is a task ran 1.6-1.9 times as long as without the count).
/// So the count is striped: a thread adds on the stripe of the CPU it runs on (<c>Thread.GetCurrentProcessorId</c>;
/// on older targets a stripe per thread, taken in turn), each stripe a cache line of its own, with an interlocked add
/// because two threads may share a stripe. A task is counted up on one stripe and down on another, so a single stripe
/// may go negative; only the sum (<see cref="ActiveTasks"/>, read only when a nested loop starts) means anything.
/// And a synchronous program's run, whose splits and merges cannot await a loop, counts nothing unless it is nested
/// in a family (see <c>RunContext.Family</c>).</para>
/// </remarks>
internal sealed class RunFamily
{
    [ThreadStatic]
    private static RunFamily? t_current;

    // Nonzero while an inline node (one whose subtree was predicted cheaper than a task) calls the program's split or
    // merge on this thread: a count, since a loop run inline may itself start a nested run whose node runs inline.
    [ThreadStatic]
    private static int t_inlineCalls;

    // Stripes of the count, Stride ints apart (128 bytes: a cache line and the one the hardware prefetches with it);
    // a power of two, at most 16 (past that, CPUs share stripes: fewer collisions than one line, and about 2 KB a family).
    private const int Stride = 32;
    private static readonly int s_stripes = (int)Math.Min(16, RoundUpToPowerOfTwo((uint)Math.Max(1, Environment.ProcessorCount)));

#if !NETCOREAPP
    private static int s_nextStripe;

    // This thread's stripe plus one (0: not chosen yet), where the CPU's number is not available.
    [ThreadStatic]
    private static int t_stripe;
#endif

    // Tasks of the family queued or running, summed over the stripes (see the remarks). Stripe k is _active[(k + 1) *
    // Stride]: the first Stride ints are left unused, so that no stripe shares a line with the array's length, which
    // every add's bounds check reads.
    private readonly int[] _active = new int[(s_stripes + 1) * Stride];

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
            for (int i = Stride; i < _active.Length; i += Stride)
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

    // The index in _active of the stripe this thread adds on now.
    private static int StripeOffset()
    {
#if NETCOREAPP
        // Cached by the runtime and refreshed now and then: a few nanoseconds, and threads running at the same moment
        // on different CPUs (a scheduler's workers) add on different lines.
        return ((Thread.GetCurrentProcessorId() & (s_stripes - 1)) + 1) * Stride;
#else
        int stripe = t_stripe;
        if (stripe == 0)
        {
            stripe = t_stripe = ((Interlocked.Increment(ref s_nextStripe) - 1) & (s_stripes - 1)) + 1;
        }

        return stripe * Stride; // stripe is the thread's stripe plus one: its offset past the unused first line
#endif
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
    /// Makes <paramref name="family"/> current on the thread while one of its tasks runs (and clears the inline mark,
    /// which belongs to whatever this thread was doing before: a task run inside a blocking wait);
    /// <see cref="TaskScope.Dispose"/> restores both and counts the task down. Does nothing for a run without a family.
    /// </summary>
    public static TaskScope EnterTask(RunFamily? family)
    {
        if (family is null)
        {
            return default;
        }

        var scope = new TaskScope(family, t_current, t_inlineCalls);
        t_current = family;
        t_inlineCalls = 0;
        return scope;
    }

    /// <summary>One task of the family running on this thread (see <see cref="EnterTask"/>).</summary>
    internal readonly struct TaskScope(RunFamily? family, RunFamily? previous, int previousInlineCalls) : IDisposable
    {
        /// <summary>Restores the thread's previous family and inline mark, and counts the task down.</summary>
        public void Dispose()
        {
            if (family is null)
            {
                return; // the default scope of a run without a family
            }

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
