using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>The starvation guard: with more programs than cores, every program with tasks gets a turn.</summary>
public class StarvationGuardTests
{
    private const int Intervals = 12;

    private static readonly string[] AllPolicies = ["equal", "proportional", "task-availability", "hill-climbing", "learned-scalability"];

    public static TheoryData<string> PolicyNames => new(AllPolicies);

    /// <summary>A fresh policy by its test name (shared with <see cref="GuardWithMoveLagTests"/>).</summary>
    internal static IAllocationPolicy PolicyNamed(string name) => name switch
    {
        "equal" => new EqualSharePolicy(),
        "proportional" => new ProportionalPolicy(),
        "task-availability" => new TaskAvailabilityPolicy(),
        "hill-climbing" => new HillClimbingPolicy(),
        "learned-scalability" => new LearnedScalabilityPolicy(),
        _ => throw new ArgumentOutOfRangeException(nameof(name), name, "Unknown policy."),
    };

    [Theory]
    [MemberData(nameof(PolicyNames))]
    public void A_busy_program_without_a_core_gets_one_from_an_idle_holder_when_busy_programs_fit(string name)
    {
        // 3 programs on 2 cores: the first two hold the cores and are idle now, the third has queued tasks and no
        // core. Only one program is busy, so time sharing is not needed, but whatever the policy's split, the busy
        // program must hold a core (without lending nobody else would ever serve it).
        var decider = new RebalanceDecider(PolicyNamed(name), CpuTopology.Uniform(1, 2));
        var snapshot = new AllocationSnapshot(2, [
            new ProgramState(new ProgramId(0), 1.9, 0, 1),
            new ProgramState(new ProgramId(1), 1.5, 0, 1),
            new ProgramState(new ProgramId(2), 1.2, 3, 0),
        ]);
        for (int round = 0; round < 3; round++)
        {
            RebalanceEvent decision = decider.Decide(snapshot, RebalanceReason.Interval, round);
            Assert.True(decision.After[2].Cores >= 1, $"{name}, round {round}: {decision}");
            Assert.Equal(2, decision.After.Sum(a => a.Cores));
        }
    }

    /// <summary>Feeds each decision back as the programs' current cores, as the mechanism does, for interval decisions.</summary>
    private static List<int[]> Run(IAllocationPolicy policy, int cores, double[] speedups, int[] available, int intervals = Intervals)
    {
        var decider = new RebalanceDecider(policy, CpuTopology.Uniform(1, cores));
        var held = new int[speedups.Length];
        var history = new List<int[]>();
        for (int round = 0; round < intervals; round++)
        {
            var snapshot = new AllocationSnapshot(cores, speedups.Select((s, i) => new ProgramState(new ProgramId(i), s, available[i], held[i])));
            RebalanceEvent decision = decider.Decide(snapshot, round == 0 ? RebalanceReason.Arrival : RebalanceReason.Interval, round);
            held = [.. decision.After.Select(a => a.Cores)];
            Assert.Equal(cores, held.Sum());
            Assert.All(held, c => Assert.True(c >= 0));
            history.Add(held);
        }

        return history;
    }

    private static void AssertEveryoneServedWithin(List<int[]> history, int window, IEnumerable<int> programs)
    {
        for (int start = 0; start + window <= history.Count; start++)
        {
            foreach (int p in programs)
            {
                Assert.True(history.Skip(start).Take(window).Any(d => d[p] >= 1),
                    $"Program {p} had no core in decisions {start}..{start + window - 1}: "
                    + string.Join(" | ", history.Select(d => string.Join(",", d))));
            }
        }
    }

    [Theory]
    [MemberData(nameof(PolicyNames))]
    public void Three_busy_programs_on_two_cores_take_turns(string policy)
    {
        var history = Run(PolicyNamed(policy), 2, [1.9, 1.5, 1.2], [100, 100, 100]);
        AssertEveryoneServedWithin(history, 2, [0, 1, 2]);
    }

