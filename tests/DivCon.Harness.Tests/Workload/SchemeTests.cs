using DivCon.Harness.Cli;
using DivCon.Harness.Machine;
using DivCon.Harness.Tests.Cli;
using DivCon.Harness.Workload;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Harness.Tests.Workload;

/// <summary>Every scheme opens, runs real (tiny) programs correctly, records allocations where it partitions, and closes.</summary>
[Collection(LiveSchedulersTestGroup.Name)]
public class SchemeTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    public static TheoryData<string> SchemeNames
    {
        get
        {
            var data = new TheoryData<string>();
            foreach (string name in SchemeRegistry.Names)
            {
                data.Add(name);
            }

            return data;
        }
    }

    [Theory]
    [MemberData(nameof(SchemeNames))]
    public async Task Scheme_runs_every_program_correctly_and_closes(string name)
    {
        (IReadOnlyList<WorkloadProgram> workload, SchemeContext context) = Setup(programs: 2);
        SchemeDefinition definition = SchemeRegistry.Find(name);
        WorkloadScheme scheme = definition.Create(workload, context);
        Assert.Equal(name, scheme.Name);

        IWorkloadSession session = await scheme.OpenAsync(CancellationToken.None).AsTask().WaitAsync(Timeout);
        try
        {
            Assert.Equal(workload.Select(m => m.Name), session.Programs.Select(p => p.Name));
            for (int round = 0; round < 2; round++)
            {
                await Task.WhenAll(session.Programs.Select(p => p.RunOnceAsync(CancellationToken.None))).WaitAsync(Timeout);
            }

            if (definition.UsesProfiles)
            {
                AllocationTrace trace = Assert.IsType<AllocationTrace>(session.Allocations);
                IReadOnlyList<AllocationSample> samples = trace.Samples();
                Assert.NotEmpty(samples);
                Assert.All(samples, s => Assert.Equal(context.Workers, s.Cores.Sum()));
            }
            else
            {
                Assert.Null(session.Allocations);
            }
        }
        finally
        {
            await session.DisposeAsync().AsTask().WaitAsync(Timeout);
        }

        Assert.All(workload, m => Assert.True(m.Program.Verify().Succeeded, m.Program.Verify().Message));
        await session.DisposeAsync().AsTask().WaitAsync(Timeout); // a second close does nothing
    }

    [Fact]
    public async Task Isolated_scheme_gives_each_program_the_whole_machine_scheduler()
    {
        (IReadOnlyList<WorkloadProgram> workload, SchemeContext context) = Setup(programs: 2);
        await using IWorkloadSession session = await SchemeRegistry.Isolated.Create(workload, context).OpenAsync(CancellationToken.None);
        foreach (WorkloadProgram program in session.Programs)
        {
            await program.RunOnceAsync(CancellationToken.None).WaitAsync(Timeout);
        }

        Assert.Null(session.Allocations);
        Assert.All(workload, m => Assert.True(m.Program.Verify().Succeeded));
    }

    [Fact]
    public async Task Partitioning_without_lending_refuses_more_programs_than_workers()
    {
        (IReadOnlyList<WorkloadProgram> workload, SchemeContext context) = Setup(programs: 2);
        WorkloadScheme scheme = SchemeRegistry.Find("static").Create(workload, context with { Workers = 1, Lending = false });
        var e = await Assert.ThrowsAsync<ArgumentException>(() => scheme.OpenAsync(CancellationToken.None).AsTask());
        Assert.Contains("lending", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(LendingPreference.RunsInProgress)]
    [InlineData(LendingPreference.OldestRun)]
    public async Task A_lending_preference_reaches_the_multiprogram_scheduler_and_every_program_runs_correctly(LendingPreference preference)
    {
        (IReadOnlyList<WorkloadProgram> workload, SchemeContext context) = Setup(programs: 2);
        WorkloadScheme scheme = SchemeRegistry.Dynamic.Create(workload, context with { LendingPreference = preference });
        await using IWorkloadSession session = await scheme.OpenAsync(CancellationToken.None).AsTask().WaitAsync(Timeout);
        Assert.All(session.Programs, p => Assert.Equal(preference, Assert.IsType<ProgramTaskScheduler>(p.Scheduler).Scheduler.LendingPreference));
        for (int round = 0; round < 2; round++)
        {
            await Task.WhenAll(session.Programs.Select(p => p.RunOnceAsync(CancellationToken.None))).WaitAsync(Timeout);
        }

        Assert.All(workload, m => Assert.True(m.Program.Verify().Succeeded, m.Program.Verify().Message));
    }

    [Fact]
    public void The_lending_preference_names_are_the_simulators_and_map_to_the_enum_in_order()
    {
        Assert.Equal(["round-robin", "runs-in-progress", "oldest-run"], SchemeOptions.LendingPreferenceNames);
        Assert.Equal(
            [LendingPreference.RoundRobin, LendingPreference.RunsInProgress, LendingPreference.OldestRun],
            SchemeOptions.LendingPreferenceNames.Select(SchemeOptions.ParseLendingPreference));
        Assert.Equal(LendingPreference.RoundRobin, SchemeOptions.ParseLendingPreference(null));
        Assert.Equal("name", Assert.Throws<ArgumentOutOfRangeException>(() => SchemeOptions.ParseLendingPreference("oldest")).ParamName);
    }

    [Theory]
    [InlineData(1, 1, false)]
    [InlineData(2, 2, false)]
    [InlineData(2, 1, true)]
    public void Static_gets_interval_decisions_only_when_programs_outnumber_workers(int programs, int workers, bool expected)
    {
        (IReadOnlyList<WorkloadProgram> workload, SchemeContext context) = Setup(programs);
        var scheme = SchemeRegistry.Static.Create(workload, context with { Workers = workers });
        Assert.Equal(expected, scheme.UsesIntervalDecisions);
        Assert.True(SchemeRegistry.Dynamic.Create(workload, context with { Workers = workers }).UsesIntervalDecisions);
    }

    [Fact]
    public void Registry_rejects_unknown_names_with_the_list()
    {
        var e = Assert.Throws<ArgumentException>(() => SchemeRegistry.Find("fifo"));
        Assert.Contains("shared", e.Message, StringComparison.Ordinal);
        Assert.True(SchemeRegistry.TryFind("DYNAMIC", out SchemeDefinition? dynamic));
        Assert.Equal("dynamic", dynamic.Name);
        Assert.DoesNotContain(SchemeRegistry.Isolated.Name, SchemeRegistry.Names);
    }

    [Fact]
    public void The_no_standby_variant_is_selectable_by_name_but_not_a_default_scheme()
    {
        Assert.True(SchemeRegistry.TryFind("Dynamic-No-Standby", out SchemeDefinition? variant));
        Assert.Same(SchemeRegistry.DynamicNoStandby, variant);
        Assert.False(variant.Standby);
        Assert.True(SchemeRegistry.Dynamic.Standby);
        Assert.Equal(SchemeRegistry.Dynamic.Layout, variant.Layout);
        Assert.Equal(SchemeRegistry.Dynamic.Repartitions, variant.Repartitions);
        Assert.DoesNotContain(variant.Name, SchemeRegistry.Names);
        Assert.Contains(variant.Name, SchemeRegistry.SelectableNames);
        Assert.Contains(variant.Name, Assert.Throws<ArgumentException>(() => SchemeRegistry.Find("fifo")).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_sparsely_sampled_variant_is_dynamic_sampling_every_25_ms_and_selectable_by_name_only()
    {
        Assert.True(SchemeRegistry.TryFind("dynamic-sampled-25ms", out SchemeDefinition? variant));
        Assert.Same(SchemeRegistry.DynamicSampled25, variant);
        Assert.Equal(25, variant.EstimatorSampleIntervalMilliseconds);
        Assert.Null(SchemeRegistry.Dynamic.EstimatorSampleIntervalMilliseconds);
        Assert.Equal((SchemeRegistry.Dynamic.Layout, SchemeRegistry.Dynamic.Repartitions, SchemeRegistry.Dynamic.Standby), (variant.Layout, variant.Repartitions, variant.Standby));
        Assert.IsType<LearnedScalabilityPolicy>(variant.Policy!());
        Assert.DoesNotContain(variant.Name, SchemeRegistry.Names);
        Assert.Contains(variant.Name, SchemeRegistry.SelectableNames);
    }

    [Fact]
    public void The_no_long_runs_variant_is_dynamic_without_long_runs_first_and_selectable_by_name_only()
    {
        Assert.True(SchemeRegistry.TryFind("dynamic-no-long-runs", out SchemeDefinition? variant));
        Assert.Same(SchemeRegistry.DynamicNoLongRuns, variant);
        Assert.Equal(0, Assert.IsType<LearnedScalabilityPolicy>(variant.Policy!()).LongRunsFirst);
        Assert.Equal(LearnedScalabilityPolicy.DefaultLongRunsFirst, Assert.IsType<LearnedScalabilityPolicy>(SchemeRegistry.Dynamic.Policy!()).LongRunsFirst);
        Assert.Equal((SchemeRegistry.Dynamic.Layout, SchemeRegistry.Dynamic.Repartitions, SchemeRegistry.Dynamic.Standby), (variant.Layout, variant.Repartitions, variant.Standby));
        Assert.DoesNotContain(variant.Name, SchemeRegistry.Names);
        Assert.Contains(variant.Name, SchemeRegistry.SelectableNames);
    }

    private static (IReadOnlyList<WorkloadProgram> Workload, SchemeContext Context) Setup(int programs)
    {
        HarnessMachine machine = HarnessMachine.Detect();
        string[] names = ["quicksort", "mergesort"];
        var sizes = new SizeSelection(SizePreset.Quick, new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase) { ["quicksort"] = 1 << 12, ["mergesort"] = 1 << 12 });
        IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(names[..programs], sizes, seed: 5);
        var profiles = new Dictionary<string, ScalabilityProfile?>(StringComparer.Ordinal)
        {
            // One program with a profile, the other without (speedup 1).
            ["quicksort"] = ScalabilityProfile.FromTimings("quicksort", "4096", TimeSpan.FromSeconds(2),
                [new CoreTiming(1, TimeSpan.FromSeconds(2)), new CoreTiming(machine.CpuCount, TimeSpan.FromSeconds(1))], "test", DateTimeOffset.UnixEpoch),
        };
        return (workload, new SchemeContext(machine, machine.CpuCount, profiles, TimeSpan.FromMilliseconds(10), TimeProvider.System));
    }
}
