using DivCon.Harness.Measurement;
using DivCon.Harness.Tests.Cli;
using DivCon.Harness.Tests.Support;
using DivCon.Harness.Workload;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Harness.Tests.Workload;

/// <summary>The moves a partitioning scheme records: a real scheduler's decisions and their practical latency.</summary>
[Collection(LiveSchedulersTestGroup.Name)]
public sealed class AllocationTraceMovesTests
{
    [Fact]
    public void Records_each_decisions_moves_with_their_latency_once_they_arrive()
    {
        var clock = new ManualTimeProvider();
        var trace = new AllocationTrace(["a", "b"], clock);
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 2,
            Policy = new EqualSharePolicy(),
            RebalanceInterval = Timeout.InfiniteTimeSpan,
        });
        using ProgramTaskScheduler a = scheduler.Register("a");
        scheduler.Rebalanced += (_, e) =>
        {
            if (e.Moves.Count > 0)
            {
                trace.RecordMoves(e.Arrivals, [.. e.Moves.Select(m => $"cpu {m.CpuId}")]);
            }
        };
        clock.Advance(TimeSpan.FromSeconds(1));

        using ProgramTaskScheduler b = scheduler.Register("b"); // Equal shares: one core moves from a to b.

        Assert.True(SpinWait.SpinUntil(() => trace.Moves().All(m => m.Latency is not null), TestTimeouts.Wait));
        MoveSample move = Assert.Single(trace.Moves());
        Assert.Equal(TimeSpan.FromSeconds(1), move.DecidedAt);
        Assert.StartsWith("cpu ", move.Label, StringComparison.Ordinal);
        Assert.True(move.Latency >= TimeSpan.Zero);
        Assert.Equal([move.Latency], trace.MoveLatencies());
        Assert.Equal(1, scheduler.History[^1].Arrivals.ArrivedCount);
    }

    [Fact]
    public void Labels_must_match_the_moves_and_a_decision_without_moves_has_no_latencies()
    {
        var trace = new AllocationTrace(["a"]);
        Assert.Throws<ArgumentException>("labels", () => trace.RecordMoves(RebalanceEvent.NoArrivals, ["x"]));
        trace.RecordMoves(RebalanceEvent.NoArrivals);
        Assert.Empty(trace.Moves());
        Assert.Equal(0, RebalanceEvent.NoArrivals.Count);
        Assert.Throws<ArgumentOutOfRangeException>("move", () => RebalanceEvent.NoArrivals.LatencyOf(0));
    }
}
