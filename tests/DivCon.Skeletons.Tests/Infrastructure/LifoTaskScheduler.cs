namespace DivCon.Skeletons.Tests.Infrastructure;

/// <summary>
/// A one-worker scheduler that runs the task queued last first (the order of a work-stealing worker's own deque), so
/// a run descends depth first and its decisions do not depend on timing: the tests that compare node counts use it.
/// </summary>
public sealed class LifoTaskScheduler : TaskScheduler, IDisposable
{
    private readonly Stack<Task> _tasks = new();
    private readonly Thread _worker;
    private bool _disposed;

    public LifoTaskScheduler()
    {
        _worker = new Thread(WorkerLoop) { IsBackground = true, Name = "lifo-worker" };
        _worker.Start();
    }

    public override int MaximumConcurrencyLevel => 1;

    /// <summary>Whether the calling thread is the worker.</summary>
    public bool IsCurrentThreadTheWorker => Thread.CurrentThread == _worker;

    public void Dispose()
    {
        lock (_tasks)
        {
            _disposed = true;
            Monitor.PulseAll(_tasks);
        }

        if (Thread.CurrentThread != _worker)
        {
            _worker.Join(TestTimeouts.Generous);
        }
    }

    protected override void QueueTask(Task task)
    {
        lock (_tasks)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _tasks.Push(task);
            Monitor.Pulse(_tasks);
        }
    }

    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

    protected override IEnumerable<Task> GetScheduledTasks()
    {
        lock (_tasks)
        {
            return _tasks.ToArray();
        }
    }

    private void WorkerLoop()
    {
        while (true)
        {
            Task task;
            lock (_tasks)
            {
                while (_tasks.Count == 0 && !_disposed)
                {
                    Monitor.Wait(_tasks);
                }

                if (_tasks.Count == 0)
                {
                    return;
                }

                task = _tasks.Pop();
            }

            TryExecuteTask(task);
        }
    }
}
