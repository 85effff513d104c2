using DivCon.Skeletons.Engines;
using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// A continuation node reports exactly once whatever races to end it: its one completion path
/// (<c>ContinuationNode.TryFinish</c>) lets the first caller through and refuses every later one.
/// </summary>
public sealed class ContinuationNodeTests
{
    [Fact]
    public async Task Threads_racing_to_finish_one_node_report_once_and_the_run_completes_once_with_the_winners_result()
    {
        const int rounds = 300;
        const int racers = 4;
        for (int round = 0; round < rounds; round++)
        {
            var program = new CompletionCountingProgram();
            var run = new RunContext<int, int>(program, new DivideAndConquerOptions(), RunGranularity.ForPlainProgram(Granularity.EveryNodeATask), CancellationToken.None);
            var root = ContinuationNode<int, int>.CreateRoot(run, 1);
            int winner = -1;
            int winners = 0;
            var errors = new List<Exception>();
            using var start = new Barrier(racers);
            var threads = Enumerable.Range(0, racers).Select(racer => new Thread(() =>
            {
                start.SignalAndWait(TestTimeouts.Generous);
                try
                {
                    if (root.TryFinish(hasResult: true, result: racer, ticks: 0))
                    {
                        Interlocked.Increment(ref winners);
                        Volatile.Write(ref winner, racer);
                    }
                }
                catch (Exception e)
                {
                    // Without the claim the second completion of the run's task throws here.
                    lock (errors)
                    {
                        errors.Add(e);
                    }
                }
            })).ToArray();
            foreach (var thread in threads)
            {
                thread.Start();
            }

            foreach (var thread in threads)
            {
                Assert.True(thread.Join(TestTimeouts.Generous));
            }

            Assert.Empty(errors);
            Assert.Equal(1, winners);
            Assert.Equal(Volatile.Read(ref winner), await run.Task.Bounded());
            Assert.Equal(1, program.Completions);
            Assert.False(root.TryFinish(hasResult: false, result: 0, ticks: 0)); // Still refused afterwards.
        }
    }

    [Fact]
    public async Task A_node_that_finished_without_a_result_refuses_a_later_result()
    {
        var program = new CompletionCountingProgram();
        using var cancellation = new CancellationTokenSource();
        var run = new RunContext<int, int>(program, new DivideAndConquerOptions(), RunGranularity.ForPlainProgram(Granularity.EveryNodeATask), cancellation.Token);
        var root = ContinuationNode<int, int>.CreateRoot(run, 1);
        await cancellation.CancelAsync();
        Assert.True(root.TryFinish(hasResult: false, result: 0, ticks: 0));
        Assert.False(root.TryFinish(hasResult: true, result: 42, ticks: 0));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.Task.Bounded());
        Assert.Equal(1, program.Completions);
    }

    private sealed class CompletionCountingProgram : DivideAndConquer<int, int>
    {
        private int _completions;

        public int Completions => Volatile.Read(ref _completions);

        protected override bool ShouldSplit(int problem, int depth) => false;

        protected override IReadOnlyList<int> Split(int problem, int depth) => [];

        protected override int Execute(int problem, int depth) => problem;

        protected override void OnRunCompleted() => Interlocked.Increment(ref _completions);
    }
}
