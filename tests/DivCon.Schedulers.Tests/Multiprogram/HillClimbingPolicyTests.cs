using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Tests.Multiprogram;

public class HillClimbingPolicyTests
{
    // Speedup rises to 6 at 8 cores, then falls (a PARSEC-like program).
    private static readonly ScalabilityTable Peaks8 = new(
    [
        new(1, 1), new(2, 1.9), new(4, 3.6), new(8, 6), new(12, 5), new(16, 4),
    ]);

    private static readonly ScalabilityTable Linear16 = new([new(16, 15)]);

    private static AllocationSnapshot TwoPrograms(ScalabilityTable a, ScalabilityTable b) => new(16,
    [
        new ProgramState(new ProgramId(0), a.SpeedupAt(16), 100, 0, a),
        new ProgramState(new ProgramId(1), b.SpeedupAt(16), 100, 0, b),
    ]);

    [Theory]
    [InlineData(HillClimbingObjective.MinimizeAntt, false)]
    [InlineData(HillClimbingObjective.MinimizeAntt, true)]
    [InlineData(HillClimbingObjective.MaximizeStp, false)]
    [InlineData(HillClimbingObjective.MaximizeStp, true)]
    public void A_program_whose_speedup_falls_past_8_cores_gets_at_most_8(HillClimbingObjective objective, bool equalStart)
    {
        var start = equalStart ? HillClimbingStart.Equal : HillClimbingStart.Proportional;
        var decision = new HillClimbingPolicy(objective, start).Allocate(TwoPrograms(Peaks8, Linear16));
        Assert.InRange(decision.Cores[0], 1, 8);
        Assert.Equal(16, decision.Cores.Sum());
    }

    [Fact]
    public void Even_when_it_is_the_only_scalable_looking_program_at_the_start()
    {
        // Equal start gives 8/8; a flat second program (speedup 1.5 everywhere past 2 cores) should not push
        // the peaking program past its peak, but the peaking one should take cores up to its peak.
        var flat = new ScalabilityTable([new(2, 1.5), new(16, 1.5)]);
        var decision = new HillClimbingPolicy(HillClimbingObjective.MaximizeStp, HillClimbingStart.Equal).Allocate(TwoPrograms(Peaks8, flat));
        Assert.Equal(8, decision.Cores[0]);
    }

    [Fact]
    public void Climbing_improves_on_a_bad_start()
    {
        var policy = new HillClimbingPolicy(HillClimbingObjective.MinimizeAntt, HillClimbingStart.Equal);
        var sublinear = new ScalabilityTable([new(2, 1.2), new(16, 1.6)]);
        var snapshot = TwoPrograms(Linear16, sublinear);
        var decision = policy.Allocate(snapshot);
        Assert.True(policy.Evaluate(snapshot, decision.Cores) > policy.Evaluate(snapshot, [8, 8]));
        Assert.NotEqual([8, 8], decision.Cores);
    }

    [Fact]
    public void Never_returns_a_worse_objective_than_its_start_on_random_tables()
    {
        var random = new Random(1234);
        foreach (var objective in new[] { HillClimbingObjective.MinimizeAntt, HillClimbingObjective.MaximizeStp })
        {
            foreach (var start in new[] { HillClimbingStart.Proportional, HillClimbingStart.Equal })
            {
                var policy = new HillClimbingPolicy(objective, start);
                IAllocationPolicy startPolicy = start == HillClimbingStart.Equal ? new EqualSharePolicy() : new ProportionalPolicy();
                for (int n = 0; n < 500; n++)
                {
                    var snapshot = RandomTables(random);
                    var begin = startPolicy.Allocate(snapshot).Cores;
                    var end = policy.Allocate(snapshot).Cores;
                    Assert.True(policy.Evaluate(snapshot, end) >= policy.Evaluate(snapshot, begin), $"case {n}");
                }
            }
        }
    }

    [Fact]
    public void Without_tables_it_uses_the_whole_machine_speedup_line()
    {
        var snapshot = Workloads.Snapshot(16, [15, 15]);
        Assert.Equal([8, 8], new HillClimbingPolicy().Allocate(snapshot).Cores);
    }

    [Fact]
    public void Rejects_undefined_enum_values()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new HillClimbingPolicy((HillClimbingObjective)9));
        Assert.Equal("objective", e.ParamName);
        e = Assert.Throws<ArgumentOutOfRangeException>(() => new HillClimbingPolicy(HillClimbingObjective.MinimizeAntt, (HillClimbingStart)9));
        Assert.Equal("start", e.ParamName);
    }

    private static AllocationSnapshot RandomTables(Random random)
    {
        int cores = random.Next(1, 33);
        int m = random.Next(1, 6);
        var programs = new List<ProgramState>();
        for (int i = 0; i < m; i++)
        {
            var points = new List<ScalabilityPoint>();
            double s = 1;
            for (int c = 2; c <= cores; c += random.Next(1, 5))
            {
                s = Math.Max(0.2, s + ((random.NextDouble() - 0.3) * 2));
                points.Add(new ScalabilityPoint(c, s));
            }

            var table = points.Count == 0 ? ScalabilityTable.FromWholeMachine(1, 1) : new ScalabilityTable(points);
            programs.Add(new ProgramState(new ProgramId(i), table.SpeedupAt(cores), 10, 0, table));
        }

        return new AllocationSnapshot(cores, programs);
    }
}
