using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Placement;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram;

public class CpuPlacementTests
{
    private static readonly CpuTopology FourBySixteen = CpuTopology.Uniform(4, 16);

    private static ProgramAllocation[] Counts(params int[] cores) =>
        [.. cores.Select((c, i) => new ProgramAllocation(new ProgramId(i), c))];

    private static bool IsContiguous(CpuPlacement placement, IReadOnlyList<int> cpus)
    {
        if (cpus.Count == 0)
        {
            return true;
        }

        var positions = cpus.Select(c => placement.CpuOrder.ToList().IndexOf(c)).Order().ToArray();
        return positions[^1] - positions[0] == positions.Length - 1;
    }

    private static void AssertWellFormed(CpuPlacement placement, PlacementResult result, ProgramAllocation[] counts)
    {
        var all = counts.SelectMany(c => result.Assignment.CpusOf(c.Id)).ToArray();
        Assert.Equal(all.Length, all.Distinct().Count());
        if (counts.Length > 0)
        {
            Assert.Equal(placement.Topology.CpuIds.Order(), all.Order());
        }

        foreach (var c in counts)
        {
            Assert.Equal(c.Cores, result.Assignment.CpusOf(c.Id).Count);
        }
    }

    [Fact]
    public void First_placement_gives_16_cpu_programs_whole_packages()
    {
        var placement = new CpuPlacement(FourBySixteen);
        var result = placement.Place(CpuAssignment.Empty, Counts(16, 16, 16, 16));
        for (int p = 0; p < 4; p++)
        {
            var packages = result.Assignment.CpusOf(new ProgramId(p)).Select(c => FourBySixteen[c].PackageId).Distinct();
            Assert.Single(packages);
        }

        Assert.Equal(0, result.Fragments);
        Assert.Equal(64, result.Moves.Count);
        Assert.All(result.Moves, m => Assert.Null(m.From));
    }

    [Fact]
    public void First_placement_of_31_17_16_is_contiguous_and_the_16_takes_one_package()
    {
        var placement = new CpuPlacement(FourBySixteen);
        var counts = Counts(31, 17, 16);
        var result = placement.Place(CpuAssignment.Empty, counts);
        AssertWellFormed(placement, result, counts);
        Assert.All(counts, c => Assert.True(IsContiguous(placement, result.Assignment.CpusOf(c.Id))));
        Assert.Single(result.Assignment.CpusOf(new ProgramId(2)).Select(c => FourBySixteen[c].PackageId).Distinct());
    }

    [Fact]
    public void Unchanged_counts_keep_every_cpu()
    {
        var placement = new CpuPlacement(FourBySixteen);
        var first = placement.Place(CpuAssignment.Empty, Counts(31, 17, 16));
        var second = placement.Place(first.Assignment, Counts(31, 17, 16));
        Assert.Empty(second.Moves);
        Assert.Equal(PlacementStrategy.Keep, second.Winner);
        Assert.Equal("keep", second.Strategy);
    }

    [Fact]
    public void Strategies_print_the_names_traces_show()
    {
        Assert.Equal(
            new[] { "fewest-moves", "packed", "aligned", "keep" },
            new[] { PlacementStrategy.FewestMoves, PlacementStrategy.Packed, PlacementStrategy.Aligned, PlacementStrategy.Keep }.Select(s => s.ToName()));
        Assert.Throws<ArgumentOutOfRangeException>("strategy", () => ((PlacementStrategy)9).ToName());
    }

    [Fact]
    public void Neighbours_trading_cores_move_exactly_the_difference_and_stay_contiguous()
    {
        var placement = new CpuPlacement(FourBySixteen);
        var first = placement.Place(CpuAssignment.Empty, Counts(20, 20, 24));
        var order = placement.CpuOrder.ToList();
        // Find which programs are neighbours on the line and trade cores between them.
        var byStart = Enumerable.Range(0, 3).OrderBy(p => first.Assignment.CpusOf(new ProgramId(p)).Min(c => order.IndexOf(c))).ToArray();
        var next = new[] { 20, 20, 24 };
        next[byStart[0]] -= 5;
        next[byStart[1]] += 5;
        var counts = Counts(next);
        var second = placement.Place(first.Assignment, counts);
        AssertWellFormed(placement, second, counts);
        Assert.Equal(5, second.Moves.Count);
        Assert.All(second.Moves, m => Assert.Equal((ProgramId?)new ProgramId(byStart[0]), m.From));
        Assert.All(counts, c => Assert.True(IsContiguous(placement, second.Assignment.CpusOf(c.Id))));
    }

