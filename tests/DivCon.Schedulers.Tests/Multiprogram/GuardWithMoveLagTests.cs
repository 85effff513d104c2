using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>
/// The starvation guard against a model of the mechanism's lag: a worker moves to its new program only when the task
/// it runs ends, so a program with long tasks keeps its cores past the decision that took them.
/// </summary>
public class GuardWithMoveLagTests
{
    /// <summary>
    /// Plays <paramref name="rounds"/> interval decisions on a decider. Every program always has tasks; program p's
    /// tasks last <paramref name="taskRounds"/>[p] intervals. Each worker runs its task for one interval per round and,
    /// when the task ends, takes the next task from the program its CPU is placed on. Returns the worker-rounds each
    /// program was served.
    /// </summary>
    private static int[] Simulate(IAllocationPolicy policy, int cores, int[] taskRounds, int rounds)
    {
        int programs = taskRounds.Length;
        var topology = CpuTopology.Uniform(1, cores);
        int[] cpuIds = [.. topology.CpuIds];
        var decider = new RebalanceDecider(policy, topology);
        var owned = new int[programs];
        var serving = new int[cores];   // Program whose task worker w runs (-1: none).
        var remaining = new int[cores]; // Intervals left of that task.
        Array.Fill(serving, -1);
        var served = new int[programs];
        for (int round = 0; round < rounds; round++)
        {
            int[] servingCount = new int[programs];
            foreach (int p in serving)
            {
                if (p >= 0)
                {
                    servingCount[p]++;
                }
            }

            var snapshot = new AllocationSnapshot(cores, Enumerable.Range(0, programs).Select(p =>
                new ProgramState(new ProgramId(p), 1.5, availableTasks: 100, currentCores: owned[p], servingWorkers: servingCount[p])));
            RebalanceEvent decision = decider.Decide(snapshot, round == 0 ? RebalanceReason.Arrival : RebalanceReason.Interval, round);
            owned = [.. decision.After.Select(a => a.Cores)];
            Assert.Equal(cores, owned.Sum());
            for (int w = 0; w < cores; w++)
            {
                if (remaining[w] == 0)
                {
                    serving[w] = decider.Placement.OwnerOf(cpuIds[w]) is { } id ? id.Value : -1;
                    remaining[w] = serving[w] >= 0 ? taskRounds[serving[w]] : 0;
                }

                if (serving[w] >= 0)
                {
                    served[serving[w]]++;
                    remaining[w]--;
                }
            }
        }

        return served;
    }

    [Theory]
    [InlineData("equal")]
    [InlineData("proportional")]
    [InlineData("task-availability")]
    public void A_program_with_short_tasks_gets_a_fair_share_beside_programs_with_long_tasks(string policyName)
    {
        IAllocationPolicy policy = StarvationGuardTests.PolicyNamed(policyName);

        // Two programs whose tasks hold a worker for 6 intervals, one whose tasks last 1: 3 programs, 2 cores.
        const int Rounds = 600;
        int[] served = Simulate(policy, 2, [6, 6, 1], Rounds);
        Assert.Equal(2 * Rounds, served.Sum());
        double fairShare = 2.0 * Rounds / 3;
        Assert.All(served, s => Assert.InRange(s, 0.75 * fairShare, 1.25 * fairShare));
    }

    [Fact]
    public void Five_programs_on_two_cores_with_mixed_task_lengths_all_get_within_a_third_of_a_fair_share()
    {
        const int Rounds = 1000;
        int[] served = Simulate(new EqualSharePolicy(), 2, [1, 2, 1, 6, 6], Rounds);
        Assert.Equal(2 * Rounds, served.Sum());
        double fairShare = 2.0 * Rounds / 5;
        Assert.All(served, s => Assert.InRange(s, 0.67 * fairShare, 1.33 * fairShare));
    }

    [Fact]
    public void A_turn_is_not_taken_back_before_its_worker_arrives()
    {
        var guard = new StarvationGuard();
        // Program 2 owns a core but its worker still finishes a task of program 0 (serving 0 of 2's, 2 of 0's).
        var snapshot = new AllocationSnapshot(2, [
            new ProgramState(new ProgramId(0), 1.5, 10, currentCores: 1, servingWorkers: 2),
            new ProgramState(new ProgramId(1), 1.5, 10, currentCores: 0, servingWorkers: 0),
            new ProgramState(new ProgramId(2), 1.5, 10, currentCores: 1, servingWorkers: 0)]);
        var policy = new AllocationDecision("equal", snapshot, [1, 1, 0], usedFastPath: true, "equal");
        AllocationDecision guarded = guard.Apply(policy);
        Assert.Equal([0, 1, 1], guarded.Cores);
    }

