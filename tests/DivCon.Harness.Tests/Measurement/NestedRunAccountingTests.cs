using DivCon.Harness.Measurement;
using DivCon.Harness.Tests.Cli;
using DivCon.Programs;
using DivCon.Schedulers;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Harness.Tests.Measurement;

/// <summary>
/// The performance model counts each phase's own work: a split or merge that awaits nested runs (quicksort's partition
/// cut into blocks) does not count the time its worker spent on other tasks meanwhile.
/// </summary>
[Collection(LiveSchedulersTestGroup.Name)]
public class NestedRunAccountingTests
{
    [Fact]
    public async Task Work_of_a_run_with_nested_runs_on_one_worker_does_not_exceed_its_thread_time()
    {
        // 2^22 elements: the top levels' partitions exceed one sweep block, so they run as nested runs.
        BenchmarkProgram quicksort = ProgramCatalog.Create("quicksort", 1L << 22, seed: 1);
        using var scheduler = new WorkStealingTaskScheduler(1);
        await quicksort.RunParallelAsync(scheduler); // JIT outside the observed run
        RunObservation run = await RunObservation.ObserveAsync(1, (observer, ct) => quicksort.RunParallelAsync(scheduler, observer: observer, cancellationToken: ct),
            TimeProvider.System);
        quicksort.VerifyOrThrow();

        // One worker runs one phase at a time, so pure work fits in the run's wall time (a little slack for the
        // clock reads); counting an awaiting partition's wall time as work gave several times the wall time.
        Assert.True(run.Work <= run.Elapsed * 1.05, $"work {run.Work.TotalMilliseconds:F1} ms > elapsed {run.Elapsed.TotalMilliseconds:F1} ms");
        Assert.True(run.Work >= run.Elapsed * 0.5, $"work {run.Work.TotalMilliseconds:F1} ms, elapsed {run.Elapsed.TotalMilliseconds:F1} ms: nested work lost");
    }

    [Fact]
    public void A_host_phase_counts_its_own_work_and_its_nested_runs_work_at_its_level()
    {
        // Root (split 1 us, merge 0.4 us) with two leaves of 0.8 us; its split hosts a nested run of one 10 us leaf.
        TaskTree nested = TaskTree.FromShape(branching: 2, depth: 0, execute: 10_000);
        TaskTree tree = TaskTree.FromShape(branching: 2, depth: 1, execute: 800, split: 1_000, merge: 400)
            .WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 0, nested)]);

        IReadOnlyList<PhaseLevelTimes> levels = PhaseLevelTimes.From(tree);

        Assert.Equal(2, levels.Count);
        Assert.Equal(TimeSpan.FromTicks(110), levels[0].Split);   // 1 us own + 10 us nested
        Assert.Equal(TimeSpan.FromTicks(4), levels[0].Merge);
        Assert.Equal(TimeSpan.FromTicks(16), levels[1].Execute);
        Assert.Equal(1, levels[0].SplitCount);
        Assert.Equal(1, levels[0].MergeCount);
        Assert.Equal(2, levels[1].ExecuteCount);
        Assert.Equal(0, levels[1].SplitCount);
        Assert.Equal(tree.TotalWork / 100, levels.Sum(l => l.Total.Ticks));
    }
}
