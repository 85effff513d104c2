using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

public sealed class DomainArbitrationTests
{
    private static int GlobalId(int key, int local) => (key * 1000) + local;

    private static DomainParticipant Process(int key, int[] allowed, params double[] speedups) =>
        new(key, allowed, [.. speedups.Select((s, i) => new ProgramState(new ProgramId(i + 1), s, 1_000, 0))]);

    private static void AssertValid(IReadOnlyList<DomainParticipant> participants, DomainOutcome outcome)
    {
        var seen = new HashSet<int>();
        foreach (var p in participants)
        {
            foreach (var (_, cpus) in outcome.CpusByParticipant[p.Key])
            {
                foreach (int cpu in cpus)
                {
                    Assert.True(seen.Add(cpu), $"CPU {cpu} given twice");
                    Assert.Contains(cpu, p.AllowedCpus);
                }
            }
        }

        int machine = participants.SelectMany(p => p.AllowedCpus).Distinct().Count();
        Assert.Equal(machine, seen.Count); // every CPU some program may use is used
    }

    [Fact]
    public void Programs_of_all_processes_share_the_machine_by_one_policy()
    {
        int[] all = [.. Enumerable.Range(0, 8)];
        DomainParticipant[] participants = [Process(1, all, 8), Process(2, all, 8), Process(3, all, 8, 8)];
        var outcome = DomainArbitration.Decide(participants, GlobalId, CpuAssignment.Empty, new EqualSharePolicy(), CpuTopology.Uniform(1, 8));
        AssertValid(participants, outcome);
        Assert.Equal(4, outcome.Decision!.Snapshot.Programs.Count);
        Assert.All(outcome.CpusByParticipant.Values.SelectMany(d => d.Values), cpus => Assert.Equal(2, cpus.Count));
    }

    [Fact]
    public void A_process_never_gets_a_cpu_outside_its_allowed_set()
    {
        // Process 1 may use only CPUs 0-1 (a cpuset); equal shares would give it 4 of 8.
        DomainParticipant[] participants = [Process(1, [0, 1], 8), Process(2, [.. Enumerable.Range(0, 8)], 8)];
        var outcome = DomainArbitration.Decide(participants, GlobalId, CpuAssignment.Empty, new EqualSharePolicy(), CpuTopology.Uniform(1, 8));
        AssertValid(participants, outcome);
        Assert.Equal([0, 1], outcome.CpusByParticipant[1][1]);
        Assert.Equal([2, 3, 4, 5, 6, 7], outcome.CpusByParticipant[2][1]);
    }

    [Fact]
    public void Overlapping_sets_are_matched_by_moving_another_process_aside()
    {
        // 1 may use {0,1}, 2 may use {1,2}, 3 may use {0,1,2,3}: a greedy pass could strand one; the matching does not.
        DomainParticipant[] participants = [Process(3, [0, 1, 2, 3], 1), Process(1, [0, 1], 1), Process(2, [1, 2], 1)];
        var outcome = DomainArbitration.Decide(participants, GlobalId, CpuAssignment.Empty, new EqualSharePolicy(), CpuTopology.Uniform(1, 4));
        AssertValid(participants, outcome);
        Assert.All(participants, p => Assert.NotEmpty(outcome.CpusByParticipant[p.Key][1]));
    }

    [Fact]
    public void Random_workloads_keep_every_invariant_and_repeat_the_placement()
    {
        var random = new Random(7);
        for (int round = 0; round < 300; round++)
        {
            int cpus = random.Next(1, 17);
            int n = random.Next(1, 5);
            var participants = new List<DomainParticipant>();
            for (int k = 1; k <= n; k++)
            {
                int[] allowed = [.. Enumerable.Range(0, cpus).Where(_ => random.Next(3) > 0)];
                if (allowed.Length == 0)
                {
                    allowed = [random.Next(cpus)];
                }

                participants.Add(Process(k, allowed, [.. Enumerable.Range(0, random.Next(1, 4)).Select(_ => 0.5 + (random.NextDouble() * cpus))]));
            }

            var topology = CpuTopology.Uniform(1, cpus);
            var first = DomainArbitration.Decide(participants, GlobalId, CpuAssignment.Empty, new LearnedScalabilityPolicy(), topology);
            AssertValid(participants, first);
            var again = DomainArbitration.Decide(participants, GlobalId, first.Assignment, new LearnedScalabilityPolicy(), topology);
            AssertValid(participants, again);
        }
    }

    [Fact]
    public void No_programs_gives_nothing()
    {
        var outcome = DomainArbitration.Decide([new DomainParticipant(1, [0, 1], [])], GlobalId, CpuAssignment.Empty, new EqualSharePolicy(), CpuTopology.Uniform(1, 2));
        Assert.Null(outcome.Decision);
        Assert.Empty(outcome.CpusByParticipant[1]);
    }

    [Fact]
    public void Busy_programs_that_outnumber_the_cpus_take_turns_across_decisions()
    {
        // Three processes, one busy program each, two CPUs: without the guard one process is granted nothing for
        // ever (its run never ends); with the domain's guard every process holds a CPU within a few decisions. Each
        // process reports its program served by the workers it was granted last time, as the scheduler does.
        int[] cpus = [0, 1];
        var topology = CpuTopology.Uniform(1, 2);
        HashSet<int> Run(DivCon.Schedulers.Multiprogram.Decisions.StarvationGuard? guard)
        {
            var held = new Dictionary<int, int> { [1] = 0, [2] = 0, [3] = 0 };
            var served = new HashSet<int>();
            CpuAssignment previous = CpuAssignment.Empty;
            for (int decision = 0; decision < 8; decision++)
            {
                DomainParticipant[] participants = [.. held.Select(h => new DomainParticipant(h.Key, cpus,
                    [new ProgramState(new ProgramId(1), 2, 1_000, h.Value, servingWorkers: h.Value)]))];
                var outcome = DomainArbitration.Decide(participants, GlobalId, previous, new LearnedScalabilityPolicy(), topology, guard);
                AssertValid(participants, outcome);
                foreach (var p in participants)
                {
                    held[p.Key] = outcome.CpusByParticipant[p.Key][1].Count;
                    if (held[p.Key] > 0)
                    {
                        served.Add(p.Key);
                    }
                }

                previous = outcome.Assignment;
            }

            return served;
        }

        Assert.Equal([1, 2, 3], Run(new DivCon.Schedulers.Multiprogram.Decisions.StarvationGuard()).Order());
        Assert.Equal(2, Run(null).Count);
    }
}
