using DivCon.Simulator.Workloads;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Tests;

/// <summary>The mix generator: deterministic, in range, every program a valid graph; subproblems and the phased program.</summary>
public sealed class MixGeneratorTests
{
    private const long Ms = 1_000_000;

    private static readonly string[] Programs = ["binary", "seven"];

    private static MixGeneratorOptions Options(int seed = 1) => new() { Programs = Programs, Seed = seed, TimeLimit = TimeSpan.FromSeconds(20) };

    /// <summary>Synthetic "recordings": a binary tree of depth 4 and a 7-ary tree of depth 2 with a nested run in the root's split.</summary>
    private static TaskTree Load(string program) => program switch
    {
        "binary" => TaskTree.FromShape(branching: 2, depth: 4, execute: 2 * Ms, split: Ms / 10, merge: Ms / 10),
        "seven" => TaskTree.FromShape(branching: 7, depth: 2, execute: 3 * Ms, split: Ms, merge: Ms)
            .WithNestedRuns([new TaskTreeNestedRun(1, DivideAndConquerPhase.Split, Ms / 2, TaskTree.FromShape(2, 1, Ms / 4))]),
        _ => throw new ArgumentException(program),
    };

    [Fact]
    public void The_same_seed_gives_the_same_mixes_and_mix_i_does_not_depend_on_the_count()
    {
        var ten = MixGenerator.Generate(10, Options());
        var again = MixGenerator.Generate(10, Options());
        var forty = MixGenerator.Generate(40, Options());

        Assert.Equal(ten.Select(Text), again.Select(Text));
        Assert.Equal(ten.Select(Text), forty.Take(10).Select(Text));
        Assert.Equal("s1-003", ten[3].Id);
        Assert.Equal(Text(ten[7]), Text(MixGenerator.One(7, Options())));
        Assert.NotEqual(ten.Select(Text), MixGenerator.Generate(10, Options(seed: 2)).Select(Text));
        Assert.Equal(10, ten.Select(m => m.Description).Distinct().Count());

        static string Text(Mix m) => m.Id + ": " + m.Description + " | " + string.Join(";", m.Programs.Select(p => $"{p.Name} {string.Join(",", p.Path)} {p.Arrival.Ticks} {p.MaxRuns} {p.LeaveAt?.Ticks}"));
    }