    [Theory]
    [InlineData(1, 2, 0)] // one core across a neighbour: shifting the middle program (2 moves) beats a fragment
    [InlineData(6, 6, 1)] // six cores: moving 6 directly and accepting one fragment beats shifting (12 moves)
    public void Cores_traded_across_a_middle_program_weigh_moves_against_fragments(int traded, int expectedMoves, int expectedFragments)
    {
        var placement = new CpuPlacement(FourBySixteen); // contiguity worth 2 moves a fragment
        var order = placement.CpuOrder;
        var previous = new CpuAssignment(
        [
            new KeyValuePair<ProgramId, IEnumerable<int>>(new ProgramId(0), order.Take(20)),
            new KeyValuePair<ProgramId, IEnumerable<int>>(new ProgramId(1), order.Skip(20).Take(20)),
            new KeyValuePair<ProgramId, IEnumerable<int>>(new ProgramId(2), order.Skip(40)),
        ]);
        var counts = Counts(20 - traded, 20, 24 + traded);
        var result = placement.Place(previous, counts);
        AssertWellFormed(placement, result, counts);
        Assert.Equal(expectedMoves, result.Moves.Count);
        Assert.Equal(expectedFragments, result.Fragments);
        if (expectedFragments == 1)
        {
            Assert.Equal(previous.CpusOf(new ProgramId(1)), result.Assignment.CpusOf(new ProgramId(1))); // the middle stays put
        }
    }

    [Fact]
    public void Departure_frees_cpus_for_the_others_with_minimal_moves()
    {
        var placement = new CpuPlacement(FourBySixteen);
        var first = placement.Place(CpuAssignment.Empty, Counts(16, 16, 32));
        var counts = new[] { new ProgramAllocation(new ProgramId(0), 32), new ProgramAllocation(new ProgramId(2), 32) };
        var second = placement.Place(first.Assignment, counts);
        AssertWellFormed(placement, second, counts);
        Assert.Equal(16, second.Moves.Count);
        Assert.All(second.Moves, m => Assert.Equal((ProgramId?)new ProgramId(1), m.From));
        Assert.Equal(first.Assignment.CpusOf(new ProgramId(2)), second.Assignment.CpusOf(new ProgramId(2)));
    }

    [Fact]
    public void Arrival_takes_cpus_from_the_others()
    {
        var placement = new CpuPlacement(FourBySixteen);
        var first = placement.Place(CpuAssignment.Empty, Counts(32, 32));
        var counts = Counts(24, 24, 16);
        var second = placement.Place(first.Assignment, counts);
        AssertWellFormed(placement, second, counts);
        Assert.Equal(16, second.Moves.Count);
        Assert.All(second.Moves, m => Assert.Equal((ProgramId?)new ProgramId(2), m.To));
    }

    [Fact]
    public void No_programs_unassigns_every_cpu()
    {
        var placement = new CpuPlacement(CpuTopology.Uniform(1, 4));
        var first = placement.Place(CpuAssignment.Empty, Counts(4));
        var second = placement.Place(first.Assignment, []);
        Assert.Equal(4, second.Moves.Count);
        Assert.All(second.Moves, m => Assert.Null(m.To));
        Assert.Equal(0, second.Assignment.AssignedCount);
    }

