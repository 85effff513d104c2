using DivCon.Harness.Cli;
using DivCon.Harness.Machine;
using DivCon.Harness.Workload;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram;
using DivCon.Skeletons;

namespace DivCon.Harness.Tests.Workload;

public class WiringTests
{
    private static readonly SizeSelection Tiny = new(SizePreset.Quick, new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase)
    {
        ["quicksort"] = 1000, ["strassen"] = 64, ["fib"] = 15, ["mergesort"] = 1000,
    });

    [Fact]
    public void Distinct_workload_uses_canonical_names_and_explicit_sizes()
    {
        IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(["QuickSort", "strassen-multiply"], Tiny, seed: 3);
        Assert.Equal(["quicksort", "strassen"], workload.Select(m => m.Name));
        Assert.Equal(1000, workload[0].Program.ProblemSize);
        Assert.Equal(64, workload[1].Program.ProblemSize);
        Assert.Equal("1000", workload[0].ProblemSizeKey);
    }

    [Fact]
    public void Distinct_workload_rejects_a_program_twice_through_an_alias()
    {
        var e = Assert.Throws<ArgumentException>(() => WorkloadBuilder.Distinct(["fib", "fibonacci"], Tiny, seed: 1));
        Assert.Contains("symmetric", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Symmetric_instances_are_numbered_and_get_different_inputs()
    {
        IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Symmetric("quicksort", 3, Tiny, seed: 10);
        Assert.Equal(["quicksort#1", "quicksort#2", "quicksort#3"], workload.Select(m => m.Name));
        Assert.Equal([10, 11, 12], workload.Select(m => m.Program.Seed));
        Assert.Equal(3, workload.Select(m => m.Program.ComputeInputChecksum()).Distinct().Count());
    }

    [Fact]
    public void A_rejected_size_becomes_an_argument_exception_naming_the_program()
    {
        var sizes = new SizeSelection(SizePreset.Quick, new Dictionary<string, long> { ["strassen"] = 1 << 20 });
        var e = Assert.Throws<ArgumentException>(() => WorkloadBuilder.Distinct(["strassen"], sizes, seed: 1));
        Assert.Contains("strassen", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_program_on_a_multiprogram_scheduler_reports_each_run_and_a_cancelled_one_ends_too()
    {
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions { Pin = false, WorkerCount = 2 });
        using var partition = scheduler.Register("quicksort");
        WorkloadProgram program = WorkloadBuilder.Distinct(["quicksort"], Tiny, seed: 3)[0].On(partition);
        await program.RunOnceAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(60));
        await program.RunOnceAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(60));
        Assert.Equal((2, 0), (partition.CompletedRuns, partition.RunsInProgress));

        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => program.RunOnceAsync(cancelled.Token).WaitAsync(TimeSpan.FromSeconds(60)));
        Assert.Equal((3, 0), (partition.CompletedRuns, partition.RunsInProgress));

        // Elsewhere nothing is reported: the pool has no runs to count.
        await WorkloadBuilder.Distinct(["quicksort"], Tiny, seed: 3)[0].On(TaskScheduler.Default).RunOnceAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(60));
        Assert.Equal(3, partition.CompletedRuns);
    }

    [Fact]
    public void Granularity_ladder_halves_the_leaf_size_of_linear_programs()
    {
        BenchmarkProgram sort = ProgramCatalog.Create("quicksort", 1000, seed: 1);
        Assert.Equal(GranularityKind.Fixed, GranularityLadder.For(sort, 0).Kind);
        Assert.Equal(1000, GranularityLadder.For(sort, 0).Size);
        Assert.Equal(500, GranularityLadder.For(sort, 1).Size);
        Assert.Equal(125, GranularityLadder.For(sort, 3).Size);
        Assert.Equal(1, GranularityLadder.For(sort, 20).Size); // never below one element
        Assert.Equal(1.0 / 8, GranularityLadder.Fraction(3));
    }

    [Fact]
    public void Granularity_ladder_measures_strassen_in_matrix_entries_and_fib_in_depth()
    {
        BenchmarkProgram strassen = ProgramCatalog.Create("strassen", 64, seed: 1);
        Assert.Equal(64 * 64 / 4, GranularityLadder.For(strassen, 2).Size);
        BenchmarkProgram fib = ProgramCatalog.Create("fib", 15, seed: 1);
        Assert.Equal(GranularityKind.Sequential, GranularityLadder.For(fib, 0).Kind);
        Assert.Equal(GranularityKind.Depth, GranularityLadder.For(fib, 4).Kind);
        Assert.Equal(4, GranularityLadder.For(fib, 4).TargetDepth);
    }

    [Fact]
    public void Default_scalability_core_counts_cover_small_machines_fully_and_large_ones_sparsely()
    {
        Assert.Equal([1, 2], ScalabilityCommand.DefaultCores(2));
        Assert.Equal([.. Enumerable.Range(1, 16), 32, 64], ScalabilityCommand.DefaultCores(64));
        Assert.Equal([.. Enumerable.Range(1, 16), 20], ScalabilityCommand.DefaultCores(20));
    }

    [Fact]
    public void Machine_description_names_pinning_and_quota()
    {
        HarnessMachine machine = HarnessMachine.Detect();
        string text = machine.Describe(1);
        Assert.Contains("pinning", text, StringComparison.Ordinal);
        Assert.Contains("CPU quota", text, StringComparison.Ordinal);
        Assert.Contains("1 worker", text, StringComparison.Ordinal);
    }
}
