using System.Runtime.CompilerServices;
using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// A scheduler that stops accepting tasks (disposed) while an asynchronous split or merge is pending: the run
/// ends, faulted with the scheduler's refusal, or cancelled when its token is; it never hangs. Deterministic: the
/// split or merge suspends on a gate that the test opens only after the program has suspended on it and the
/// scheduler refuses work.
/// </summary>
public sealed class SchedulerRefusalTests
{
    public enum Pending
    {
        Split,
        Merge,
    }

    public static TheoryData<ExecutionEngine, Pending> Cases => new()
    {
        { ExecutionEngine.Continuation, Pending.Split },
        { ExecutionEngine.Continuation, Pending.Merge },
        { ExecutionEngine.ForkJoin, Pending.Split },
        { ExecutionEngine.ForkJoin, Pending.Merge },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task A_refusal_after_an_async_split_or_merge_faults_the_run_with_the_schedulers_exception(ExecutionEngine engine, Pending pending)
    {
        var scheduler = new RefusingTaskScheduler();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var program = GatedProgram(pending, entered, gate, resumeOnCurrentScheduler: false);

        var run = program.RunAsync(1, DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine });
        await entered.Task.WaitAsync(TestTimeouts.Generous);
        if (engine == ExecutionEngine.Continuation)
        {
            // The program is suspended on the closed gate, so its phase cannot have completed; once the task that
            // called it has returned, the engine has seen the phase pending and parked the node. Opening the gate
            // earlier could let the phase complete before the engine looked, and a root merge completed at once
            // finishes the run without queuing anything (no refusal to observe).
            Assert.True(TestTimeouts.SpinUntil(() => scheduler.IsIdle), "The task that started the pending phase never returned.");
        }

        scheduler.StopAccepting();
        gate.SetResult();

        if (engine == ExecutionEngine.ForkJoin && pending == Pending.Merge)
        {
            // The fork-join root waits for its merge on its own thread and queues nothing after it: no refusal.
            Assert.Equal(2, await run.Bounded());
            Assert.Equal(0, scheduler.RefusedCount);
            return;
        }

        var error = await Assert.ThrowsAsync<TaskSchedulerException>(() => run.Bounded());
        Assert.Same(scheduler.Refusal, error.InnerException);
        Assert.True(run.IsFaulted);
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Cancellation_ends_a_run_whose_split_or_merge_can_never_resume_on_its_refusing_scheduler(ExecutionEngine engine, Pending pending)
    {
        var scheduler = new RefusingTaskScheduler();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        // The program awaits without ConfigureAwait(false): its own continuation goes to the run's scheduler, which
        // refuses it, so the program's split or merge never completes. Only cancellation can end the run.
        var program = GatedProgram(pending, entered, gate, resumeOnCurrentScheduler: true);
        using var cancellation = new CancellationTokenSource();

        var run = program.RunAsync(1, DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine }, cancellation.Token);
        await entered.Task.WaitAsync(TestTimeouts.Generous);
        scheduler.StopAccepting();
        gate.SetResult();
        Assert.True(TestTimeouts.SpinUntil(() => scheduler.RefusedCount > 0), "The program's continuation was never offered to the scheduler.");
        Assert.False(run.IsCompleted);

        await cancellation.CancelAsync();

        var canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsCanceled);
        Assert.Equal(cancellation.Token, canceled.CancellationToken);
    }

    [Fact]
    public async Task A_program_task_cancelled_with_the_runs_token_and_then_refused_ends_the_run_cancelled()
    {
        var scheduler = new RefusingTaskScheduler();
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var cancellation = new CancellationTokenSource();
        var program = DivideAndConquer.CreateAsync<int, int>(
            (n, depth) => depth == 0,
            (n, depth, token) => new ValueTask<IReadOnlyList<int>>([n, n]),
            (n, depth) => n,
            async (results, depth, token) =>
            {
                entered.TrySetResult();
                await Task.Delay(Timeout.Infinite, token).ConfigureAwait(false);
                return results[0] + results[1];
            });

        var run = program.RunAsync(1, DivideAndConquerOptions.Default with { Scheduler = scheduler }, cancellation.Token);
        await entered.Task.WaitAsync(TestTimeouts.Generous);
        scheduler.StopAccepting();
        await cancellation.CancelAsync();

        // The program observed the run's token first: the outcome is the cancellation, not the later refusal.
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Bounded());
        Assert.True(run.IsCanceled);
        Assert.True(scheduler.RefusedCount > 0);
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task A_scheduler_that_stops_accepting_in_the_middle_of_a_tree_faults_the_run_with_its_refusal(ExecutionEngine engine)
    {
        // The split of the second node of depth 1 closes the scheduler: that node's children are refused, and so is
        // every later child or merge task. (A small tree: fork-join blocks one pool thread per internal node.)
        var scheduler = new RefusingTaskScheduler();
        var program = DivideAndConquer.Create<IndexRange, long>(
            (range, depth) => range.Length > 1,
            (range, depth) =>
            {
                if (depth == 1 && range.Start == 2)
                {
                    scheduler.StopAccepting();
                }

                return range.Split(2);
            },
            (range, depth) => range.Start,
            (results, depth) => results.Sum(),
            granularity: Granularity.EveryNodeATask); // tasks, not inline nodes, whatever the machine's load

        var run = program.RunAsync(new IndexRange(0, 4), DivideAndConquerOptions.Default with { Scheduler = scheduler, Engine = engine });

        var error = await Assert.ThrowsAsync<TaskSchedulerException>(() => run.Bounded());
        Assert.Same(scheduler.Refusal, error.InnerException);
        Assert.True(scheduler.RefusedCount > 0);
    }

    /// <summary>
    /// A root that splits into two leaves (value 1 each) and merges by adding; the chosen phase awaits
    /// <paramref name="gate"/> and signals <paramref name="entered"/> once it has suspended on it.
    /// </summary>
    private static DivideAndConquer<int, int> GatedProgram(Pending pending, TaskCompletionSource entered, TaskCompletionSource gate, bool resumeOnCurrentScheduler)
    {
        // Every node a task: the default time-based granularity could run a node inline, and then nothing is offered
        // to the refusing scheduler (which these tests are about), depending on the machine's load.
        var program = DivideAndConquer.CreateAsync<int, int>(
            (n, depth) => depth == 0,
            async (n, depth, token) =>
            {
                if (pending == Pending.Split)
                {
                    await new SuspendOnGate(gate.Task, entered, resumeOnCurrentScheduler);
                }

                return [n, n];
            },
            (n, depth) => n,
            async (results, depth, token) =>
            {
                if (pending == Pending.Merge)
                {
                    await new SuspendOnGate(gate.Task, entered, resumeOnCurrentScheduler);
                }

                return results[0] + results[1];
            });
        program.Granularity = Granularity.EveryNodeATask;
        return program;
    }

    /// <summary>
    /// Awaits a gate and signals <c>entered</c> only after the awaiting method has suspended on it (its continuation
    /// registered with the gate), never before. Signalling before the await let a test open the gate first on a slow
    /// or loaded runtime (seen on Mono): the phase then completed synchronously and bypassed the refusing scheduler.
    /// With <c>resumeOnCurrentScheduler</c> the continuation resumes on <see cref="TaskScheduler.Current"/> at the
    /// await, which inside a node's task is the run's scheduler.
    /// </summary>
    private readonly struct SuspendOnGate(Task gate, TaskCompletionSource entered, bool resumeOnCurrentScheduler) : ICriticalNotifyCompletion
    {
        /// <summary>Never complete when awaited: the awaiting method always suspends.</summary>
        public bool IsCompleted => false;

        public SuspendOnGate GetAwaiter() => this;

        public void GetResult() => gate.GetAwaiter().GetResult();

        public void OnCompleted(Action continuation)
        {
            gate.ConfigureAwait(resumeOnCurrentScheduler).GetAwaiter().OnCompleted(continuation);
            entered.TrySetResult();
        }

        public void UnsafeOnCompleted(Action continuation)
        {
            gate.ConfigureAwait(resumeOnCurrentScheduler).GetAwaiter().UnsafeOnCompleted(continuation);
            entered.TrySetResult();
        }
    }
}
