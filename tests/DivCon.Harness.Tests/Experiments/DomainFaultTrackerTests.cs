using DivCon.Harness.Experiments;

namespace DivCon.Harness.Tests.Experiments;

/// <summary>The parent's view of a domain-faults run, fed lines as the children write them.</summary>
public sealed class DomainFaultTrackerTests
{
    private static readonly int[] Cpus = [0, 1];

    [Fact]
    public void A_kill_is_reassigned_when_another_live_child_serves_each_of_its_cpus_after_the_kill()
    {
        DomainFaultTracker tracker = ThreeChildrenTheFirstServingBothCpus();
        Assert.Equal([10], tracker.LiveHolders());
        Assert.True(tracker.IsPartition(Cpus));

        ReassignmentWatch watch = tracker.BeginKill(10, 1000);
        Assert.Equal(Cpus, watch.Cpus);
        Assert.False(tracker.IsPartition(Cpus));
        tracker.OnLine(10, "arrive 1100 0 busy", 1100); // the victim's own (buffered) lines count for nothing
        tracker.OnLine(20, "arrive 900 0 busy", 1100); // stamped before the kill, read after it: 20 served CPU 0 at the kill
        Assert.False(watch.Done);
        tracker.OnLine(20, "arrive 1200 0 busy", 1200);
        Assert.Equal([1], watch.Pending);
        Assert.Null(watch.LatencyTicks);
        tracker.OnLine(30, "arrive 1500 1 busy", 1500);

        Assert.True(watch.Done);
        Assert.Equal(500, watch.LatencyTicks);
        Assert.True(tracker.IsPartition(Cpus));
        Assert.Equal([20, 30], tracker.LiveHolders());
    }

    [Fact]
    public void A_cpu_another_child_already_serves_at_the_kill_counts_at_once_and_a_victim_serving_nothing_is_done()
    {
        DomainFaultTracker tracker = TwoChildren();
        tracker.OnLine(10, "arrive 1 0 busy", 1);
        tracker.OnLine(20, "arrive 2 0 busy", 2); // a fallback: both serve CPU 0
        tracker.OnLine(20, "arrive 3 1 busy", 3);
        tracker.OnLine(20, "arrive 4 1 none", 4); // and gives CPU 1 back

        ReassignmentWatch watch = tracker.BeginKill(10, 50);
        Assert.True(watch.Done);
        Assert.Equal(0, watch.LatencyTicks);

        ReassignmentWatch empty = new DomainFaultTracker().BeginKillAfterAdd(7);
        Assert.Empty(empty.Cpus);
        Assert.True(empty.Done);
    }

    [Fact]
    public void Arrivals_of_a_new_scheduler_written_before_its_ready_line_still_count_at_the_kill()
    {
        DomainFaultTracker tracker = TwoChildren();
        tracker.OnLine(10, "ready 5 attached", 6);
        tracker.OnLine(10, "arrive 7 0 busy", 7);
        tracker.OnLine(10, "arrive 8 1 busy", 8);
        tracker.OnLine(20, "arrive 2 1 busy", 9); // a move of 20's scheduler before this one was created (below) ...
        // ... 20's workers fall back to its own CPUs while its scheduler is being created, and the ready line,
        // stamped before the creation, is written after those arrivals: they are the new scheduler's.
        tracker.OnLine(20, "arrive 12 0 busy", 12);
        tracker.OnLine(20, "arrive 13 1 busy", 13);
        tracker.OnLine(20, "ready 10 attached", 14);

        ReassignmentWatch watch = tracker.BeginKill(10, 50);

        Assert.True(watch.Done);
        Assert.Equal([ReassignmentWatch.ServedAtKill, ReassignmentWatch.ServedAtKill], tracker.Explain(watch).Select(h => h.Receiver));
    }

    [Fact]
    public void A_ready_line_forgets_the_moves_of_the_scheduler_before_it()
    {
        DomainFaultTracker tracker = TwoChildren();
        tracker.OnLine(10, "arrive 7 0 busy", 7);
        tracker.OnLine(20, "arrive 2 0 busy", 8); // an earlier scheduler of 20 served CPU 0 ...
        tracker.OnLine(20, "joined 5", 9); // ... and was replaced at 5, its arrival with it

        ReassignmentWatch watch = tracker.BeginKill(10, 50);

        Assert.False(watch.Done);
        Assert.Equal([0], watch.Pending);
    }

