using DivCon.Programs.Numeric;
using DivCon.Programs.Recursion;
using DivCon.Programs.Tests.Infrastructure;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

/// <summary>How a program instance behaves around its runs: one at a time, cancellation, no result yet, observation.</summary>
public sealed class LifecycleTests
{
    [Fact]
    public async Task A_second_run_while_one_is_in_progress_is_refused()
    {
        using var scheduler = new DedicatedThreadTaskScheduler(1);
        using var gate = new ManualResetEventSlim();
        // Occupy the only worker so the run stays queued, deterministically in progress.
        var blocker = Task.Factory.StartNew(() => gate.Wait(TestTimeouts.Generous), CancellationToken.None, TaskCreationOptions.None, scheduler);
        var program = ProgramCatalog.Create("sumsq", 1000);

        var run = program.RunParallelAsync(scheduler);
        Assert.True(program.IsBusy);
        Assert.Throws<InvalidOperationException>(() => { _ = program.RunParallelAsync(scheduler); }); // synchronously
        Assert.Throws<InvalidOperationException>(program.RunSequential);
        Assert.Throws<InvalidOperationException>(() => program.Verify());

        gate.Set();
        await blocker.Bounded();
        await run.Bounded();
        Assert.False(program.IsBusy);
        Assert.True(program.Verify().Succeeded);
        await program.RunParallelAsync(scheduler).Bounded();
    }

    [Fact]
    public async Task A_cancelled_run_ends_cancelled_and_the_instance_stays_usable()
    {
        var program = ProgramCatalog.Create("pi", 10_000);
        using var cancellation = new CancellationTokenSource();
        await cancellation.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => program.RunParallelAsync(TaskScheduler.Default, cancellationToken: cancellation.Token).Bounded());
        Assert.False(program.HasResult);
        Assert.False(program.Verify().Succeeded);

        await program.RunParallelAsync(TaskScheduler.Default).Bounded();
        Assert.True(program.Verify().Succeeded);
    }

    [Fact]
    public void Before_any_run_there_is_no_result()
    {
        var program = new FibonacciProgram(10, seed: 0);
        Assert.False(program.HasResult);
        var verification = program.Verify();
        Assert.False(verification.Succeeded);
        Assert.Contains("no run", verification.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => program.LastResult);
        Assert.Throws<InvalidOperationException>(() => program.ComputeResultChecksum());
        Assert.Throws<InvalidOperationException>(program.VerifyOrThrow);
        Assert.Equal("no result", program.DescribeResult());
    }

    [Fact]
    public async Task Bad_run_arguments_are_rejected_and_leave_the_instance_free()
    {
        var program = new SumOfSquaresProgram(100, seed: 1);
        Assert.Throws<ArgumentNullException>(() => { _ = program.RunParallelAsync(null!); });
        Assert.Throws<ArgumentOutOfRangeException>(() => { _ = program.RunParallelAsync(TaskScheduler.Default, (ExecutionEngine)7); });
        Assert.False(program.IsBusy);
        await program.RunParallelAsync(TaskScheduler.Default).Bounded();
        Assert.Equal(SumOfSquares.Reference(program.Values.Span), program.LastResult);
    }

    [Fact]
    public async Task A_sequential_granularity_run_is_one_execute_and_the_observer_sees_every_phase()
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var program = ProgramCatalog.Create("mergesort", 1 << 12);
        var phases = new PhaseAggregator();

        program.Granularity = Granularity.Sequential;
        await program.RunParallelAsync(lease.Scheduler, observer: phases).Bounded();
        Assert.Equal(1, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(0, phases.TotalCount(DivideAndConquerPhase.Split));

        phases.Reset();
        program.Granularity = Granularity.Depth(3);
        await program.RunParallelAsync(lease.Scheduler, observer: phases).Bounded();
        Assert.Equal(8, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(7, phases.TotalCount(DivideAndConquerPhase.Merge));
        Assert.True(program.Verify().Succeeded);
    }

    [Fact]
    public void Describe_and_verify_report_the_result()
    {
        var program = ProgramCatalog.Create("nqueens", 6);
        program.RunSequential();
        Assert.Equal("4 solutions for 6 queens", program.DescribeResult());
        Assert.StartsWith("OK: ", program.Verify().ToString(), StringComparison.Ordinal);
        program.VerifyOrThrow();
        Assert.Contains("nqueens", program.ToString(), StringComparison.Ordinal);
    }
}
