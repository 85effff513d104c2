using DivCon.Simulator.Machine;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>
/// The phase-profile calibration term: its pure rules (factors, shares for another depth) on plain numbers, the
/// scaling of small hand-built graphs (nested runs included) against hand-computed schedules, and a machine without
/// profiles (or with one for a program not in the workload) against no machine at all.
/// </summary>
public sealed class PhaseProfileTests
{
    private const long Ms = 1_000_000;

    private static readonly MachineModel s_zero = MachineModel.Neutral with { ContextSwitchNs = 0 };

    // Root split 1 ms, two 10 ms leaves, merge 1 ms: leaves 20 ms, splits 1 ms, merges 1 ms.
    private static TaskGraph Pair() => TaskGraph.FromTree(TaskTree.FromShape(branching: 2, depth: 1, execute: 10 * Ms, split: 1 * Ms, merge: 1 * Ms));

    private static MachineModel With(string program, PhaseProfile profile) =>
        s_zero with { PhaseProfiles = new Dictionary<string, PhaseProfile>(StringComparer.OrdinalIgnoreCase) { [program] = profile } };

    private static TimeSpan Alone(MachineModel? machine, SimulatedProgram program, int cores) =>
        new WorkloadSimulator(HandComputedScheduleTests.Free(cores) with { Machine = machine }).RunIsolated(program).Single();

    [Fact]
    public void Factors_give_each_phase_its_share_of_the_new_total()
    {
        // Leaves 60 are kept; targets 0.3 and 0.2 leave them half of T = 120: splits 36 (x 1.8), merges 24 (x 1.2).
        var (split, merge) = PhaseProfile.Factors(60, 20, 20, 0.3, 0.2);
        Assert.Equal(1.8, split, 12);
        Assert.Equal(1.2, merge, 12);

        // Without a split target the splits are kept with the leaves: 90 is 75% of T = 120, merges 30 (x 3).
        (split, merge) = PhaseProfile.Factors(80, 10, 10, null, 0.25);
        Assert.Equal(1, split);
        Assert.Equal(3, merge, 12);

        // A zero target removes the phase; a positive one needs recorded work to scale.
        Assert.Equal(0, PhaseProfile.Factors(60, 20, 20, 0, null).Split);
        var e = Assert.Throws<ArgumentException>(() => PhaseProfile.Factors(60, 0, 20, 0.1, null));
        Assert.Equal("split", e.ParamName);
    }

    [Fact]
    public void A_tree_of_another_depth_keeps_the_per_level_ratio()
    {
        var profile = new PhaseProfile(0.2, 0.2, 16);

        // The profiled depth: the shares as given.
        Assert.Equal((0.2, 0.2), profile.SharesFor(16));

        // 256 leaves are twice the levels of 16: each phase is 2 x 0.2 / 0.6 of the rest, normalised: 2/3 / (7/3) = 2/7.
        var (split, merge) = profile.SharesFor(256);
        Assert.Equal(2.0 / 7, split!.Value, 12);
        Assert.Equal(2.0 / 7, merge!.Value, 12);

        // 4 leaves are half the levels: each phase 0.5 x 0.2 / 0.6 = 1/6 of the rest, normalised: 1/6 / (4/3) = 1/8.
        (split, merge) = profile.SharesFor(4);
        Assert.Equal(0.125, split!.Value, 12);
        Assert.Equal(0.125, merge!.Value, 12);

        // Without a profiled leaf count the shares apply to any depth; a phase without a target stays without one.
        Assert.Equal((0.2, (double?)null), new PhaseProfile(0.2, null, null).SharesFor(1000));
        Assert.Null(new PhaseProfile(null, 0.25, 16).SharesFor(256).Split);
    }

    [Fact]
    public void A_calibrated_pair_has_the_target_shares_and_the_hand_computed_times()
    {
        // Leaves 20 ms kept; split 0.2 and merge 0.1 of T = 20 / 0.7: split 5.714286 ms, merge 2.857143 ms.
        var machine = With("p", new PhaseProfile(0.2, 0.1, null));
        var program = new SimulatedProgram("p", Pair());
        var calibrated = machine.Calibrate(program);

        var (leaves, leafWork, splitWork, mergeWork) = calibrated.Graph.PhaseWork();
        Assert.Equal((2, 20 * Ms, 5_714_286L, 2_857_143L), (leaves, leafWork, splitWork, mergeWork));
        Assert.Equal(0.2, splitWork / (double)calibrated.Graph.TotalWork, 6);
        Assert.Equal(0.1, mergeWork / (double)calibrated.Graph.TotalWork, 6);
        Assert.Equal(22 * Ms, program.Graph.TotalWork); // the recorded graph is untouched

        // One core: everything in turn; two: split, a leaf in parallel with the other, merge (TimeSpan ticks are 100 ns).
        Assert.Equal(28.5714, Alone(machine, program, 1).TotalMilliseconds, 3);
        Assert.Equal(5.7143 + 10 + 2.8571, Alone(machine, program, 2).TotalMilliseconds, 3);
        Assert.Equal(12, Alone(null, program, 2).TotalMilliseconds, 3);
    }