    [Fact]
    public void Moves_stamped_before_the_kill_but_read_after_it_count_from_their_own_timestamps()
    {
        DomainFaultTracker tracker = ThreeChildrenTheFirstServingBothCpus();
        tracker.OnLine(20, "arrive 102 1 busy", 102); // 20 served CPU 1 too (a move under way) ...
        ReassignmentWatch watch = tracker.BeginKill(10, 1000);
        Assert.True(watch.ServedBy(1) is (ReassignmentWatch.ServedAtKill, 1000));

        tracker.OnLine(20, "arrive 990 1 none", 1001); // ... but had left it before the kill: not served at the kill after all
        Assert.Null(watch.ServedBy(1));
        tracker.OnLine(10, "arrive 995 0 none", 1002); // the victim had given CPU 0 up before the kill: not its own then
        Assert.True(watch.ServedBy(0) is (ReassignmentWatch.ReleasedBeforeKill, 1000));
        Assert.False(watch.Done);

        tracker.OnLine(30, "arrive 998 1 busy", 1003); // 30's move onto CPU 1, stamped before the kill, read after it
        Assert.True(watch.Done);
        Assert.Equal(0, watch.LatencyTicks);
        Assert.Equal([ReassignmentWatch.ReleasedBeforeKill, ReassignmentWatch.ServedAtKill], tracker.Explain(watch).Select(h => h.Receiver));
    }

    [Fact]
    public void A_kill_is_explained_by_the_grant_that_gave_its_cpu_to_the_receiver_and_the_decisions_that_withheld_it()
    {
        var tracker = new DomainFaultTracker();
        tracker.Add(10, 0); // the victim
        tracker.Add(20, 0); // hosts the coordinator
        tracker.Add(30, 500); // the receiver
        tracker.OnLine(10, "arrive 100 0 busy", 100);
        tracker.OnLine(20, "arrive 101 1 busy", 101);
        ReassignmentWatch watch = tracker.BeginKill(10, 1000);

        // Before the kill (ignored); after it, CPU 0 withheld from 30 while the dead 10 may still hold it; the first
        // decision giving it to anyone gives it to 20, whose worker never gets there; then 30 gets it.
        tracker.OnLine(20, "grant 900 30 7 0 - interval", 900);
        tracker.OnLine(20, "grant 1010 30 8 - 0:10 interval", 1010);
        tracker.OnLine(20, "grant 1020 20 9 0,1 - drop", 1020);
        tracker.OnLine(20, "grant 1030 30 10 0 - release", 1030);
        tracker.OnLine(30, "install 1040 10 0 1 1041", 1040);
        tracker.OnLine(30, "apply 1045 10", 1045);
        tracker.OnLine(20, "log 1021 DivCon d: coordinator 20: pid 10 dropped: connection closed", 1021);
        tracker.OnLine(30, "arrive 1050 0 busy", 1050);
        Assert.True(watch.Done);

        CpuHandover h = Assert.Single(tracker.Explain(watch));
        Assert.Equal((0, 30, 20), (h.Cpu, h.Receiver, h.FirstGranteePid));
        Assert.Equal("release", h.Trigger);
        Assert.Equal(10, h.WithheldBy);
        Assert.Equal(3, h.Decisions); // grants sent after the kill, before the arrival
        double Ms(long ticks) => ticks * 1000.0 / System.Diagnostics.Stopwatch.Frequency;
        Assert.Equal(Ms(-500), h.ReceiverStartedMs);
        Assert.Equal(Ms(20), h.FirstGrantMs);
        Assert.Equal(Ms(30), h.GrantedMs);
        Assert.Equal(Ms(40), h.ReceivedMs);
        Assert.Equal(Ms(41), h.AcknowledgedMs);
        Assert.Equal(Ms(45), h.AppliedMs);
        Assert.Equal(Ms(50), h.ArrivedMs);
        Assert.Equal(Ms(10), h.WithheldUntilMs);
        Assert.Equal("connection closed", tracker.DropReason(10));
    }

