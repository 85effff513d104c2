using System.Collections.Concurrent;

namespace DivCon.Programs.Tests.Infrastructure;

/// <summary>
/// A minimal fixed-size scheduler for tests: N dedicated threads take tasks from one FIFO queue. Like the real
/// work-stealing schedulers it runs a waited-for task inline, but only on its own threads, so the fork-join engine
/// cannot starve it.
/// </summary>
public sealed class DedicatedThreadTaskScheduler : TaskScheduler, IDisposable
{
    private readonly BlockingCollection<Task> _queue = [];
    private readonly Thread[] _threads;
    private long _executed;

    [ThreadStatic]
    private static DedicatedThreadTaskScheduler? t_owner;

    public DedicatedThreadTaskScheduler(int threadCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(threadCount, 1);
        _threads = new Thread[threadCount];
        for (int i = 0; i < threadCount; i++)
        {
            _threads[i] = new Thread(WorkerLoop) { IsBackground = true, Name = $"programs-test-worker-{i}" };
            _threads[i].Start();
        }
    }

    public override int MaximumConcurrencyLevel => _threads.Length;

    /// <summary>Tasks this scheduler ran (from its queue or inline).</summary>
    public long ExecutedCount => Interlocked.Read(ref _executed);

    public void Dispose()
    {
        _queue.CompleteAdding();
        foreach (var thread in _threads)
        {
            thread.Join(TestTimeouts.Generous);
        }

        _queue.Dispose();
    }

    protected override void QueueTask(Task task) => _queue.Add(task);

    // Inline only on our own workers: a foreign thread must not run our tasks.
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) =>
        ReferenceEquals(t_owner, this) && Run(task);

    protected override IEnumerable<Task> GetScheduledTasks() => _queue.ToArray();

    private void WorkerLoop()
    {
        t_owner = this;
        foreach (var task in _queue.GetConsumingEnumerable())
        {
            // A task that was inlined earlier is still in the queue; TryExecuteTask skips it.
            Run(task);
        }
    }

    private bool Run(Task task)
    {
        bool ran = TryExecuteTask(task);
        if (ran)
        {
            // Interlocked: both workers count concurrently.
            Interlocked.Increment(ref _executed);
        }

        return ran;
    }
}
