using DivCon.Schedulers.Multiprogram.Decisions;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>What a grant means for a process (plain data), and the decider adopting a placement decided elsewhere.</summary>
public sealed class GrantResolutionTests
{
    private static readonly ProgramId A = new(0, "a");
    private static readonly ProgramId B = new(1, "b");
    private static readonly ProgramId Stranger = new(7, "stranger");

    [Fact]
    public void A_well_formed_grant_gives_each_live_program_its_own_cpus_and_withholds_the_rest()
    {
        GrantResolution r = GrantResolution.Resolve(Grant((A, [0, 1]), (B, [3])), [A, B], [0, 1, 2, 3]);

        Assert.True(r.IsValid);
        Assert.Equal([0, 1], r.Assignment!.CpusOf(A));
        Assert.Equal([3], r.Assignment.CpusOf(B));
        Assert.Equal([2], r.Withheld([0, 1, 2, 3]));
        Assert.Empty(r.UnknownPrograms);
        Assert.Empty(r.ForeignCpus);
    }

    [Fact]
    public void Unknown_programs_and_foreign_cpus_are_dropped_and_reported()
    {
        GrantResolution r = GrantResolution.Resolve(Grant((A, [0, 9]), (Stranger, [1, 12])), [A, B], [0, 1, 2]);

        Assert.True(r.IsValid);
        Assert.Equal([0], r.Assignment!.CpusOf(A));
        Assert.Empty(r.Assignment.CpusOf(B));
        Assert.Equal([Stranger], r.UnknownPrograms);
        Assert.Equal([9, 12], r.ForeignCpus.Order());
        Assert.Equal([1, 2], r.Withheld([0, 1, 2])); // A stranger's own CPU is not given to anyone here.
    }

    [Theory]
    [InlineData(new[] { 0, 1 }, new[] { 1 })] // across programs
    [InlineData(new[] { 2, 2 }, new int[0])] // twice for one program
    [InlineData(new[] { 5 }, new[] { 5 })] // a foreign CPU twice is still a broken picture
    public void A_cpu_listed_twice_refuses_the_whole_grant(int[] first, int[] second)
    {
        GrantResolution r = GrantResolution.Resolve(Grant((A, first), (B, second)), [A, B], [0, 1, 2, 3]);

        Assert.False(r.IsValid);
        Assert.Contains("twice", r.Rejection, StringComparison.Ordinal);
        Assert.Empty(r.Withheld([0, 1, 2, 3]));
    }

    [Fact]
    public void A_missing_map_or_list_refuses_the_grant()
    {
        Assert.False(GrantResolution.Resolve(new ArbiterGrant(3, null!), [A], [0]).IsValid);
        var map = new Dictionary<ProgramId, IReadOnlyList<int>> { [A] = null! };
        Assert.Contains("no CPU list", GrantResolution.Resolve(new ArbiterGrant(3, map), [A], [0]).Rejection, StringComparison.Ordinal);
    }

    [Fact]
    public void Imposing_a_placement_reports_moves_to_and_from_no_program_and_the_next_local_decision_runs_the_policy()
    {
        var decider = new RebalanceDecider(new EqualSharePolicy(), CpuTopology.Uniform(1, 4));
        var snapshot = new AllocationSnapshot(4, [new ProgramState(A, 1.0, 0, 0), new ProgramState(B, 1.0, 0, 0)]);
        decider.Decide(snapshot, RebalanceReason.Arrival, 0);
        var granted = new CpuAssignment([new(A, (IEnumerable<int>)[3]), new(B, (IEnumerable<int>)[0])]);

        RebalanceEvent imposed = decider.Impose(snapshot, RebalanceReason.Manual, 1, granted, "domain", "grant", skipIfUnchanged: true);

        Assert.False(imposed.Skipped);
        Assert.Equal([1, 1], imposed.After.Select(a => a.Cores));
        Assert.Equal(4, imposed.Moves.Count + (4 - imposed.Moves.Count)); // every CPU accounted for below
        Assert.Contains(imposed.Moves, m => m.To is null); // withheld CPUs move to no program
        Assert.All(imposed.Moves, m => Assert.NotEqual(m.From, m.To));
        Assert.Same(granted, decider.Placement);
        Assert.True(decider.Impose(snapshot, RebalanceReason.Interval, 2, granted, "domain", "grant", skipIfUnchanged: true).Skipped);

        var current = new AllocationSnapshot(4, [new ProgramState(A, 1.0, 0, 1), new ProgramState(B, 1.0, 0, 1)]);
        RebalanceEvent local = decider.Decide(current, RebalanceReason.Interval, 3);
        Assert.False(local.Skipped);
        Assert.Equal(4, local.Placement.AssignedCount);
        Assert.Throws<ArgumentException>(() => decider.Impose(
            snapshot, RebalanceReason.Manual, 4, new CpuAssignment([new(Stranger, (IEnumerable<int>)[0])]), "domain", "x", false));
        Assert.Throws<ArgumentException>(() => decider.Impose(
            snapshot, RebalanceReason.Manual, 4, new CpuAssignment([new(A, (IEnumerable<int>)[9])]), "domain", "x", false));
    }

    private static ArbiterGrant Grant(params (ProgramId Program, int[] Cpus)[] sets) =>
        new(1, sets.ToDictionary(s => s.Program, s => (IReadOnlyList<int>)s.Cpus));
}
