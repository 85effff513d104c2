using DivCon.Harness.Cli;
using DivCon.Harness.Machine;
using DivCon.Harness.Measurement;
using DivCon.Harness.Workload;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Harness.Tests.Cli;

public sealed class ProfileResolverTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-profiles-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public async Task Finds_stored_profiles_by_name_and_size_and_warns_for_missing_ones_under_the_unit_fallback()
    {
        Directory.CreateDirectory(_root);
        string path = Path.Combine(_root, "profiles.json");
        var store = new ScalabilityProfileStore();
        store.Set(ScalabilityProfile.FromTimings("quicksort", "1000", TimeSpan.FromSeconds(2),
            [new CoreTiming(1, TimeSpan.FromSeconds(2)), new CoreTiming(2, TimeSpan.FromSeconds(1.25))], "test", DateTimeOffset.UnixEpoch));
        DivCon.Schedulers.Multiprogram.Profiling.ScalabilityProfileFile.Save(store, path);
        var sizes = new SizeSelection(SizePreset.Quick, new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase) { ["quicksort"] = 1000, ["mergesort"] = 1000 });
        IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(["quicksort", "mergesort"], sizes, seed: 1);
        var warnings = new List<string>();
        var resolver = new ProfileResolver(path, ProfileFallback.Unit, HarnessMachine.Detect(), workers: 1);

        IReadOnlyDictionary<string, ScalabilityProfile?> profiles = await resolver.ResolveAsync(workload, measureMissing: true, NullProgressSink.Instance, warnings.Add, CancellationToken.None);

        Assert.Equal(1.6, profiles["quicksort"]!.WholeMachineSpeedup, 9);
        Assert.Null(profiles["mergesort"]);
        Assert.Contains(warnings, w => w.Contains("mergesort", StringComparison.Ordinal) && w.Contains("speedup 1", StringComparison.Ordinal));
        Assert.Null(ProfileResolver.OracleTables(profiles)); // not every program has a profile
    }

    [Fact]
    public async Task Lookup_only_neither_measures_nor_warns_and_a_full_set_gives_oracle_tables()
    {
        var sizes = new SizeSelection(SizePreset.Quick, new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase) { ["quicksort"] = 1000 });
        IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(["quicksort"], sizes, seed: 1);
        var warnings = new List<string>();
        string path = Path.Combine(_root, "none.json");
        var resolver = new ProfileResolver(path, ProfileFallback.Measure, HarnessMachine.Detect(), workers: 1);

        IReadOnlyDictionary<string, ScalabilityProfile?> profiles = await resolver.ResolveAsync(workload, measureMissing: false, NullProgressSink.Instance, warnings.Add, CancellationToken.None);

        Assert.Null(profiles["quicksort"]);
        Assert.Empty(warnings);
        Assert.False(File.Exists(path));
        var full = new Dictionary<string, ScalabilityProfile?>
        {
            ["a"] = ScalabilityProfile.FromTimings("a", "1", TimeSpan.FromSeconds(1), [new CoreTiming(2, TimeSpan.FromSeconds(0.5))], "", DateTimeOffset.UnixEpoch),
        };
        Assert.Equal(2.0, Assert.Single(ProfileResolver.OracleTables(full)!).SpeedupAt(2), 9);
    }

    [Fact]
    public async Task A_corrupt_store_is_an_invalid_data_error_naming_the_file()
    {
        Directory.CreateDirectory(_root);
        string path = Path.Combine(_root, "broken.json");
        await File.WriteAllTextAsync(path, "{ not json");
        var resolver = new ProfileResolver(path, ProfileFallback.Unit, HarnessMachine.Detect(), workers: 1);
        var e = await Assert.ThrowsAsync<InvalidDataException>(() => resolver.ResolveAsync([], true, NullProgressSink.Instance, _ => { }, CancellationToken.None));
        Assert.Contains("broken.json", e.Message, StringComparison.Ordinal);
    }
}
