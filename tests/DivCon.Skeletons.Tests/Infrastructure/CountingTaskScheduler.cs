using System.Collections.Concurrent;

namespace DivCon.Skeletons.Tests.Infrastructure;

/// <summary>
/// A fixed-size test scheduler: N dedicated threads take tasks from one FIFO queue. It counts what it executes,
/// every request to run a task inline (which only a thread waiting for a task makes), and which of its workers are
/// inside a task right now, so tests can prove that nothing waited, or that something is stuck.
/// </summary>
public sealed class CountingTaskScheduler : TaskScheduler, IDisposable
{
    private readonly BlockingCollection<Task> _queue = [];
    private readonly Thread[] _workers;
    private readonly bool[] _busy;
    private readonly ThreadLocal<int> _workerIndex = new(() => -1);
    private long _executed;
    private long _inlineRequests;
    private long _inlined;

    public CountingTaskScheduler(int threadCount, bool allowInlining, string name = "test")
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(threadCount, 1);
        AllowInlining = allowInlining;
        _busy = new bool[threadCount];
        _workers = new Thread[threadCount];
        for (int i = 0; i < threadCount; i++)
        {
            int index = i;
            _workers[i] = new Thread(() => WorkerLoop(index)) { IsBackground = true, Name = $"{name}-worker-{i}" };
            _workers[i].Start();
        }
    }

    /// <summary>Whether a worker waiting for a task may run it inline (only workers of this scheduler ever do).</summary>
    public bool AllowInlining { get; }

    public override int MaximumConcurrencyLevel => _workers.Length;

    /// <summary>Tasks run to completion by this scheduler (from the queue or inline).</summary>
    public long ExecutedCount => Interlocked.Read(ref _executed);

    /// <summary>Calls of TryExecuteTaskInline: a thread asked to run a task it is about to wait for.</summary>
    public long InlineRequestCount => Interlocked.Read(ref _inlineRequests);

    /// <summary>Tasks actually run inline.</summary>
    public long InlinedCount => Interlocked.Read(ref _inlined);

    /// <summary>Tasks queued and not yet taken by a worker.</summary>
    public int QueuedCount => _queue.Count;

    /// <summary>Whether the calling thread is one of this scheduler's workers.</summary>
    public bool IsCurrentThreadAWorker => _workerIndex.Value >= 0;

    /// <summary>How many workers are inside a task now.</summary>
    public int BusyWorkerCount
    {
        get
        {
            int busy = 0;
            for (int i = 0; i < _busy.Length; i++)
            {
                busy += Volatile.Read(ref _busy[i]) ? 1 : 0;
            }

            return busy;
        }
    }

    /// <summary>
    /// True when every worker is inside a task and blocked (WaitSleepJoin) while tasks wait in the queue: the
    /// scheduler is starved, no worker can ever take the queued tasks unless something outside releases one.
    /// </summary>
    public bool IsStarved()
    {
        if (QueuedCount == 0)
        {
            return false;
        }

        for (int i = 0; i < _workers.Length; i++)
        {
            if (!Volatile.Read(ref _busy[i]) || (_workers[i].ThreadState & ThreadState.WaitSleepJoin) == 0)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>True when nothing is queued and no worker is inside a task.</summary>
    public bool IsIdle => QueuedCount == 0 && BusyWorkerCount == 0;

    public void Dispose()
    {
        _queue.CompleteAdding();
        foreach (var worker in _workers)
        {
            if (worker != Thread.CurrentThread)
            {
                worker.Join(TestTimeouts.Generous);
            }
        }

        _workerIndex.Dispose();
    }

    protected override void QueueTask(Task task) => _queue.Add(task);

    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued)
    {
        Interlocked.Increment(ref _inlineRequests);
        if (!AllowInlining || !IsCurrentThreadAWorker)
        {
            return false;
        }

        // A previously queued task stays in the queue; the worker that dequeues it later finds it already run
        // (TryExecuteTask returns false) and skips it.
        bool ran = TryExecuteTask(task);
        if (ran)
        {
            Interlocked.Increment(ref _inlined);
            Interlocked.Increment(ref _executed);
        }

        return ran;
    }

    protected override IEnumerable<Task> GetScheduledTasks() => _queue.ToArray();

    private void WorkerLoop(int index)
    {
        _workerIndex.Value = index;
        foreach (var task in _queue.GetConsumingEnumerable())
        {
            Volatile.Write(ref _busy[index], true);
            try
            {
                if (TryExecuteTask(task))
                {
                    Interlocked.Increment(ref _executed);
                }
            }
            finally
            {
                Volatile.Write(ref _busy[index], false);
            }
        }
    }
}