    [Fact]
    public void Symmetric_copies_are_calibrated_as_their_program_and_other_programs_are_not()
    {
        var machine = With("p", new PhaseProfile(0.2, 0.1, null));
        var other = new SimulatedProgram("p-thesis", Pair());

        Assert.Equal(28_571_429L, machine.Calibrate(new SimulatedProgram("P#2", Pair())).Graph.TotalWork);
        Assert.Same(other, machine.Calibrate(other));
    }

    [Fact]
    public void The_scaling_keeps_the_recorded_distribution_over_levels()
    {
        // Root split 4 ms, its two children split 1 and 3 ms, four 5 ms leaves; merges 0. Target split share 0.5 of
        // T = 40 ms: splits 20 ms, x 2.5: 10, 2.5 and 7.5 ms.
        var graph = TaskGraph.FromChildCounts([2, 2, 2, 0, 0, 0, 0], [4 * Ms, 1 * Ms, 3 * Ms, 5 * Ms, 5 * Ms, 5 * Ms, 5 * Ms], [0, 0, 0, 0, 0, 0, 0]);
        var calibrated = new PhaseProfile(0.5, null, null).Calibrate(graph);

        Assert.Equal([10 * Ms, (long)(2.5 * Ms), (long)(7.5 * Ms), 5 * Ms, 5 * Ms, 5 * Ms, 5 * Ms], calibrated.Nodes.Select(n => n.Work));
        Assert.Equal(40 * Ms, calibrated.TotalWork);
    }

