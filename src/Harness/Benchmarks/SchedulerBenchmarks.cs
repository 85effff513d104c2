using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using DivCon.Schedulers;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// Task-scheduling overhead: our work-stealing and affinity schedulers against the .NET thread pool
/// (<see cref="TaskScheduler.Default"/>, the baseline) and a naive scheduler with one locked global queue.
/// </summary>
/// <remarks>
/// <para><b>Tree</b> (<see cref="TreeWorkloads.TaskTree"/>): a fine-grained divide-and-conquer shape. Each node task starts two child tasks until depth
/// <see cref="TreeDepth"/>, so one run is 2^20 - 1 tiny tasks, nearly all queued from worker threads. Completion is
/// an atomic countdown; the task that brings it to zero completes a <see cref="TaskCompletionSource"/>. No task ever
/// blocks.</para>
/// <para><b>Burst</b>: 10^6 independent tiny tasks queued from the benchmark thread (outside the scheduler), so
/// everything goes through the global queue.</para>
/// <para><b>Fairness to the .NET pool</b>: one invocation runs <see cref="LaunchesPerInvoke"/> trees or bursts one
/// after another (BenchmarkDotNet divides by it), so a single slow wake-up or thread injection does not decide an
/// iteration, and <see cref="Setup"/> runs every case a few times first, so that the pool has grown its threads and
/// every method is past tiered compilation before BenchmarkDotNet's own warm-up. (Single launches per iteration gave
/// the pool 56 ms in one run and 115 ms in another on the same machine.) The pool's minimum thread count is left at
/// its default, as a user would have it. The package feed serves no third-party work-stealing scheduler to compare
/// with, so the peers are the pool and the naive locked-queue scheduler below.</para>
/// </remarks>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
#pragma warning disable CA1001 // BenchmarkDotNet owns the lifetime: the schedulers are disposed in [GlobalCleanup].
public class SchedulerBenchmarks
#pragma warning restore CA1001
{
    /// <summary>Depth of the task tree: 2^(depth+1) - 1 = 2^20 - 1 tasks.</summary>
    public const int TreeDepth = 19;

    /// <summary>Tasks in one burst.</summary>
    public const int BurstSize = 1_000_000;

    /// <summary>Trees (or bursts) run one after another in one invocation.</summary>
    public const int LaunchesPerInvoke = 3;

    private const int SetupRuns = 3;

    private static readonly TimeSpan RunTimeout = TimeSpan.FromMinutes(2);

    private readonly TreeWorkloads.TaskTree _tree = new(TreeDepth);
    private readonly Action<object?> _leaf;
    private WorkStealingTaskScheduler? _workStealing;
    private AffinityTaskScheduler? _affinity;
    private LockedQueueTaskScheduler? _lockedQueue;
    private int _remaining;
    private TaskCompletionSource? _done;

    /// <summary>Creates the benchmark (delegates are cached so that runs allocate only tasks).</summary>
    public SchedulerBenchmarks()
    {
        _leaf = Leaf;
    }

    /// <summary>Starts every scheduler with one worker per logical CPU.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _workStealing = new WorkStealingTaskScheduler(Environment.ProcessorCount);
        _affinity = new AffinityTaskScheduler(Environment.ProcessorCount);
        _lockedQueue = new LockedQueueTaskScheduler(Environment.ProcessorCount);
        for (int run = 0; run < SetupRuns; run++)
        {
            foreach (TaskScheduler scheduler in new TaskScheduler[] { TaskScheduler.Default, _workStealing, _affinity, _lockedQueue })
            {
                RunTree(scheduler);
                RunBurst(scheduler);
            }
        }
    }

    /// <summary>Stops the schedulers.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _workStealing?.Dispose();
        _affinity?.Dispose();
        _lockedQueue?.Dispose();
    }

    /// <summary>Task tree on the .NET thread pool.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = LaunchesPerInvoke, Description = "Tree: TaskScheduler.Default")]
    [BenchmarkCategory("Tree")]
    public void TreeDefault() => RunTree(TaskScheduler.Default);

    /// <summary>Task tree on <see cref="WorkStealingTaskScheduler"/>.</summary>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke, Description = "Tree: WorkStealingTaskScheduler")]
    [BenchmarkCategory("Tree")]
    public void TreeWorkStealing() => RunTree(_workStealing!);

    /// <summary>Task tree on <see cref="AffinityTaskScheduler"/>.</summary>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke, Description = "Tree: AffinityTaskScheduler")]
    [BenchmarkCategory("Tree")]
    public void TreeAffinity() => RunTree(_affinity!);

    /// <summary>Task tree on the naive locked-queue scheduler.</summary>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke, Description = "Tree: locked global queue")]
    [BenchmarkCategory("Tree")]
    public void TreeLockedQueue() => RunTree(_lockedQueue!);

    /// <summary>Burst on the .NET thread pool.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = LaunchesPerInvoke, Description = "Burst: TaskScheduler.Default")]
    [BenchmarkCategory("Burst")]
    public void BurstDefault() => RunBurst(TaskScheduler.Default);

    /// <summary>Burst on <see cref="WorkStealingTaskScheduler"/>.</summary>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke, Description = "Burst: WorkStealingTaskScheduler")]
    [BenchmarkCategory("Burst")]
    public void BurstWorkStealing() => RunBurst(_workStealing!);

    /// <summary>Burst on <see cref="AffinityTaskScheduler"/>.</summary>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke, Description = "Burst: AffinityTaskScheduler")]
    [BenchmarkCategory("Burst")]
    public void BurstAffinity() => RunBurst(_affinity!);

    /// <summary>Burst on the naive locked-queue scheduler.</summary>
    [Benchmark(OperationsPerInvoke = LaunchesPerInvoke, Description = "Burst: locked global queue")]
    [BenchmarkCategory("Burst")]
    public void BurstLockedQueue() => RunBurst(_lockedQueue!);

    private void RunTree(TaskScheduler scheduler)
    {
        for (int i = 0; i < LaunchesPerInvoke; i++)
        {
            _tree.Run(scheduler, RunTimeout);
        }
    }

    private void RunBurst(TaskScheduler scheduler)
    {
        for (int i = 0; i < LaunchesPerInvoke; i++)
        {
            RunOneBurst(scheduler);
        }
    }

    private void RunOneBurst(TaskScheduler scheduler)
    {
        _remaining = BurstSize;
        _done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        for (int i = 0; i < BurstSize; i++)
        {
            Task.Factory.StartNew(_leaf, null, CancellationToken.None, TaskCreationOptions.None, scheduler);
        }

        Wait(_done.Task);
    }

    private void Leaf(object? state) => CountDown();

    private void CountDown()
    {
        // Interlocked: many workers count down; the one reaching zero completes the run.
        if (Interlocked.Decrement(ref _remaining) == 0)
        {
            _done!.SetResult();
        }
    }

    private static void Wait(Task task)
    {
        if (!task.Wait(RunTimeout))
        {
            throw new TimeoutException($"A benchmark run did not finish within {RunTimeout}.");
        }
    }

    /// <summary>
    /// The naive baseline: N threads around one <see cref="Queue{T}"/> guarded by one lock (the Skandium-style
    /// "ready queue"). No inlining, no work stealing.
    /// </summary>
    private sealed class LockedQueueTaskScheduler : TaskScheduler, IDisposable
    {
        private readonly Queue<Task> _queue = new();
        private readonly object _lock = new();
        private readonly Thread[] _threads;
        private int _waiting;
        private bool _stopping;

        public LockedQueueTaskScheduler(int threadCount)
        {
            _threads = new Thread[threadCount];
            for (int i = 0; i < threadCount; i++)
            {
                _threads[i] = new Thread(Run) { IsBackground = true, Name = $"Locked-queue worker {i}" };
                _threads[i].Start();
            }
        }

        public override int MaximumConcurrencyLevel => _threads.Length;

        public void Dispose()
        {
            lock (_lock)
            {
                _stopping = true;
                Monitor.PulseAll(_lock);
            }

            foreach (Thread thread in _threads)
            {
                thread.Join(RunTimeout);
            }
        }

        protected override void QueueTask(Task task)
        {
            lock (_lock)
            {
                _queue.Enqueue(task);
                if (_waiting > 0)
                {
                    Monitor.Pulse(_lock);
                }
            }
        }

        protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

        protected override IEnumerable<Task> GetScheduledTasks()
        {
            lock (_lock)
            {
                return [.. _queue];
            }
        }

        private void Run()
        {
            while (true)
            {
                Task task;
                lock (_lock)
                {
                    while (_queue.Count == 0)
                    {
                        if (_stopping)
                        {
                            return;
                        }

                        _waiting++;
                        Monitor.Wait(_lock);
                        _waiting--;
                    }

                    task = _queue.Dequeue();
                }

                TryExecuteTask(task);
            }
        }
    }
}