    [Theory]
    [MemberData(nameof(PolicyNames))]
    public void Five_busy_programs_on_two_cores_each_get_a_core_within_four_decisions(string policy)
    {
        var history = Run(PolicyNamed(policy), 2, [1.9, 1.8, 1.5, 1.2, 1.1], [100, 100, 100, 100, 100], 20);
        AssertEveryoneServedWithin(history, 4, [0, 1, 2, 3, 4]);
    }

    [Theory]
    [InlineData(4, 2)]
    [InlineData(6, 2)]
    [InlineData(5, 3)]
    [InlineData(7, 4)]
    [InlineData(9, 4)]
    public void Every_busy_program_gets_a_core_within_programs_minus_cores_plus_one_decisions(int programs, int cores)
    {
        double[] speedups = [.. Enumerable.Range(0, programs).Select(i => cores - (i * (cores - 1.0) / programs))];
        int[] available = [.. Enumerable.Repeat(100, programs)];
        foreach (string policy in AllPolicies)
        {
            var history = Run(PolicyNamed(policy), cores, speedups, available, 30);
            AssertEveryoneServedWithin(history, programs - cores + 1, Enumerable.Range(0, programs));
        }
    }

    [Fact]
    public void Equal_speedups_rotate_so_that_each_interval_a_different_program_sits_out()
    {
        var history = Run(new EqualSharePolicy(), 2, [1.5, 1.5, 1.5], [100, 100, 100]);
        int[] sittingOut = [.. history.Skip(1).Select(d => Array.IndexOf(d, 0))];
        Assert.All(sittingOut, p => Assert.InRange(p, 0, 2));
        for (int i = 1; i < sittingOut.Length; i++)
        {
            Assert.NotEqual(sittingOut[i - 1], sittingOut[i]);
        }

        Assert.Equal(3, sittingOut.Distinct().Count());
    }

    [Theory]
    [MemberData(nameof(PolicyNames))]
    public void A_program_without_tasks_is_not_given_a_core(string policy)
    {
        var history = Run(PolicyNamed(policy), 2, [1.9, 1.5, 1.2], [100, 100, 0]);
        Assert.All(history.Skip(1), d => Assert.Equal(0, d[2]));
        AssertEveryoneServedWithin(history, 2, [0, 1]);
    }

    [Fact]
    public void The_guard_explains_itself_and_leaves_explicit_allocations_alone()
    {
        var guard = new StarvationGuard();
        var snapshot = new AllocationSnapshot(2, [
            new ProgramState(new ProgramId(0), 2, 5, 1), new ProgramState(new ProgramId(1), 1.5, 5, 1), new ProgramState(new ProgramId(2), 1.2, 5, 0)]);
        var policy = new AllocationDecision("proportional", snapshot, [1, 1, 0], usedFastPath: true, "largest remainder");
        var guarded = guard.Apply(policy);
        Assert.Equal(1, guarded.Cores[2]);
        Assert.Equal(2, guarded.Cores.Sum());
        Assert.Contains("starvation guard", guarded.Explanation, StringComparison.Ordinal);
        Assert.StartsWith("largest remainder", guarded.Explanation, StringComparison.Ordinal);

        var explicitDecision = new AllocationDecision("set by hand", snapshot, [1, 1, 0], usedFastPath: false, "set") { IsExplicit = true };
        Assert.Same(explicitDecision, new StarvationGuard().Apply(explicitDecision));
        Assert.Throws<ArgumentNullException>("decision", () => guard.Apply(null!));
        Assert.Throws<ArgumentNullException>("snapshot", () => StarvationGuard.MayAct(null!));
    }