    [Fact]
    public void A_nested_run_is_scaled_with_the_phase_that_started_it()
    {
        // Root: split 1 ms, two 10 ms leaves, merge 3 ms of own work: 1 ms, a nested run (split 1, two 4 ms leaves,
        // merge 1), then 2 ms. Merges doubled: the merge's own work 6 ms (2 before the run, 4 after), the nested run's
        // tasks 2, 8 + 8 and 2; the split and the leaves kept.
        var tree = TaskTree.FromChildCounts([2, 0, 0], i => i == 0 ? 1 * Ms : 10 * Ms, _ => 3 * Ms)
            .WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Merge, 1 * Ms, TaskTree.FromShape(2, 1, execute: 4 * Ms, split: 1 * Ms, merge: 1 * Ms))]);
        var graph = TaskGraph.FromTree(tree);
        Assert.Equal((2, 20 * Ms, 1 * Ms, 13 * Ms), graph.PhaseWork());

        var scaled = graph.ScalePhases(1, 2);

        Assert.Equal((2, 20 * Ms, 1 * Ms, 26 * Ms), scaled.PhaseWork());
        Assert.Equal(2 * Ms, scaled.PieceWork(0, merge: true, 0));
        Assert.Equal(4 * Ms, scaled.PieceWork(0, merge: true, 1));
        // Two cores: split 1, leaves 10 in parallel, piece 2, nested split 2, nested leaves 8 in parallel, nested merge 2, piece 4.
        var time = new WorkloadSimulator(HandComputedScheduleTests.Free(2)).RunIsolated(new SimulatedProgram("merge-host", scaled)).Single();
        Assert.Equal(TimeSpan.FromMilliseconds(1 + 10 + 2 + 2 + 8 + 2 + 4), time);

        // Through a profile: leaves and split (21 ms) kept, the merge (own work and nested run) to 26 / 47 of T = 47 ms.
        var profile = new PhaseProfile(null, 26.0 / 47, null);
        Assert.InRange(profile.Calibrate(graph).TotalWork, (47 * Ms) - 2, (47 * Ms) + 2);
    }

    [Fact]
    public void Pieces_before_nested_runs_never_exceed_the_scaled_phase()
    {
        // Three 1 ns pieces before runs in a 3 ns split, scaled by 0.5: each rounds on the running sum (1, 1, 2 -> 0 or 1 each).
        var fanOut = TaskTree.FromShape(2, 1, execute: 5);
        var tree = TaskTree.FromChildCounts([2, 0, 0], i => i == 0 ? 3 : 7, _ => 0)
            .WithNestedRuns([new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 1, fanOut), new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 1, fanOut), new TaskTreeNestedRun(0, DivideAndConquerPhase.Split, 1, fanOut)]);
        var scaled = TaskGraph.FromTree(tree).ScalePhases(0.5, 1);

        long pieces = Enumerable.Range(0, 4).Sum(j => scaled.PieceWork(0, merge: false, j));
        Assert.Equal(scaled.Nodes[0].Work, pieces);
        Assert.All(Enumerable.Range(0, 4), j => Assert.InRange(scaled.PieceWork(0, merge: false, j), 0, 2));
    }

    [Fact]
    public void A_profile_asking_for_a_phase_the_graph_lacks_is_refused_naming_the_program()
    {
        var machine = With("flat", new PhaseProfile(0.1, null, null));
        var flat = new SimulatedProgram("flat", TaskGraph.FromTree(TaskTree.FromShape(branching: 2, depth: 1, execute: 10 * Ms)));

        var e = Assert.Throws<ArgumentException>(() => machine.Calibrate(flat));
        Assert.Contains("'flat'", e.Message, StringComparison.Ordinal);
        Assert.Contains("no split work", e.Message, StringComparison.Ordinal);
    }

    public static TheoryData<double?, double?, double?, string> BadProfiles() => new()
    {
        { -0.1, null, null, "SplitShare" },
        { 1.0, null, null, "SplitShare" },
        { null, double.NaN, null, "MergeShare" },
        { 0.6, 0.4, null, "MergeShare" },
        { 0.1, 0.1, 1.0, "ProfileLeaves" },
    };

    [Theory]
    [MemberData(nameof(BadProfiles))]
    public void A_bad_profile_is_refused_naming_the_property(double? split, double? merge, double? leaves, string property)
    {
        var machine = With("p", new PhaseProfile(split, merge, leaves));

        var e = Assert.Throws<ArgumentOutOfRangeException>(machine.Validate);
        Assert.Equal($"PhaseProfiles[p].{property}", e.ParamName);
    }

    [Theory]
    [MemberData(nameof(SchemeAndDeterminismTests.Schemes), MemberType = typeof(SchemeAndDeterminismTests))]
    public void Profiles_of_programs_not_in_the_workload_give_exactly_the_results_without_them(SimulatedScheme scheme, bool standby)
    {
        SimulatedProgram[] workload =
        [
            new("wide", TaskGraph.FromTree(TaskTree.FromShape(branching: 8, depth: 2, execute: 300_000, split: 5_000, merge: 5_000))),
            new("serial", TaskGraph.FromTree(TaskTree.FromShape(branching: 2, depth: 3, execute: 200_000, split: 800_000, merge: 600_000))),
        ];
        var options = new SimulationOptions { Cores = 16, Seed = 3, StandbyHandover = standby };
        var without = new WorkloadSimulator(options with { Machine = MachineModel.Neutral }).RunCyclic(workload, scheme, TimeSpan.FromMilliseconds(200));
        var others = With("serial-thesis", new PhaseProfile(0.3, 0.1, 256)) with { ContextSwitchNs = MachineModel.Neutral.ContextSwitchNs };
        var with = new WorkloadSimulator(options with { Machine = others }).RunCyclic(workload, scheme, TimeSpan.FromMilliseconds(200));
        var calibrated = new WorkloadSimulator(options with { Machine = others with { PhaseProfiles = new Dictionary<string, PhaseProfile> { ["serial"] = new(0.3, 0.1, 256) } } })
            .RunCyclic(workload, scheme, TimeSpan.FromMilliseconds(200));

        Assert.NotEmpty(without.Runs);
        Assert.Equal(without.Runs, with.Runs);
        Assert.Equal(without.Counters, with.Counters);
        Assert.Equal(without.Moves, with.Moves);
        Assert.NotEqual(without.Runs, calibrated.Runs); // the term does act on the program it names
    }

    [Fact]
    public void The_thesis_machine_profiles_the_thesis_forms_only()
    {
        string file = Path.Combine(RepositoryRoot(), "machines", "thesis-opteron-6276.json");
        var model = MachineDescription.Load(file).Resolve();

        Assert.Equal(new PhaseProfile(null, 0.25, 256), model.PhaseProfiles["mergesort-thesis"]);
        Assert.Equal(new PhaseProfile(0.31, null, 256), model.PhaseProfiles["quicksort-thesis"]);
        Assert.Equal(new PhaseProfile(0.14, 0.03, 343), model.PhaseProfiles["strassen-thesis"]);
        Assert.Equal(3, model.PhaseProfiles.Count);
        Assert.False(model.Programs.ContainsKey("mergesort-thesis")); // a profile alone loads no bandwidth demand
    }

    private static string RepositoryRoot()
    {
        var dir = new DirectoryInfo(AppContext.BaseDirectory);
        while (dir is not null && !File.Exists(Path.Combine(dir.FullName, "DivCon.sln")))
        {
            dir = dir.Parent;
        }

        return dir?.FullName ?? throw new InvalidOperationException("The repository root (DivCon.sln) was not found above the test's folder.");
    }
}