    [Fact]
    public void Logs_tell_the_coordinator_joins_and_drops_and_cycles_are_counted()
    {
        DomainFaultTracker tracker = TwoChildren();
        Assert.True(tracker.OnLine(10, "log 5 DivCon domain faults in /tmp/x: client 10: became the coordinator", 5));
        tracker.OnLine(20, "log 6 DivCon domain faults in /tmp/x: client 20: joined the domain of coordinator 10", 6);
        tracker.OnLine(20, "arrive 7 1 busy", 7);
        Assert.Equal(10, tracker.CoordinatorPid);

        ReassignmentWatch watch = tracker.BeginKill(20, 100);
        Assert.True(watch.WasJoined);
        Assert.False(watch.WasCoordinator);
        Assert.Null(tracker.DroppedAt(20));
        tracker.OnLine(10, "log 150 DivCon domain faults in /tmp/x: coordinator 10: pid 20 dropped: connection closed", 150);
        Assert.Equal(150, tracker.DroppedAt(20));

        Assert.True(tracker.OnLine(10, "cycle 1 5 400 900", 900));
        Assert.Equal(1, tracker.Cycles);
        Assert.Equal(500, tracker.LongestLeaveTicks);
        Assert.Equal(0, tracker.CoordinatorPid); // its coordinator left with it
        Assert.False(tracker.OnLine(10, "nonsense", 901));
        Assert.False(tracker.OnLine(99, "arrive 1 0 busy", 1)); // no such child
    }

    [Fact]
    public void A_child_without_progress_lines_is_silent_and_a_dead_one_is_not()
    {
        DomainFaultTracker tracker = TwoChildren();
        tracker.OnLine(20, "joined 50", 50);
        tracker.OnLine(10, "arrive 60 0 busy", 60); // arrivals are not progress

        Assert.Equal([10], tracker.Silent(100, 60));
        tracker.Gone(10);
        Assert.Empty(tracker.Silent(100, 60));
    }

    [Fact]
    public async Task Changed_completes_at_the_next_line()
    {
        var tracker = new DomainFaultTracker();
        tracker.Add(1, 0);
        Task changed = tracker.Changed;
        Assert.False(changed.IsCompleted);
        tracker.OnLine(1, "arrive 1 0 busy", 1);
        await changed.WaitAsync(TimeSpan.FromSeconds(10));
    }

    [Fact]
    public void The_summary_meets_the_criterion_only_with_p99_within_two_intervals_and_every_kill_reassigned()
    {
        TimeSpan interval = TimeSpan.FromMilliseconds(100);
        double?[] fast = [.. Enumerable.Range(1, 200).Select(i => (double?)i)]; // 1 .. 200 ms
        ReassignmentSummary met = ReassignmentSummary.Compute(fast, interval);
        Assert.Equal(198, met.Latencies.P99Ms); // nearest rank: the 198th of 200
        Assert.Equal(1.98, met.Intervals(met.Latencies.P99Ms), 6);
        Assert.True(met.MeetsCriterion);

        Assert.False(ReassignmentSummary.Compute([.. fast.Select(l => l + 10)], interval).MeetsCriterion);
        ReassignmentSummary lost = ReassignmentSummary.Compute([.. fast.Take(199), null], interval);
        Assert.Equal(1, lost.NotReassigned);
        Assert.False(lost.MeetsCriterion);
        Assert.Contains("NOT met", string.Join('\n', lost.Markdown()), StringComparison.Ordinal);
        Assert.Throws<ArgumentOutOfRangeException>(() => ReassignmentSummary.Compute(fast, TimeSpan.Zero));
    }

    // Children 10, 20 and 30; 10 serves CPUs 0 and 1 from ticks 100 and 101.
    private static DomainFaultTracker TwoChildren()
    {
        var tracker = new DomainFaultTracker();
        tracker.Add(10, 0);
        tracker.Add(20, 0);
        return tracker;
    }

    private static DomainFaultTracker ThreeChildrenTheFirstServingBothCpus()
    {
        DomainFaultTracker tracker = TwoChildren();
        tracker.Add(30, 0);
        tracker.OnLine(10, "arrive 100 0 busy", 100);
        tracker.OnLine(10, "arrive 101 1 busy", 101);
        return tracker;
    }
}

internal static class TrackerTestExtensions
{
    public static ReassignmentWatch BeginKillAfterAdd(this DomainFaultTracker tracker, int pid)
    {
        tracker.Add(pid, 0);
        return tracker.BeginKill(pid, 10);
    }
}