    [Fact]
    public void Every_mix_is_in_range_with_ordered_arrivals_and_every_program_a_valid_graph()
    {
        var options = Options();
        var mixes = MixGenerator.Generate(300, options);
        var catalog = new MixCatalog(Load);
        var whole = Programs.ToDictionary(p => p, p => TaskGraph.FromTree(Load(p)).TotalWork);

        Assert.Contains(mixes, m => m.Programs.Count == 2);
        Assert.Contains(mixes, m => m.Programs.Count == 8);
        Assert.Contains(mixes.SelectMany(m => m.Programs), p => p.Phased is not null);
        Assert.Contains(mixes.SelectMany(m => m.Programs), p => p.Arrival > TimeSpan.Zero);
        Assert.Contains(mixes.SelectMany(m => m.Programs), p => p.MaxRuns is not null);
        Assert.Contains(mixes.SelectMany(m => m.Programs), p => p.LeaveAt is not null);
        Assert.Contains(mixes.SelectMany(m => m.Programs), p => p.Path.Count == 3);
        foreach (var mix in mixes)
        {
            Assert.InRange(mix.Programs.Count, 2, 8);
            Assert.Equal(TimeSpan.Zero, mix.Programs[0].Arrival);
            Assert.Equal(mix.Programs.Select(p => p.Arrival).Order(), mix.Programs.Select(p => p.Arrival));
            Assert.Equal(mix.Programs.Count, mix.Programs.Select(p => p.Name).Distinct(StringComparer.Ordinal).Count());
            var workload = catalog.Programs(mix);
            foreach (var (spec, program) in mix.Programs.Zip(workload))
            {
                Assert.InRange(spec.Arrival, TimeSpan.Zero, options.TimeLimit / 2);
                Assert.True(spec.MaxRuns is null or (>= 1 and <= 5), $"{mix.Id} {spec.Name}: {spec.MaxRuns} runs");
                Assert.True(spec.LeaveAt is null || (spec.LeaveAt > spec.Arrival && spec.LeaveAt <= options.TimeLimit), $"{mix.Id} {spec.Name} leaves at {spec.LeaveAt}");
                Assert.False(spec.MaxRuns is not null && spec.LeaveAt is not null);
                Assert.InRange(spec.Path.Count, 0, options.MaxDepth);
                Assert.All(spec.Path, u => Assert.InRange(u, 0, 0.999999999));
                Assert.Equal((spec.Name, spec.Arrival, spec.MaxRuns, spec.LeaveAt), (program.Name, program.Arrival, program.MaxRuns, program.LeaveAt));
                Assert.True(program.Graph.TotalWork > 0 && program.Graph.TaskCount >= 1);
                if (spec.Phased is null)
                {
                    Assert.Contains(spec.Program, Programs);
                    Assert.True(program.Graph.TotalWork <= whole[spec.Program]);
                    Assert.Equal(spec.Path.Count == 0, program.Graph.TotalWork == whole[spec.Program]);
                }
                else
                {
                    Assert.Equal(PhasedProgram.Kind, spec.Program);
                    Assert.InRange(spec.Phased.Sequential, TimeSpan.FromSeconds(0.2), TimeSpan.FromSeconds(1));
                    Assert.Contains(spec.Phased.Leaves, new[] { 256, 1024 });
                }
            }
        }
    }

    [Fact]
    public void The_catalog_builds_each_subproblem_once()
    {
        int loads = 0;
        var catalog = new MixCatalog(p => { loads++; return Load(p); });
        var spec = new MixProgram("binary/d1", "binary", [0.7], null, TimeSpan.Zero, null, null);

        Assert.Same(catalog.Graph(spec), catalog.Graph(spec with { Name = "binary/d1#2", Arrival = TimeSpan.FromSeconds(1) }));
        Assert.NotSame(catalog.Graph(spec), catalog.Graph(spec with { Path = [0.2] }));
        Assert.Equal(1, loads);
    }

