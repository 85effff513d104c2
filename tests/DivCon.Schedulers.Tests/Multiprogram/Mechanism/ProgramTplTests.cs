using System.Collections.Concurrent;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>
/// Ordinary TPL code run wholly inside a program: every iteration and every resumption after an await is recorded
/// (its <see cref="TaskScheduler.Current"/>, whether its thread is a worker serving the program, and the thread), and
/// the tests fail on any piece of work that ran elsewhere. A second program keeps the pool shared while they run.
/// </summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class ProgramTplTests
{
    [Fact]
    public void ForAsync_runs_every_iteration_on_the_programs_workers_the_callers_share_included()
    {
        using var scheduler = MechanismSchedulers.Unpinned(3);
        using var program = scheduler.Register("loop");
        using var other = scheduler.Register("other");
        var places = new Places(program);
        var counts = new int[2_000];

        ParallelLoopResult result = program.ForAsync(0, counts.Length, i =>
        {
            places.Record($"iteration {i}");
            Interlocked.Increment(ref counts[i]);
            Thread.SpinWait(50);
        }).WaitResult();

        Assert.True(result.IsCompleted);
        Assert.All(counts, c => Assert.Equal(1, c));
        places.AssertAllInside(expected: counts.Length);
        Assert.True(places.Threads >= 1);
    }

    [Fact]
    public void ForEachAsync_enumerates_and_runs_every_element_on_the_programs_workers()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var program = scheduler.Register("foreach");
        var places = new Places(program);
        var seen = new ConcurrentBag<int>();

        IEnumerable<int> Source()
        {
            for (int i = 0; i < 500; i++)
            {
                places.Record($"enumeration {i}");
                yield return i;
            }
        }

        program.ForEachAsync(Source(), i =>
        {
            places.Record($"element {i}");
            seen.Add(i);
        }).WaitResult();

        Assert.Equal(Enumerable.Range(0, 500), seen.OrderBy(i => i));
        places.AssertAllInside(expected: 1_000);
    }

    [Fact]
    public void ForAsync_with_the_loop_state_stops_and_reports_it()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var program = scheduler.Register("break");
        var places = new Places(program);

        ParallelLoopResult result = program.ForAsync(0, 100_000, (i, state) =>
        {
            places.Record($"iteration {i}");
            if (i == 10)
            {
                state.Break();
            }
        }).WaitResult();

        Assert.False(result.IsCompleted);
        Assert.Equal(10, result.LowestBreakIteration);
        places.AssertAllInside(expected: null);
    }

    [Fact]
    public void A_loop_started_with_the_programs_options_from_a_foreign_thread_leaves_that_thread_idle()
    {
        // The documented reason for ForAsync: Parallel.For queues its work on the program but the caller, which is
        // not one of the program's workers, may not run it inline (the scheduler refuses), so it only blocks.
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var program = scheduler.Register("plain");
        var places = new Places(program);
        int caller = Environment.CurrentManagedThreadId;
        int onCaller = 0;

        Parallel.For(0, 1_000, program.CreateParallelOptions(), i =>
        {
            places.Record($"iteration {i}");
            if (Environment.CurrentManagedThreadId == caller)
            {
                Interlocked.Increment(ref onCaller);
            }
        });

        Assert.Equal(0, onCaller);
        places.AssertAllInside(expected: 1_000);
    }

    [Fact]
    public void An_async_workflow_resumes_on_the_programs_workers_after_every_await()
    {
        using var scheduler = MechanismSchedulers.Unpinned(3);
        using var program = scheduler.Register("workflow");
        using var other = scheduler.Register("other");
        var places = new Places(program);
        using var gate = new SemaphoreSlim(0);

        async Task<int> StepAsync(int depth)
        {
            places.Record($"step {depth} start");
            await Task.Yield();
            places.Record($"step {depth} after Yield");
            await Task.Delay(1); // not a wait for something: a timer continuation is one of the resumptions under test
            places.Record($"step {depth} after Delay");
            int child = await program.Factory.StartNew(() =>
            {
                places.Record($"step {depth} child task");
                return depth;
            });
            places.Record($"step {depth} after child");
            if (depth > 0)
            {
                int[] below = await Task.WhenAll(StepAsync(depth - 1), StepAsync(depth - 1));
                places.Record($"step {depth} after WhenAll");
                child += below.Sum();
            }

            return child;
        }

        Task<int> run = program.RunAsync(async () =>
        {
            places.Record("workflow start");
            _ = Task.Factory.StartNew(() => gate.Release(), CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Default);
            await gate.WaitAsync(); // Released by a .NET pool thread: the continuation still comes back here.
            places.Record("after a wait released elsewhere");
            int sum = await StepAsync(3);
            await program.ForAsync(0, 100, i => places.Record($"nested loop {i}"));
            places.Record("after the nested loop");
            return sum;
        });

        Assert.Equal(11, run.WaitResult()); // Each step's depth summed over the tree: 3 + 2 * (2 + 2 * (1 + 2 * 0)).
        places.AssertAllInside(expected: null);
        Assert.True(places.Count > 100);
    }

    [Fact]
    public void Run_returns_the_result_and_a_users_exception_faults_the_task_leaving_the_program_healthy()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var program = scheduler.Register("run");

        Assert.Equal(42, program.Run(() => program.IsCurrentThreadServing ? 42 : -1).WaitResult());
        var failure = new InvalidOperationException("user code failed");
        Task faulted = program.Run(() => throw failure);
        Assert.Same(failure, Assert.Throws<AggregateException>(() => faulted.Wait(TestSchedulers.Timeout)).InnerException);
        Task<int> asyncFaulted = program.RunAsync<int>(async () =>
        {
            await Task.Yield();
            throw failure;
        });
        Assert.Same(failure, Assert.Throws<AggregateException>(() => asyncFaulted.Wait(TestSchedulers.Timeout)).InnerException);

        bool ran = false;
        program.Run(() => ran = program.IsCurrentThreadServing).AssertCompletes();
        Assert.True(ran);
        program.RunAsync(async () => await Task.Yield()).AssertCompletes();
    }

    [Fact]
    public void Cancellation_and_bad_arguments_are_reported_and_a_disposed_program_refuses()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        var program = scheduler.Register("edges");
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();

        bool ran = false;
        AssertCancelled(program.Run(() => ran = true, cancelled.Token));
        AssertCancelled(program.RunAsync(() => Task.FromResult(ran = true), cancelled.Token));
        AssertCancelled(program.ForAsync(0, 10, _ => ran = true, cancelled.Token));
        Assert.False(ran);

        // A loop cancelled while it runs ends cancelled, not faulted.
        using var midway = new CancellationTokenSource();
        Task<ParallelLoopResult> stopped = program.ForAsync(0, 1_000_000, i =>
        {
            if (i == 1_000)
            {
                midway.Cancel();
            }
        }, midway.Token);
        AssertCancelled(stopped);

        Assert.Equal("action", Assert.Throws<ArgumentNullException>(() => { _ = program.Run(null!); }).ParamName);
        Assert.Equal("function", Assert.Throws<ArgumentNullException>(() => { _ = program.Run<int>(null!); }).ParamName);
        Assert.Equal("function", Assert.Throws<ArgumentNullException>(() => { _ = program.RunAsync(null!); }).ParamName);
        Assert.Equal("body", Assert.Throws<ArgumentNullException>(() => { _ = program.ForAsync(0, 1, (Action<int>)null!); }).ParamName);
        Assert.Equal("source", Assert.Throws<ArgumentNullException>(() => { _ = program.ForEachAsync<int>(null!, _ => { }); }).ParamName);

        Assert.Same(program, program.Factory.Scheduler);
        Assert.Same(program, program.CreateParallelOptions().TaskScheduler);
        Assert.True(program.Shutdown(TestSchedulers.Timeout));
        var refused = Assert.Throws<TaskSchedulerException>(() => { _ = program.Run(() => { }); });
        Assert.IsType<ObjectDisposedException>(refused.InnerException);
    }

    [Fact]
    public void Only_a_worker_serving_the_program_counts_as_serving_it()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");

        Assert.False(a.IsCurrentThreadServing);
        Assert.Equal((true, false), a.Run(() => (a.IsCurrentThreadServing, b.IsCurrentThreadServing)).WaitResult());
        Assert.False(a.Factory.StartNew(() => Task.Run(() => a.IsCurrentThreadServing)).Unwrap().WaitResult());
    }

    [Fact]
    public void What_cannot_be_captured_leaves_the_program_ConfigureAwait_false_and_Task_Run()
    {
        // The documented limits, kept true by a test: these two always leave the program's workers.
        using var scheduler = MechanismSchedulers.Unpinned(2);
        using var program = scheduler.Register("leaks");

        (bool afterConfigureAwaitFalse, bool insideTaskRun) = program.RunAsync(async () =>
        {
            bool inRun = await Task.Run(() => program.IsCurrentThreadServing);
            await Task.Delay(1).ConfigureAwait(false); // resumes on a timer thread: the documented leak under test
            return (program.IsCurrentThreadServing, inRun);
        }).WaitResult();

        Assert.False(afterConfigureAwaitFalse);
        Assert.False(insideTaskRun);
    }

    private static void AssertCancelled(Task task)
    {
        var thrown = Assert.Throws<AggregateException>(() => task.Wait(TestSchedulers.Timeout));
        Assert.IsAssignableFrom<OperationCanceledException>(thrown.InnerException);
        Assert.True(task.IsCanceled);
    }

    /// <summary>Where each piece of work ran.</summary>
    private sealed class Places(ProgramTaskScheduler program)
    {
        private readonly ConcurrentQueue<(string What, bool OnScheduler, bool Serving, int Thread)> _records = new();

        public int Count => _records.Count;

        public int Threads => _records.Select(r => r.Thread).Distinct().Count();

        public void Record(string what) => _records.Enqueue(
            (what, ReferenceEquals(TaskScheduler.Current, program), program.IsCurrentThreadServing, Environment.CurrentManagedThreadId));

        public void AssertAllInside(int? expected)
        {
            if (expected is { } count)
            {
                Assert.Equal(count, _records.Count);
            }

            Assert.NotEmpty(_records);
            string[] outside = [.. _records.Where(r => !r.OnScheduler || !r.Serving)
                .Select(r => $"{r.What} (scheduler {(r.OnScheduler ? "ok" : "other")}, thread {r.Thread} {(r.Serving ? "serving" : "not a worker of the program")})")];
            Assert.True(outside.Length == 0, $"{outside.Length} pieces of work ran outside the program: {string.Join("; ", outside.Take(5))}");
        }
    }
}

/// <summary>Bounded waits for results.</summary>
internal static class TaskResults
{
    public static T WaitResult<T>(this Task<T> task)
    {
        Assert.True(task.Wait(TestSchedulers.Timeout), "The task did not complete within the test timeout.");
        return task.Result;
    }
}
