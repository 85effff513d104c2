using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Multiprogram.Profiling;

namespace DivCon.Schedulers.Tests.Multiprogram;

public sealed class ScalabilityProfileStoreTests : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "divcon-profiles-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }

    private static ScalabilityProfile Quicksort(string size = "1000000") => ScalabilityProfile.FromTimings(
        "quicksort", size, TimeSpan.FromSeconds(8),
        [new CoreTiming(16, TimeSpan.FromSeconds(1)), new CoreTiming(4, TimeSpan.FromSeconds(2.5)), new CoreTiming(1, TimeSpan.FromSeconds(8.5))],
        "test box, 16 CPUs", new DateTimeOffset(2026, 11, 21, 12, 0, 0, TimeSpan.Zero));

    [Fact]
    public void FromTimings_sorts_and_derives_speedups()
    {
        var profile = Quicksort();
        Assert.Equal([1, 4, 16], profile.ParallelTimes.Select(t => t.Cores));
        Assert.Equal(8 / 8.5, profile.Speedups.SpeedupAt(1), 12);
        Assert.Equal(3.2, profile.Speedups.SpeedupAt(4), 12);
        Assert.Equal(8, profile.WholeMachineSpeedup, 12);
    }

    [Fact]
    public void FromTimings_rejects_bad_timings()
    {
        var when = DateTimeOffset.UnixEpoch;
        Assert.Equal("sequentialTime", Assert.Throws<ArgumentOutOfRangeException>(() =>
            ScalabilityProfile.FromTimings("q", "1", TimeSpan.Zero, [new CoreTiming(1, TimeSpan.FromSeconds(1))], "", when)).ParamName);
        Assert.Equal("parallelTimes", Assert.Throws<ArgumentException>(() =>
            ScalabilityProfile.FromTimings("q", "1", TimeSpan.FromSeconds(1), [], "", when)).ParamName);
        Assert.Equal("parallelTimes", Assert.Throws<ArgumentException>(() =>
            ScalabilityProfile.FromTimings("q", "1", TimeSpan.FromSeconds(1), [new CoreTiming(2, TimeSpan.FromSeconds(1)), new CoreTiming(2, TimeSpan.FromSeconds(2))], "", when)).ParamName);
        Assert.Equal("parallelTimes", Assert.Throws<ArgumentException>(() =>
            ScalabilityProfile.FromTimings("q", "1", TimeSpan.FromSeconds(1), [new CoreTiming(0, TimeSpan.FromSeconds(1))], "", when)).ParamName);
        Assert.Equal("programName", Assert.Throws<ArgumentException>(() =>
            ScalabilityProfile.FromTimings(" ", "1", TimeSpan.FromSeconds(1), [new CoreTiming(1, TimeSpan.FromSeconds(1))], "", when)).ParamName);
    }

    [Fact]
    public void Round_trips_through_a_file()
    {
        string path = Path.Combine(_directory, "nested", "profiles.json");
        var store = new ScalabilityProfileStore();
        store.Set(Quicksort());
        store.Set(Quicksort("10"));
        ScalabilityProfileFile.Save(store, path);

        var loaded = ScalabilityProfileFile.Load(path);
        Assert.Equal(2, loaded.Count);
        Assert.True(loaded.TryGet("quicksort", "1000000", out var profile));
        var original = Quicksort();
        Assert.Equal(original.SequentialTime, profile.SequentialTime);
        Assert.Equal(original.ParallelTimes, profile.ParallelTimes);
        Assert.Equal(original.Speedups, profile.Speedups);
        Assert.Equal(original.Machine, profile.Machine);
        Assert.Equal(original.MeasuredAt, profile.MeasuredAt);
        Assert.False(loaded.TryGet("quicksort", "999", out _));
        Assert.Contains("\"speedup\"", File.ReadAllText(path), StringComparison.Ordinal);
    }

    [Fact]
    public void Set_replaces_the_profile_with_the_same_key()
    {
        var store = new ScalabilityProfileStore();
        store.Set(Quicksort());
        store.Set(Quicksort());
        Assert.Equal(1, store.Count);
        Assert.True(store.Remove("quicksort", "1000000"));
        Assert.Equal(0, store.Count);
    }

    [Fact]
    public void A_missing_file_loads_as_an_empty_store()
    {
        Assert.Equal(0, ScalabilityProfileFile.Load(Path.Combine(_directory, "absent.json")).Count);
    }

    [Theory]
    [InlineData("{ not json")]
    [InlineData("null")]
    [InlineData("{\"version\": 2, \"profiles\": []}")]
    [InlineData("{\"version\": 1, \"profiles\": [{\"programName\": \"q\", \"problemSize\": \"1\", \"sequentialSeconds\": -1, \"parallelTimes\": [{\"cores\": 1, \"seconds\": 1}]}]}")]
    [InlineData("{\"version\": 1, \"profiles\": [{\"problemSize\": \"1\", \"sequentialSeconds\": 1, \"parallelTimes\": [{\"cores\": 1, \"seconds\": 1}]}]}")]
    public void A_corrupt_file_throws_naming_the_path(string content)
    {
        Directory.CreateDirectory(_directory);
        string path = Path.Combine(_directory, "corrupt.json");
        File.WriteAllText(path, content);
        var e = Assert.Throws<InvalidDataException>(() => ScalabilityProfileFile.Load(path));
        Assert.Contains(path, e.Message, StringComparison.Ordinal);
    }
}
