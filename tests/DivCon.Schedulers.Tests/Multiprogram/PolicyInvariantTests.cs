using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>Property-style checks of the policy contract on seeded random workloads.</summary>
public class PolicyInvariantTests
{
    private const int Cases = 3000;

    public static TheoryData<string> Policies => ["equal", "proportional", "task-availability", "hill-climbing-antt", "hill-climbing-stp", "learned-scalability", "learned-scalability-lending"];

    private static IAllocationPolicy Create(string name) => name switch
    {
        "equal" => new EqualSharePolicy(),
        "proportional" => new ProportionalPolicy(),
        "task-availability" => new TaskAvailabilityPolicy(),
        "learned-scalability" => new LearnedScalabilityPolicy(),
        "learned-scalability-lending" => new LearnedScalabilityPolicy(lendingCredit: 1),
        "hill-climbing-antt" => new HillClimbingPolicy(HillClimbingObjective.MinimizeAntt),
        _ => new HillClimbingPolicy(HillClimbingObjective.MaximizeStp),
    };

    [Theory]
    [MemberData(nameof(Policies))]
    public void Allocations_cover_the_machine_and_every_program_runs_when_cores_suffice(string name)
    {
        var policy = Create(name);
        var random = new Random(20260101);
        for (int n = 0; n < Cases; n++)
        {
            var snapshot = Workloads.Random(random, maxCores: name.StartsWith("hill", StringComparison.Ordinal) ? 48 : 128);
            var decision = policy.Allocate(snapshot);
            Assert.Equal(snapshot.CoreCount, decision.Cores.Sum());
            Assert.All(decision.Cores, c => Assert.True(c >= 0));
            if (snapshot.CoreCount >= snapshot.Programs.Count)
            {
                Assert.All(decision.Cores, c => Assert.True(c >= 1, $"case {n}: {decision}"));
            }

            Assert.Equal(decision.Cores, policy.Allocate(snapshot).Cores); // deterministic
        }
    }

    [Fact]
    public void Task_availability_respects_caps_in_pass_one_and_always_picks_the_lowest_eligible_score()
    {
        var policy = new TaskAvailabilityPolicy();
        var random = new Random(7);
        int sawPass2 = 0, sawPass1 = 0;
        for (int n = 0; n < Cases; n++)
        {
            var snapshot = Workloads.Random(random);
            var trace = policy.Explain(snapshot);
            int m = snapshot.Programs.Count;
            int floor = snapshot.CoreCount >= m ? 1 : 0;
            int[] limit = [.. snapshot.Programs.Select(p => Math.Min(snapshot.CoreCount, Math.Max(p.AvailableTasks, floor)))];
            for (int i = 0; i < m; i++)
            {
                Assert.Equal(Math.Min(trace.BaseCores[i], limit[i]), trace.CappedCores[i]);
            }

            foreach (var step in trace.Steps)
            {
                var eligible = Enumerable.Range(0, m).Where(i => step.Pass == 2 || step.Cores[i] < limit[i]).ToArray();
                if (step.Chosen is not int chosen)
                {
                    Assert.Empty(eligible); // pass 1 ends only when nobody is eligible
                    continue;
                }

                Assert.Contains(chosen, eligible);
                Assert.All(eligible, i => Assert.True(step.Scores[chosen] <= step.Scores[i], $"case {n}: step {step}"));
                if (step.Pass == 1)
                {
                    sawPass1++;
                }
                else
                {
                    sawPass2++;
                }
            }

            // After pass 1 (before any pass-2 core) nobody exceeds its limit.
            var lastPass1 = trace.Steps.LastOrDefault(s => s.Pass == 1);
            if (trace.Steps.Any(s => s.Pass == 2))
            {
                Assert.All(Enumerable.Range(0, m), i => Assert.True(lastPass1!.Cores[i] <= limit[i]));
            }
            else if (!trace.Decision.UsedFastPath)
            {
                Assert.All(Enumerable.Range(0, m), i => Assert.True(trace.Decision.Cores[i] <= limit[i]));
            }
        }

        Assert.True(sawPass1 > 0 && sawPass2 > 0, "the random inputs exercise both passes");
    }

    [Fact]
    public void Task_availability_equals_proportional_when_tasks_are_plentiful()
    {
        var random = new Random(11);
        for (int n = 0; n < 500; n++)
        {
            var snapshot = Workloads.Random(random);
            var plentiful = new AllocationSnapshot(snapshot.CoreCount,
                snapshot.Programs.Select(p => new ProgramState(p.Id, p.Speedup, snapshot.CoreCount, p.CurrentCores)));
            var decision = new TaskAvailabilityPolicy().Allocate(plentiful);
            Assert.True(decision.UsedFastPath);
            Assert.Equal(new ProportionalPolicy().Allocate(plentiful).Cores, decision.Cores);
        }
    }

    [Fact]
    public void IsStillValid_never_claims_validity_wrongly()
    {
        var random = new Random(99);
        IAllocationPolicy[] policies = [new EqualSharePolicy(), new ProportionalPolicy(), new TaskAvailabilityPolicy(), new HillClimbingPolicy()];
        foreach (var policy in policies)
        {
            int valid = 0;
            for (int n = 0; n < 1000; n++)
            {
                var first = Workloads.Random(random, maxCores: 32, maxPrograms: 5);
                var previous = policy.Allocate(first);

                // Same programs, new availability (sometimes unchanged, sometimes plentiful).
                var next = new AllocationSnapshot(first.CoreCount, first.Programs.Select((p, i) => new ProgramState(
                    p.Id, p.Speedup, random.Next(3) switch { 0 => p.AvailableTasks, 1 => first.CoreCount + random.Next(5), _ => random.Next(0, 40) },
                    previous.Cores[i], p.Table)));
                if (policy.IsStillValid(next, previous))
                {
                    valid++;
                    Assert.Equal(previous.Cores, policy.Allocate(next).Cores);
                }
            }

            Assert.True(valid > 0, $"{policy.Name} sometimes allows a skip");
        }
    }
}