    [Fact]
    public void With_at_least_as_many_cores_as_programs_the_guard_is_a_no_op()
    {
        var random = new Random(20261121);
        IAllocationPolicy[] policies = [new EqualSharePolicy(), new ProportionalPolicy(), new TaskAvailabilityPolicy(), new HillClimbingPolicy()];
        int checkedCases = 0;
        for (int i = 0; i < 400; i++)
        {
            AllocationSnapshot snapshot = Workloads.Random(random, maxCores: 32, maxPrograms: 8);
            if (snapshot.Programs.Count > snapshot.CoreCount)
            {
                continue;
            }

            var guard = new StarvationGuard();
            foreach (IAllocationPolicy policy in policies)
            {
                AllocationDecision decision = policy.Allocate(snapshot);
                Assert.Same(decision, guard.Apply(decision));
                checkedCases++;
            }
        }

        Assert.True(checkedCases > 100, $"Only {checkedCases} cases had cores >= programs.");
    }
    [Fact]
    public void A_program_running_its_last_task_on_its_core_keeps_its_turn()
    {
        // Round 1: programs 1 and 2 hold the two cores, program 0 waits with tasks and is owed a turn.
        var decider = new RebalanceDecider(new TaskAvailabilityPolicy(), CpuTopology.Uniform(1, 2));
        RebalanceEvent first = decider.Decide(
            new AllocationSnapshot(2, [
                new ProgramState(new ProgramId(0), 1.9, availableTasks: 10, currentCores: 0, servingWorkers: 0),
                new ProgramState(new ProgramId(1), 1.5, availableTasks: 10, currentCores: 1, servingWorkers: 1),
                new ProgramState(new ProgramId(2), 1.2, availableTasks: 10, currentCores: 1, servingWorkers: 1)]),
            RebalanceReason.Interval,
            1);
        int[] held = [.. first.After.Select(a => a.Cores)];
        Assert.Equal(1, held[0]);
        int holder = held[1] == 1 ? 1 : 2, waiter = 3 - holder;

        // Round 2: program 0's queues are empty for a moment while its core runs its task; the program that lost its
        // core in round 1 waits with tasks. Program 0 is the least-served holder, so the waiter takes the other
        // holder's core and program 0 keeps its own: its turn has only begun.
        RebalanceEvent second = decider.Decide(
            new AllocationSnapshot(2, [
                new ProgramState(new ProgramId(0), 1.9, availableTasks: 0, currentCores: 1, servingWorkers: 1, runningTasks: 1),
                new ProgramState(new ProgramId(holder), holder == 1 ? 1.5 : 1.2, availableTasks: 10, currentCores: 1, servingWorkers: 1),
                new ProgramState(new ProgramId(waiter), waiter == 1 ? 1.5 : 1.2, availableTasks: 10, currentCores: 0, servingWorkers: 0)]),
            RebalanceReason.Interval,
            2);
        int CoresOf(int id) => second.After.Single(a => a.Id == new ProgramId(id)).Cores;
        Assert.Equal(1, CoresOf(0));
        Assert.Equal(1, CoresOf(waiter));
        Assert.Equal(0, CoresOf(holder));
    }

    [Fact]
    public void A_program_with_empty_queues_and_no_running_task_leaves_time_sharing()
    {
        // The same moment without the running task: program 0 is idle, so the two busy programs share the cores
        // (the policy's decision stands) and program 0 gets none.
        var decider = new RebalanceDecider(new TaskAvailabilityPolicy(), CpuTopology.Uniform(1, 2));
        RebalanceEvent decision = decider.Decide(
            new AllocationSnapshot(2, [
                new ProgramState(new ProgramId(0), 1.9, availableTasks: 0, currentCores: 1, servingWorkers: 1, runningTasks: 0),
                new ProgramState(new ProgramId(1), 1.5, availableTasks: 10, currentCores: 1, servingWorkers: 1),
                new ProgramState(new ProgramId(2), 1.2, availableTasks: 10, currentCores: 0, servingWorkers: 0)]),
            RebalanceReason.Interval,
            1);
        Assert.Equal([0, 1, 1], decision.After.OrderBy(a => a.Id.Value).Select(a => a.Cores));
    }

    [Fact]
    public void Running_tasks_must_not_be_negative()
    {
        var ex = Assert.Throws<ArgumentOutOfRangeException>("runningTasks", () => new ProgramState(new ProgramId(3), 1.5, 1, 1, runningTasks: -2));
        Assert.Contains("-2", ex.Message, StringComparison.Ordinal);
    }
}
