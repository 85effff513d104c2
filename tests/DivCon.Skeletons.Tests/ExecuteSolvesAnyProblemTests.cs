using System.Collections.Concurrent;
using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// A program whose execute solves any problem (<c>ExecuteSolvesAnyProblem</c>): a node whose subtree runs inline is
/// one execute of its problem (counted as one node), on both engines and for asynchronous programs; task nodes and
/// programs without the flag are unchanged; the result is the same.
/// </summary>
public sealed class ExecuteSolvesAnyProblemTests
{
    // Sum of [From, To): split in halves down to 4 elements; execute sums any range directly.
    private readonly record struct Range(long From, long To)
    {
        public long Length => To - From;
    }

    private static long Sum(Range r) => (r.From + r.To - 1) * r.Length / 2;

    private static DivideAndConquer<Range, long> SumProgram(ConcurrentBag<long> executed) =>
        DivideAndConquer.Create<Range, long>(
            shouldSplit: (r, depth) => r.Length > 4,
            split: (r, depth) => [new Range(r.From, r.From + (r.Length / 2)), new Range(r.From + (r.Length / 2), r.To)],
            execute: (r, depth) =>
            {
                executed.Add(r.Length);
                return Sum(r);
            },
            merge: (results, depth) => results[0] + results[1]);

    private static DivideAndConquer<Range, long> AsyncSumProgram(ConcurrentBag<long> executed, ConcurrentBag<long> split) =>
        DivideAndConquer.CreateAsync<Range, long>(
            shouldSplit: (r, depth) => r.Length > 4,
            split: (r, depth) =>
            {
                split.Add(r.Length);
                return [new Range(r.From, r.From + (r.Length / 2)), new Range(r.From + (r.Length / 2), r.To)];
            },
            execute: (r, depth) =>
            {
                executed.Add(r.Length);
                return Sum(r);
            },
            mergeAsync: (r, results, depth, token) => new ValueTask<long>(results[0] + results[1]));

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task A_root_run_inline_is_one_execute_of_the_whole_problem(ExecutionEngine engine)
    {
        var executed = new ConcurrentBag<long>();
        var program = SumProgram(executed);
        program.ExecuteSolvesAnyProblem = true;
        var observer = new PhaseAggregator();

        long sum = await program.RunAsync(new Range(0, 1000), new DivideAndConquerOptions { Granularity = Granularity.Sequential, Engine = engine, Observer = observer })
            .WaitAsync(TestTimeouts.Generous);

        Assert.Equal(Sum(new Range(0, 1000)), sum);
        Assert.Equal([1000L], executed);
        Assert.Equal(1, observer.TaskNodes + observer.InlineNodes);
        Assert.Equal(0, observer.TotalCount(DivideAndConquerPhase.Split));
    }

    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Without_the_flag_execute_receives_only_the_problems_should_split_declined(ExecutionEngine engine)
    {
        var executed = new ConcurrentBag<long>();
        var program = SumProgram(executed);

        long sum = await program.RunAsync(new Range(0, 1024), new DivideAndConquerOptions { Granularity = Granularity.Sequential, Engine = engine })
            .WaitAsync(TestTimeouts.Generous);

        Assert.Equal(Sum(new Range(0, 1024)), sum);
        Assert.Equal(256, executed.Count);
        Assert.All(executed, length => Assert.True(length <= 4));
    }

    [Fact]
    public async Task Task_nodes_still_split_when_nothing_runs_inline()
    {
        var executed = new ConcurrentBag<long>();
        var program = SumProgram(executed);
        program.ExecuteSolvesAnyProblem = true;

        long sum = await program.RunAsync(new Range(0, 256), new DivideAndConquerOptions { Granularity = Granularity.EveryNodeATask })
            .WaitAsync(TestTimeouts.Generous);

        Assert.Equal(Sum(new Range(0, 256)), sum);
        Assert.Equal(64, executed.Count);
        Assert.All(executed, length => Assert.Equal(4, length));
    }

    [Fact]
    public async Task An_asynchronous_program_executes_a_subtree_run_inline_without_splitting_it()
    {
        var executed = new ConcurrentBag<long>();
        var split = new ConcurrentBag<long>();
        var program = AsyncSumProgram(executed, split);
        program.ExecuteSolvesAnyProblem = true;

        long sum = await program.RunAsync(new Range(0, 1000), new DivideAndConquerOptions { Granularity = Granularity.Sequential })
            .WaitAsync(TestTimeouts.Generous);

        Assert.Equal(Sum(new Range(0, 1000)), sum);
        Assert.Equal([1000L], executed);
        Assert.Empty(split);
    }

    [Fact]
    public async Task With_the_automatic_granularity_cheap_subtrees_become_single_executes_and_the_sum_is_unchanged()
    {
        var executed = new ConcurrentBag<long>();
        var program = SumProgram(executed);
        program.ExecuteSolvesAnyProblem = true;
        var observer = new PhaseAggregator();
        var root = new Range(0, 1 << 16);

        // Nodes of a few nanoseconds: once the first leaves are measured every subtree below the top levels is
        // predicted far below the minimum task cost (100 us), so it runs inline, as one execute.
        long sum = await program.RunAsync(root, DivideAndConquerOptions.Default with { Observer = observer }).WaitAsync(TestTimeouts.Generous);

        Assert.Equal(Sum(root), sum);
        Assert.Equal(root.Length, executed.Sum());
        Assert.Contains(executed, length => length > 4);
        // A node per execute and per split: fewer than the 2^15 - 1 nodes of the whole tree.
        Assert.Equal(executed.Count + observer.TotalCount(DivideAndConquerPhase.Split), observer.TaskNodes + observer.InlineNodes);
        Assert.True(observer.TaskNodes + observer.InlineNodes < (1 << 15) - 1, $"{observer.TaskNodes} task and {observer.InlineNodes} inline nodes");
    }
}
