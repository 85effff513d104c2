using DivCon.Programs.Recursion;
using DivCon.Programs.Tests.Infrastructure;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

public sealed class RecursionTests
{
    private static readonly long[] s_queens = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724];

    public static TheoryData<ExecutionEngine, string> EngineAndGranularity()
    {
        var data = new TheoryData<ExecutionEngine, string>();
        foreach (var engine in Enum.GetValues<ExecutionEngine>())
        {
            foreach (var granularity in new[] { "sequential", "finest", "depth2", "automatic" })
            {
                data.Add(engine, granularity);
            }
        }

        return data;
    }

    private static Granularity Parse(string granularity) => granularity switch
    {
        "sequential" => Granularity.Sequential,
        "finest" => Granularity.Fixed(1),
        "depth2" => Granularity.Depth(2),
        _ => Granularity.Automatic(),
    };

    [Theory]
    [MemberData(nameof(EngineAndGranularity))]
    public async Task NQueens_counts_for_n_1_to_10_are_the_known_sequence(ExecutionEngine engine, string granularity)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        for (int n = 1; n <= 10; n++)
        {
            var program = new NQueensProgram(n, seed: 0) { Granularity = Parse(granularity) };
            await program.RunParallelAsync(lease.Scheduler, engine).Bounded();
            Assert.Equal(s_queens[n - 1], program.LastResult);
            Assert.True(program.Verify().Succeeded, program.Verify().Message);
        }
    }

    [Fact]
    public void The_known_counts_table_agrees_with_sequential_backtracking_up_to_12()
    {
        for (int n = 1; n <= 12; n++)
        {
            Assert.Equal(NQueensProgram.KnownSolutionCounts[n], new NQueens(n).CountCompletions(BoardState.Empty));
        }
    }

    [Fact]
    public async Task NQueens_automatic_granularity_stops_at_the_first_level_with_enough_boards()
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var queens = new NQueens(8);
        Assert.Equal(1, queens.CountPartialBoards(0));
        Assert.Equal(8, queens.CountPartialBoards(1));
        Assert.Equal(42, queens.CountPartialBoards(2));
        var phases = new PhaseAggregator();
        // The first run probes with smaller leaves (nothing to predict from yet); the second predicts from it.
        await queens.RunAsync(BoardState.Empty, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler }).Bounded();
        long solutions = await queens.RunAsync(BoardState.Empty, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Observer = phases }).Bounded();
        Assert.Equal(92, solutions);
        // Two workers x 4 leaves = 8 boards wanted: depth 1 has 8, so the root alone splits.
        Assert.Equal(7, queens.EffectiveGranularity);
        Assert.Equal(8, phases.TotalCount(DivideAndConquerPhase.Execute));
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Fib_values_match_iteration_even_with_one_task_per_call(ExecutionEngine engine)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        for (int n = 1; n <= 20; n++)
        {
            var program = new FibonacciProgram(n, seed: 0) { Granularity = Granularity.Fixed(1) };
            await program.RunParallelAsync(lease.Scheduler, engine).Bounded();
            Assert.Equal(Fibonacci.Iterate(n), program.LastResult);
        }

        Assert.Equal(0, Fibonacci.Iterate(0));
        Assert.Equal(7540113804746346429L, Fibonacci.Iterate(92));
        Assert.Equal(6765, Fibonacci.Recurse(20));
    }

    [Fact]
    public async Task Fib_with_one_task_per_call_runs_one_execute_per_leaf_call()
    {
        using var lease = new SchedulerLease(SchedulerKind.OneWorker);
        var phases = new PhaseAggregator();
        var fib = new Fibonacci { Granularity = Granularity.Fixed(1) };
        Assert.Equal(610, await fib.RunAsync(15, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Observer = phases }).Bounded());
        // The call tree of fib(15) has fib(16) = 987 leaves (calls with n < 2) and 986 internal calls.
        Assert.Equal(987, phases.TotalCount(DivideAndConquerPhase.Execute));
        Assert.Equal(986, phases.TotalCount(DivideAndConquerPhase.Merge));
    }

    [Theory]
    [InlineData(10, 10, 1)]
    [InlineData(10, 9, 2)]
    [InlineData(10, 8, 3)]
    [InlineData(10, 1, 89)]
    [InlineData(10, 0, 89)]
    public void Fib_leaf_counts_follow_the_recurrence(int n, int cutoff, long leaves) =>
        Assert.Equal(leaves, Fibonacci.LeafCount(n, cutoff));

    [Fact]
    public async Task Fib_automatic_granularity_yields_at_least_the_target_leaves()
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var phases = new PhaseAggregator();
        var fib = new Fibonacci();
        // The first run probes with smaller leaves (nothing to predict from yet); the second predicts from it.
        await fib.RunAsync(24, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler }).Bounded();
        Assert.Equal(Fibonacci.Iterate(24), await fib.RunAsync(24, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Observer = phases }).Bounded());
        long leaves = phases.TotalCount(DivideAndConquerPhase.Execute);
        Assert.Equal(Fibonacci.LeafCount(24, (int)fib.EffectiveGranularity), leaves);
        Assert.InRange(leaves, 8, 13); // the largest cut-off with >= 8 leaves: 8 <= leaves < 8 + 5
    }
}