    [Fact]
    public void Random_count_changes_keep_the_invariants()
    {
        var random = new Random(424242);
        var topologies = new[] { FourBySixteen, CpuTopology.Uniform(2, 8, 2, 2), CpuTopology.Uniform(1, 6) };
        foreach (var topology in topologies)
        {
            foreach (int worth in new[] { 0, 2, 1000 })
            {
                var placement = new CpuPlacement(topology, worth);
                var assignment = CpuAssignment.Empty;
                var previousCounts = new Dictionary<ProgramId, int>();
                for (int step = 0; step < 300; step++)
                {
                    var counts = RandomCounts(random, topology.Count, previousCounts);
                    var result = placement.Place(assignment, counts);
                    AssertWellFormed(placement, result, counts);

                    int minimal = counts.Sum(c => Math.Max(0, c.Cores - previousCounts.GetValueOrDefault(c.Id)));
                    Assert.True(result.Moves.Count >= minimal);
                    if (worth == 0)
                    {
                        Assert.Equal(minimal, result.Moves.Count); // fewest moves wins when fragments are free
                    }

                    if (worth == 1000)
                    {
                        Assert.Equal(0, result.Fragments); // contiguity wins when fragments are expensive
                        Assert.All(counts, c => Assert.True(IsContiguous(placement, result.Assignment.CpusOf(c.Id))));
                    }

                    Assert.All(result.Moves, m => Assert.NotEqual(m.From, m.To));
                    assignment = result.Assignment;
                    previousCounts = counts.ToDictionary(c => c.Id, c => c.Cores);
                }
            }
        }
    }

    [Fact]
    public void A_cpu_inside_its_programs_task_stays_and_an_idle_one_moves_instead()
    {
        // A holds 0-7 and B 8-15; A shrinks to 6. Blind to tasks, A gives up its run's end, 6 and 7, next to B. CPU 7
        // is inside one of A's tasks: moving it would make B's first task share the core with A's until it ends.
        var placement = new CpuPlacement(CpuTopology.Uniform(1, 16));
        var first = placement.Place(CpuAssignment.Empty, Counts(8, 8));
        Assert.Equal([0, 1, 2, 3, 4, 5, 6, 7], first.Assignment.CpusOf(new ProgramId(0)).Order());
        var blind = placement.Place(first.Assignment, Counts(6, 10));
        Assert.Equal([6, 7], blind.Moves.Select(m => m.CpuId).Order());

        var running = new Dictionary<int, ProgramId> { [7] = new ProgramId(0), [3] = new ProgramId(0) };
        var seeing = placement.Place(first.Assignment, Counts(6, 10), running);
        Assert.Equal(2, seeing.Moves.Count); // as few moves as before
        Assert.DoesNotContain(seeing.Moves, m => running.ContainsKey(m.CpuId));
        Assert.Contains(7, seeing.Assignment.CpusOf(new ProgramId(0)));
        Assert.Equal([5, 6], seeing.Moves.Select(m => m.CpuId).Order()); // the nearest idle CPU A keeps
    }

    [Fact]
    public void A_cpu_inside_the_receivers_task_moves_freely()
    {
        // CPU 7 of A is lent to B and inside B's task: giving it to B is no handover, so nothing is swapped.
        var placement = new CpuPlacement(CpuTopology.Uniform(1, 16));
        var first = placement.Place(CpuAssignment.Empty, Counts(8, 8));
        var result = placement.Place(first.Assignment, Counts(6, 10), new Dictionary<int, ProgramId> { [7] = new ProgramId(1) });
        Assert.Equal([6, 7], result.Moves.Select(m => m.CpuId).Order());
    }

    [Fact]
    public void A_handover_stays_when_the_donor_keeps_no_idle_cpu_or_handovers_are_worth_nothing()
    {
        var topology = CpuTopology.Uniform(1, 8);
        var allBusy = Enumerable.Range(0, 4).ToDictionary(c => c, _ => new ProgramId(0));
        var placement = new CpuPlacement(topology);
        var first = placement.Place(CpuAssignment.Empty, Counts(4, 4));
        var result = placement.Place(first.Assignment, Counts(3, 5), allBusy);
        Assert.Single(result.Moves); // every CPU of A is busy: one handover is unavoidable

        var blindByWorth = new CpuPlacement(topology, handoverWorth: 0);
        var worthless = blindByWorth.Place(first.Assignment, Counts(3, 5), new Dictionary<int, ProgramId> { [3] = new ProgramId(0) });
        Assert.Equal([3], worthless.Moves.Select(m => m.CpuId)); // the run's end, as if blind
        Assert.Throws<ArgumentOutOfRangeException>(() => new CpuPlacement(topology, handoverWorth: -1));
    }