    [Fact]
    public void A_program_whose_worker_is_still_finishing_its_task_does_not_take_a_core_back()
    {
        var guard = new StarvationGuard();
        // Program 1 lost its core but its worker still runs one of its tasks, so it has been served as much as the
        // holder program 0, and program 2's turn has not begun: the split stands.
        var snapshot = new AllocationSnapshot(2, [
            new ProgramState(new ProgramId(0), 1.5, 10, currentCores: 1, servingWorkers: 1),
            new ProgramState(new ProgramId(1), 1.5, 10, currentCores: 0, servingWorkers: 1),
            new ProgramState(new ProgramId(2), 1.5, 10, currentCores: 1, servingWorkers: 0)]);
        var policy = new AllocationDecision("equal", snapshot, [1, 1, 0], usedFastPath: true, "equal");
        Assert.Equal([1, 0, 1], guard.Apply(policy).Cores);
    }

    [Fact]
    public void The_most_served_holder_donates()
    {
        var guard = new StarvationGuard();
        ProgramState[] Programs(int c0, int s0, int c1, int s1, int c2, int s2) => [
            new ProgramState(new ProgramId(0), 1.5, 10, c0, servingWorkers: s0),
            new ProgramState(new ProgramId(1), 1.5, 10, c1, servingWorkers: s1),
            new ProgramState(new ProgramId(2), 1.5, 10, c2, servingWorkers: s2)];

        // Program 0 is served for five decisions, program 1 for one (explicit split so the guard records, not corrects).
        for (int i = 0; i < 5; i++)
        {
            var snapshot = new AllocationSnapshot(2, Programs(1, 1, i == 4 ? 1 : 0, i == 4 ? 1 : 0, i == 4 ? 0 : 1, i == 4 ? 0 : 1));
            guard.Apply(new AllocationDecision("set by hand", snapshot, i == 4 ? [1, 1, 0] : [1, 0, 1], usedFastPath: false, "set") { IsExplicit = true });
        }

        Assert.True(guard.Service(new ProgramId(0)) > guard.Service(new ProgramId(1)));
        var now = new AllocationSnapshot(2, Programs(1, 1, 1, 1, 0, 0));
        AllocationDecision guarded = guard.Apply(new AllocationDecision("equal", now, [1, 1, 0], usedFastPath: true, "equal"));
        Assert.Equal([0, 1, 1], guarded.Cores);
    }

    [Fact]
    public void A_snapshot_that_over_counts_the_cores_still_gets_a_decision_that_sums_to_them()
    {
        var guard = new StarvationGuard();
        // Three busy programs each claim a core on a 2-core machine: the guard keeps two holders, one core each.
        var snapshot = new AllocationSnapshot(2, [
            new ProgramState(new ProgramId(0), 1.5, 10, 1), new ProgramState(new ProgramId(1), 1.5, 10, 1), new ProgramState(new ProgramId(2), 1.5, 10, 1)]);
        AllocationDecision guarded = guard.Apply(new AllocationDecision("equal", snapshot, [1, 1, 0], usedFastPath: true, "equal"));
        Assert.Equal(2, guarded.Cores.Sum());
        Assert.All(guarded.Cores, c => Assert.InRange(c, 0, 1));
    }

    [Fact]
    public void Serving_workers_are_validated_and_default_to_the_current_cores()
    {
        Assert.Equal(3, new ProgramState(new ProgramId(0), 1.5, 1, 3).ServingWorkers);
        Assert.Equal(0, new ProgramState(new ProgramId(0), 1.5, 1, 3, servingWorkers: 0).ServingWorkers);
        var ex = Assert.Throws<ArgumentOutOfRangeException>("servingWorkers", () => new ProgramState(new ProgramId(0), 1.5, 1, 3, servingWorkers: -1));
        Assert.Equal(-1, ex.ActualValue);
    }
}