    [Theory]
    [InlineData(nameof(MixGeneratorOptions.MinPrograms), 0)]
    [InlineData(nameof(MixGeneratorOptions.MaxPrograms), 1)]
    [InlineData(nameof(MixGeneratorOptions.MaxPrograms), 65)]
    [InlineData(nameof(MixGeneratorOptions.MaxDepth), 9)]
    [InlineData(nameof(MixGeneratorOptions.MaxDepth), -1)]
    public void Bad_options_are_refused_naming_the_option(string option, int value)
    {
        var options = option switch
        {
            nameof(MixGeneratorOptions.MinPrograms) => Options() with { MinPrograms = value },
            nameof(MixGeneratorOptions.MaxPrograms) => Options() with { MinPrograms = 2, MaxPrograms = value },
            _ => Options() with { MaxDepth = value },
        };

        var e = Assert.ThrowsAny<ArgumentException>(() => MixGenerator.Generate(3, options));
        Assert.Equal(option, e.ParamName);
        Assert.Contains(value.ToString(System.Globalization.CultureInfo.InvariantCulture), e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Bad_programs_time_limit_share_and_count_are_refused()
    {
        Assert.Equal("Programs", Assert.ThrowsAny<ArgumentException>(() => MixGenerator.Generate(1, Options() with { Programs = [] })).ParamName);
        Assert.Equal("Programs", Assert.ThrowsAny<ArgumentException>(() => MixGenerator.Generate(1, Options() with { Programs = ["a", "a"] })).ParamName);
        Assert.Equal("TimeLimit", Assert.ThrowsAny<ArgumentException>(() => MixGenerator.Generate(1, Options() with { TimeLimit = TimeSpan.Zero })).ParamName);
        Assert.Equal("PhasedShare", Assert.ThrowsAny<ArgumentException>(() => MixGenerator.Generate(1, Options() with { PhasedShare = 1.5 })).ParamName);
        Assert.Equal("count", Assert.ThrowsAny<ArgumentException>(() => MixGenerator.Generate(0, Options())).ParamName);
    }

    [Fact]
    public void A_subproblem_is_the_subtree_below_the_path_with_its_nested_runs()
    {
        var tree = Load("seven");

        // Root: 7 children; u = 0 picks child 0 (node 1, which hosts the nested run), u = 0.99 child 6 (node 7).
        var first = Subproblem.Of(tree, [0.0]);
        Assert.Equal(8, first.Nodes.Count);
        Assert.Equal(7, first.Nodes[0].ChildCount);
        Assert.Equal(0, first.Nodes[0].Depth);
        Assert.All(first.Nodes.Skip(1), n => Assert.Equal((0, 1), (n.Parent, n.Depth)));
        var run = Assert.Single(first.NestedRuns);
        Assert.Equal(0, run.Node);
        Assert.Equal(Ms + (7 * 3 * Ms) + Ms + (2 * Ms / 4), first.TotalWork);

        var last = Subproblem.Of(tree, [0.99]);
        Assert.Empty(last.NestedRuns);
        Assert.Equal(Ms + (7 * 3 * Ms) + Ms, last.TotalWork);
        Assert.Equal("1", last.Property("subproblem-depth"));

        // A leaf ends the walk early; an empty path is the whole tree.
        Assert.Equal((8, 2), Subproblem.Find(tree, [0.0, 0.0, 0.5, 0.5]));
        Assert.Same(tree, Subproblem.Of(tree, []));
        Assert.Equal(3 * Ms, TaskGraph.FromTree(Subproblem.Of(tree, [0.5, 0.5, 0.5])).TotalWork);
        Assert.Throws<ArgumentOutOfRangeException>(() => Subproblem.Of(tree, [1.0]));
        Assert.Throws<ArgumentOutOfRangeException>(() => Subproblem.Of(tree, [-0.1]));
    }

    [Fact]
    public void The_phased_program_is_one_long_sequential_task_then_a_wide_tree()
    {
        var shape = new PhasedProgram(TimeSpan.FromMilliseconds(300), 8, TimeSpan.FromMilliseconds(2));
        var tree = shape.ToTree();
        var graph = TaskGraph.FromTree(tree);

        Assert.Equal(15, tree.Nodes.Count);
        Assert.Equal(8, tree.LeafCount);
        Assert.Equal(300 * Ms, tree.Nodes[0].Work);
        Assert.Equal((300 * Ms) + (8 * 2 * Ms) + (6 * PhasedProgram.InnerNodeNs) + (7 * PhasedProgram.InnerNodeNs), graph.TotalWork);

        // Alone on 8 cores (no overheads): the sequential phase, a 1 us split per level, one leaf, a 1 us merge per level.
        var options = new SimulationOptions { Cores = 8, TaskOverheadNs = 0, StealOverheadNs = 0, WakeOverheadNs = 0 };
        var alone = new WorkloadSimulator(options).RunIsolated(new SimulatedProgram("phased", graph)).Distinct().Single();
        Assert.Equal(TimeSpan.FromTicks(((300 * Ms) + (2 * PhasedProgram.InnerNodeNs) + (2 * Ms) + (3 * PhasedProgram.InnerNodeNs)) / 100), alone);

        Assert.Equal("Leaves", Assert.Throws<ArgumentOutOfRangeException>(() => (shape with { Leaves = 6 }).ToTree()).ParamName);
        Assert.Equal("Sequential", Assert.Throws<ArgumentOutOfRangeException>(() => (shape with { Sequential = TimeSpan.Zero }).ToTree()).ParamName);
    }
}
