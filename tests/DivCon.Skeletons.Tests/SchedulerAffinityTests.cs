using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>Every piece of a run's work stays on the run's scheduler, even when the program's async code hops away.</summary>
public sealed class SchedulerAffinityTests
{
    [Fact]
    public async Task Work_after_an_async_split_or_merge_that_completed_elsewhere_returns_to_the_runs_scheduler()
    {
        using var scheduler = new CountingTaskScheduler(2, allowInlining: false);
        var observer = new ThreadCheckingObserver(scheduler);
        int offScheduler = 0;
        void Check()
        {
            if (!scheduler.IsCurrentThreadAWorker)
            {
                Interlocked.Increment(ref offScheduler);
            }
        }

        var program = DivideAndConquer.CreateAsync<IndexRange, long>(
            (range, depth) => { Check(); return range.Length > 1; },
            async (range, depth, token) =>
            {
                // Finish on a thread-pool thread: the engine must come back to the run's scheduler by itself.
                await Task.Run(() => { }, token).ConfigureAwait(false);
                return range.Split(2);
            },
            (range, depth) => { Check(); return range.Length; },
            async (counts, depth, token) =>
            {
                await Task.Run(() => { }, token).ConfigureAwait(false);
                return counts[0] + counts[1];
            });

        long leaves = await program.RunAsync(new IndexRange(0, 64), DivideAndConquerOptions.Default with { Scheduler = scheduler, Observer = observer }).Bounded();

        Assert.Equal(64, leaves);
        Assert.Equal(0, offScheduler);
        // The observer is called where the engine resumes after the program's split and merge completed.
        Assert.Equal(63 + 63 + 64, observer.Calls);
        Assert.Equal(0, observer.CallsOffScheduler);
    }

    [Fact]
    public async Task A_stateless_program_runs_concurrently_on_several_schedulers()
    {
        using var one = new CountingTaskScheduler(1, allowInlining: false);
        using var two = new CountingTaskScheduler(2, allowInlining: false);
        var program = Workloads.SumLambda(leafSize: 50);
        var range = new IndexRange(0, 5000);

        var runs = new[]
        {
            program.RunAsync(range, DivideAndConquerOptions.Default with { Scheduler = one }),
            program.RunAsync(range, DivideAndConquerOptions.Default with { Scheduler = two }),
            program.RunAsync(range),
        };
        long[] sums = await Task.WhenAll(runs).WaitAsync(TestTimeouts.Generous);

        Assert.All(sums, sum => Assert.Equal(Workloads.SequentialSum(range), sum));
    }

    private sealed class ThreadCheckingObserver(CountingTaskScheduler scheduler) : IDivideAndConquerObserver
    {
        private int _calls;
        private int _callsOffScheduler;

        public int Calls => Volatile.Read(ref _calls);

        public int CallsOffScheduler => Volatile.Read(ref _callsOffScheduler);

        public void OnPhase(DivideAndConquerPhase phase, int depth, long elapsedTicks)
        {
            Interlocked.Increment(ref _calls);
            if (!scheduler.IsCurrentThreadAWorker)
            {
                Interlocked.Increment(ref _callsOffScheduler);
            }
        }
    }
}
