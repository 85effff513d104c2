using DivCon.Programs.Tests.Infrastructure;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

/// <summary>
/// Every catalog program at quick size, on every test scheduler, with both engines, at several granularities: each
/// run verifies, gives bit for bit the sequential result, and leaves the input unchanged.
/// </summary>
public sealed class ProgramGridTests
{
    // A granularity per program that splits a quick-size problem into many leaves (sizes in each program's own unit).
    private static readonly Dictionary<string, Granularity> s_fine = new()
    {
        ["sumsq"] = Granularity.Fixed(10_000),
        ["pi"] = Granularity.Fixed(9_999),
        ["strassen"] = Granularity.Fixed(64 * 64),
        ["quicksort"] = Granularity.Fixed(3_000),
        ["mergesort"] = Granularity.Fixed(3_000),
        ["pmergesort"] = Granularity.Fixed(3_000),
        ["fib"] = Granularity.Fixed(12),
        ["nqueens"] = Granularity.Fixed(5),
        ["strassen-thesis"] = Granularity.Fixed(64 * 64),
        ["quicksort-thesis"] = Granularity.Fixed(3_000),
        ["mergesort-thesis"] = Granularity.Fixed(3_000),
    };

    public static TheoryData<string, SchedulerKind, ExecutionEngine> Grid()
    {
        var data = new TheoryData<string, SchedulerKind, ExecutionEngine>();
        foreach (var name in ProgramCatalog.Names)
        {
            foreach (var scheduler in Enum.GetValues<SchedulerKind>())
            {
                foreach (var engine in Enum.GetValues<ExecutionEngine>())
                {
                    data.Add(name, scheduler, engine);
                }
            }
        }

        return data;
    }

    [Fact]
    public void Every_catalog_program_has_a_fine_granularity_here() =>
        Assert.Equal(ProgramCatalog.Names.OrderBy(n => n), s_fine.Keys.OrderBy(n => n));

    [Theory]
    [MemberData(nameof(Grid))]
    public async Task Parallel_runs_verify_match_the_sequential_result_and_keep_the_input(string name, SchedulerKind kind, ExecutionEngine engine)
    {
        using var lease = new SchedulerLease(kind);
        var program = ProgramCatalog.Create(name, SizePreset.Quick, seed: 5);
        ulong input = program.ComputeInputChecksum();

        program.RunSequential();
        Assert.True(program.Verify().Succeeded, program.Verify().Message);
        ulong expected = program.ComputeResultChecksum();

        Granularity[] granularities =
        [
            Granularity.Sequential, Granularity.Automatic(), Granularity.Automatic(16), Granularity.Depth(1), Granularity.Depth(3), s_fine[name],
        ];
        foreach (var granularity in granularities)
        {
            program.Granularity = granularity;
            await program.RunParallelAsync(lease.Scheduler, engine).Bounded();

            var verification = program.Verify();
            Assert.True(verification.Succeeded, $"{granularity}: {verification.Message}");
            Assert.Equal(expected, program.ComputeResultChecksum());
            Assert.Equal(input, program.ComputeInputChecksum());
        }
    }
}