    [Fact]
    public void Random_running_tasks_never_make_the_chosen_layout_cost_more_than_the_blind_one()
    {
        // The blind winner is among the candidates scored with handovers, so the chosen one costs at most as much
        // under the same cost (moves + worth x fragments + handover worth x handovers); counts and CPUs stay exact.
        var random = new Random(777);
        var topology = CpuTopology.Uniform(2, 8, 2, 2);
        var placement = new CpuPlacement(topology);
        var assignment = CpuAssignment.Empty;
        var previousCounts = new Dictionary<ProgramId, int>();
        int swapped = 0;
        for (int step = 0; step < 400; step++)
        {
            var counts = RandomCounts(random, topology.Count, previousCounts);
            var present = assignment.Programs.ToArray();
            var running = new Dictionary<int, ProgramId>();
            foreach (int cpu in topology.CpuIds)
            {
                if (present.Length > 0 && random.Next(3) == 0)
                {
                    running[cpu] = present[random.Next(present.Length)];
                }
            }

            var blind = placement.Place(assignment, counts);
            var seeing = placement.Place(assignment, counts, running);
            AssertWellFormed(placement, seeing, counts);
            Assert.True(Cost(seeing) <= Cost(blind), $"step {step}: {Cost(seeing)} > {Cost(blind)}");
            swapped += Handovers(seeing) < Handovers(blind) ? 1 : 0;
            assignment = seeing.Assignment;
            previousCounts = counts.ToDictionary(c => c.Id, c => c.Cores);

            long Cost(PlacementResult r) => r.Moves.Count + (2L * r.Fragments) + (5L * Handovers(r));
            int Handovers(PlacementResult r) => r.Moves.Count(m =>
                m.From is { } from && counts.Any(c => c.Id == from) && running.TryGetValue(m.CpuId, out var inside) && inside != m.To);
        }

        Assert.True(swapped > 20, $"only {swapped} steps avoided a handover: the swap is not exercised");
    }

    [Fact]
    public void Rejects_counts_that_do_not_fit()
    {
        var placement = new CpuPlacement(CpuTopology.Uniform(1, 4));
        Assert.Equal("counts", Assert.Throws<ArgumentException>(() => placement.Place(CpuAssignment.Empty, Counts(2, 1))).ParamName);
        Assert.Equal("counts", Assert.Throws<ArgumentException>(() => placement.Place(CpuAssignment.Empty, Counts(5, -1))).ParamName);
        Assert.Equal("counts", Assert.Throws<ArgumentException>(() => placement.Place(CpuAssignment.Empty,
            [new ProgramAllocation(new ProgramId(1), 2), new ProgramAllocation(new ProgramId(1), 2)])).ParamName);
        var foreign = new CpuAssignment([new KeyValuePair<ProgramId, IEnumerable<int>>(new ProgramId(0), [99])]);
        Assert.Equal("previous", Assert.Throws<ArgumentException>(() => placement.Place(foreign, Counts(4))).ParamName);
        Assert.Equal("contiguityWorth", Assert.Throws<ArgumentOutOfRangeException>(() => new CpuPlacement(FourBySixteen, -1)).ParamName);
    }

    [Fact]
    public void An_assignment_rejects_a_cpu_given_twice()
    {
        var e = Assert.Throws<ArgumentException>(() => new CpuAssignment(
        [
            new KeyValuePair<ProgramId, IEnumerable<int>>(new ProgramId(0), [1, 2]),
            new KeyValuePair<ProgramId, IEnumerable<int>>(new ProgramId(1), [2, 3]),
        ]));
        Assert.Contains("CPU 2", e.Message, StringComparison.Ordinal);
    }

    private static ProgramAllocation[] RandomCounts(Random random, int cpus, Dictionary<ProgramId, int> previous)
    {
        // Mostly small changes to the same programs; sometimes an arrival or a departure.
        var ids = previous.Keys.ToList();
        if (ids.Count == 0 || (random.Next(6) == 0 && ids.Count < Math.Min(cpus, 6)))
        {
            ids.Add(new ProgramId(random.Next(1000, 2000) + ids.Count));
            ids = [.. ids.Distinct()];
        }
        else if (random.Next(8) == 0 && ids.Count > 1)
        {
            ids.RemoveAt(random.Next(ids.Count));
        }

        int m = ids.Count;
        var cores = new int[m];
        for (int i = 0; i < m; i++)
        {
            cores[i] = 1;
        }

        for (int k = m; k < cpus; k++)
        {
            cores[random.Next(m)]++;
        }

        return [.. ids.Select((id, i) => new ProgramAllocation(id, cores[i]))];
    }
}
