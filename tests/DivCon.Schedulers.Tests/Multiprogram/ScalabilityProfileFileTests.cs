using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Multiprogram.Profiling;

namespace DivCon.Schedulers.Tests.Multiprogram;

public sealed class ScalabilityProfileFileTests : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "divcon-profile-file-" + Guid.NewGuid().ToString("N"));

    public ScalabilityProfileFileTests() => Directory.CreateDirectory(_directory);

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    private static ScalabilityProfile Profile(string program, string machine = "test") => ScalabilityProfile.FromTimings(
        program, "100", TimeSpan.FromSeconds(2), [new CoreTiming(1, TimeSpan.FromSeconds(2)), new CoreTiming(2, TimeSpan.FromSeconds(1))], machine, DateTimeOffset.UnixEpoch);

    [Theory]
    [InlineData("{\"version\": 1, \"profiles\": null}", "\"profiles\" is null")]
    [InlineData("{\"version\": 1, \"profiles\": [{\"programName\": \"q\", \"problemSize\": \"1\", \"sequentialSeconds\": 1, \"parallelTimes\": [null]}]}", "Timing 0")]
    [InlineData("{\"version\": 1, \"profiles\": [{\"programName\": \"q\", \"problemSize\": \"1\", \"sequentialSeconds\": 1, \"parallelTimes\": null}]}", "\"parallelTimes\" is null")]
    public void Nulls_in_the_store_are_invalid_data_naming_the_file(string content, string message)
    {
        string path = Path.Combine(_directory, "nulls.json");
        File.WriteAllText(path, content);

        var e = Assert.Throws<InvalidDataException>(() => ScalabilityProfileFile.Load(path));

        Assert.Contains(path, e.Message, StringComparison.Ordinal);
        Assert.Contains(message, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_directory_in_place_of_the_store_is_reported_and_saving_leaves_no_temporary_file()
    {
        string path = Path.Combine(_directory, "profiles.json");
        Directory.CreateDirectory(path);
        var store = new ScalabilityProfileStore();
        store.Set(Profile("q"));

        Assert.Throws<InvalidDataException>(() => ScalabilityProfileFile.Load(path));
        Assert.Throws<InvalidDataException>(() => ScalabilityProfileFile.Save(store, path));
        Assert.Throws<InvalidDataException>(() => ScalabilityProfileFile.EnsureWritable(path));
        Assert.Equal([path], Directory.GetFileSystemEntries(_directory));
    }

    [Fact]
    public void Two_writers_that_loaded_the_same_store_keep_each_others_profiles()
    {
        string path = Path.Combine(_directory, "shared.json");
        ScalabilityProfileStore first = ScalabilityProfileFile.Load(path);   // both runs start from the same (empty) store
        ScalabilityProfileStore second = ScalabilityProfileFile.Load(path);
        first.Set(Profile("quicksort"));
        second.Set(Profile("mergesort"));

        ScalabilityProfileFile.Merge(path, first.Profiles);
        ScalabilityProfileFile.Merge(path, second.Profiles);

        Assert.Equal(["mergesort", "quicksort"], ScalabilityProfileFile.Load(path).Profiles.Select(p => p.ProgramName).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task A_merge_waits_for_the_lock_and_then_keeps_what_the_holder_wrote()
    {
        string path = Path.Combine(_directory, "locked.json");
        Task merge;
        var waiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using (FileStream held = ScalabilityProfileFile.AcquireLock(path, TimeSpan.FromSeconds(5)))
        {
            merge = Task.Run(() => ScalabilityProfileFile.MergeReportingWait(path, [Profile("waiter")], TimeSpan.FromSeconds(30), () => waiting.TrySetResult()));
            // While the lock is held, the holder writes its own profile; the waiter must read it after the lock is released.
            var holder = new ScalabilityProfileStore();
            holder.Set(Profile("holder"));
            ScalabilityProfileFile.Save(holder, path);
            await waiting.Task.WaitAsync(TimeSpan.FromSeconds(30)); // the merge has found the lock held
            Assert.False(merge.IsCompleted);
        }

        await merge.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(["holder", "waiter"], ScalabilityProfileFile.Load(path).Profiles.Select(p => p.ProgramName).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void A_lock_held_past_the_timeout_is_an_io_error()
    {
        string path = Path.Combine(_directory, "busy.json");
        using FileStream held = ScalabilityProfileFile.AcquireLock(path, TimeSpan.FromSeconds(5));

        var e = Assert.Throws<IOException>(() => ScalabilityProfileFile.Merge(path, [Profile("late")], TimeSpan.FromMilliseconds(100)));

        Assert.Contains("locked", e.Message, StringComparison.Ordinal);
        Assert.False(File.Exists(path));
    }

    [Fact]
    public void An_unwritable_location_is_found_before_measuring()
    {
        string blocker = Path.Combine(_directory, "a-file");
        File.WriteAllText(blocker, "x");

        Assert.Throws<IOException>(() => ScalabilityProfileFile.EnsureWritable(Path.Combine(blocker, "profiles.json")));
        ScalabilityProfileFile.EnsureWritable(Path.Combine(_directory, "new", "profiles.json")); // creates the folder only
        Assert.Empty(Directory.GetFiles(Path.Combine(_directory, "new")));
    }
}
