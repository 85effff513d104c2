namespace DivCon.Schedulers.Tests;

/// <summary>The TPL features a task scheduler must support, on both schedulers.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class SchedulerConformanceTests
{
    public static TheoryData<SchedulerKind> Kinds => TestSchedulers.Kinds;

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void StartNew_runs_on_a_worker_with_the_scheduler_current(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        var seen = scheduler.Start(() => (TaskScheduler.Current, TestSchedulers.IsWorkerThread, Thread.CurrentThread.IsBackground));

        seen.AssertCompletes();
        Assert.Same(scheduler, seen.Result.Current);
        Assert.True(seen.Result.IsWorkerThread);
        Assert.True(seen.Result.IsBackground);
        Assert.Equal(scheduler.WorkerCount, scheduler.MaximumConcurrencyLevel);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void LongRunning_tasks_get_no_dedicated_thread(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        var onWorker = Task.Factory.StartNew(
            () => TestSchedulers.IsWorkerThread, CancellationToken.None, TaskCreationOptions.LongRunning, scheduler);

        onWorker.AssertCompletes();
        Assert.True(onWorker.Result);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void ContinueWith_runs_on_the_scheduler(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        var continuation = scheduler.Start(() => 20)
            .ContinueWith(t => (t.Result + 22, TaskScheduler.Current), CancellationToken.None, TaskContinuationOptions.None, scheduler);

        continuation.AssertCompletes();
        Assert.Equal(42, continuation.Result.Item1);
        Assert.Same(scheduler, continuation.Result.Current);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void WhenAll_completes_after_every_task(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        var tasks = Enumerable.Range(0, 500).Select(i => scheduler.Start(() => i * 2)).ToArray();
        var all = Task.WhenAll(tasks);

        all.AssertCompletes();
        Assert.Equal(Enumerable.Range(0, 500).Sum(i => i * 2), all.Result.Sum());
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Parallel_For_runs_every_iteration_on_workers_only(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        var ran = new int[10_000];
        int foreignIterations = 0;
        var options = new ParallelOptions { TaskScheduler = scheduler };

        var loop = Task.Run(() => Parallel.For(0, ran.Length, options, i =>
        {
            Interlocked.Increment(ref ran[i]);
            if (!TestSchedulers.IsWorkerThread)
            {
                Interlocked.Increment(ref foreignIterations);
            }
        }));

        loop.AssertCompletes();
        Assert.Equal(ran.Length, ran.Count(r => r == 1));
        Assert.Equal(0, foreignIterations);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Parallel_Invoke_runs_every_action(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        int count = 0;
        var options = new ParallelOptions { TaskScheduler = scheduler };
        Action[] actions = [.. Enumerable.Range(0, 16).Select(_ => (Action)(() => Interlocked.Increment(ref count)))];

        Task.Run(() => Parallel.Invoke(options, actions)).AssertCompletes();
        Assert.Equal(16, count);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Parent_completes_after_attached_children(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        int children = 0;
        var parent = scheduler.Start(() =>
        {
            for (int i = 0; i < 50; i++)
            {
                Task.Factory.StartNew(
                    () =>
                    {
                        Thread.SpinWait(1000);
                        Interlocked.Increment(ref children);
                    },
                    CancellationToken.None,
                    TaskCreationOptions.AttachedToParent,
                    TaskScheduler.Current);
            }
        });

        parent.AssertCompletes();
        Assert.Equal(50, Volatile.Read(ref children));
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Wait_on_a_worker_runs_the_unstarted_task_inline(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind, workers: 1);
        var threads = scheduler.Start(() =>
        {
            int outer = Environment.CurrentManagedThreadId;
            var inner = scheduler.Start(() => Environment.CurrentManagedThreadId);
            inner.Wait();
            return (outer, inner: inner.Result);
        });

        threads.AssertCompletes();
        Assert.Equal(threads.Result.outer, threads.Result.inner);
        Assert.Equal(1, scheduler.Statistics.TasksInlined);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Foreign_threads_never_run_tasks_inline(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        bool ranOnWorker = false;
        var task = new Task(() => ranOnWorker = TestSchedulers.IsWorkerThread);

        task.RunSynchronously(scheduler);

        Assert.True(task.IsCompletedSuccessfully);
        Assert.True(ranOnWorker);
        Assert.Equal(0, scheduler.Statistics.TasksInlined);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public async Task Exceptions_surface_and_the_scheduler_keeps_working(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        var failing = scheduler.Start(() => throw new InvalidOperationException("boom"));

        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => failing.WaitAsync(TestSchedulers.Timeout));
        Assert.Equal("boom", thrown.Message);
        var after = scheduler.Start(() => 1);
        after.AssertCompletes();
        Assert.Equal(1, after.Result);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Await_continuations_resume_on_the_scheduler(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind);
        var completedElsewhere = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var resumed = Task.Factory.StartNew(
            async () =>
            {
                await Task.Yield();
                var afterYield = (TaskScheduler.Current, TestSchedulers.IsWorkerThread);
                await completedElsewhere.Task;
                var afterForeignCompletion = (TaskScheduler.Current, TestSchedulers.IsWorkerThread);
                return (afterYield, afterForeignCompletion);
            },
            CancellationToken.None,
            TaskCreationOptions.None,
            scheduler).Unwrap();

        var completer = new Thread(() => completedElsewhere.SetResult());
        completer.Start();

        resumed.AssertCompletes();
        Assert.True(completer.Join(TestSchedulers.Timeout));
        Assert.Same(scheduler, resumed.Result.afterYield.Current);
        Assert.True(resumed.Result.afterYield.IsWorkerThread);
        Assert.Same(scheduler, resumed.Result.afterForeignCompletion.Current);
        Assert.True(resumed.Result.afterForeignCompletion.IsWorkerThread);
    }

    [SkippableTheory]
    [MemberData(nameof(Kinds))]
    public void Scheduled_tasks_snapshot_lists_queued_tasks(SchedulerKind kind)
    {
        using var scheduler = TestSchedulers.Create(kind, workers: 1);
        using var gate = new ManualResetEventSlim();
        var blocker = scheduler.Start(() => gate.Wait(TestSchedulers.Timeout));
        var queued = Enumerable.Range(0, 3).Select(_ => scheduler.Start(() => { })).ToArray();

        try
        {
            var snapshot = scheduler.Queues.Snapshot().ToArray();
            Assert.All(queued, t => Assert.Contains(t, snapshot));
            Assert.True(scheduler.AvailableTasks >= 3);
        }
        finally
        {
            gate.Set();
        }

        Task.WhenAll([blocker, .. queued]).AssertCompletes();
    }

    [Fact]
    public void Worker_count_below_one_is_rejected()
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => new WorkStealingTaskScheduler(0));
        Assert.Equal("workerCount", error.ParamName);
    }

    [Fact]
    public void Default_worker_count_is_the_processor_count()
    {
        using var scheduler = new WorkStealingTaskScheduler();
        Assert.Equal(Environment.ProcessorCount, scheduler.WorkerCount);
        Assert.False(scheduler.IsPinned);
    }
}
