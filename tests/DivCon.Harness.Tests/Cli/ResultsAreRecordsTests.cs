using System.CommandLine;
using DivCon.Harness.Cli;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Multiprogram.Profiling;

namespace DivCon.Harness.Tests.Cli;

/// <summary>
/// Results are records: a rerun that fails or is cancelled never destroys earlier results, default runs never write
/// the committed folder, the profile store survives bad content and sharing, and errors are one line with a
/// documented exit code.
/// </summary>
[Collection(LiveSchedulersTestGroup.Name)]
public sealed class ResultsAreRecordsTests : IDisposable
{
    private static readonly string[] TinySizes = ["--sizes", "quicksort=2^13", "mergesort=2^13", "strassen=64"];

    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-records-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public async Task A_rerun_that_fails_leaves_the_previous_complete_results_untouched()
    {
        string[] first = ["cyclic", "--programs", "quicksort", "--schemes", "shared", "--duration", "0.2", "--runs", "1", "--warmup", "0", "--name", "c", "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(first);
        Assert.True(exitCode == 0, error);
        string folder = Path.Combine(_root, "c");
        Dictionary<string, string> before = Directory.GetFiles(folder).ToDictionary(f => Path.GetFileName(f), File.ReadAllText);
        string bad = Path.Combine(_root, "bad-profiles.json");
        await File.WriteAllTextAsync(bad, "{ not json");

        string[] rerun = ["cyclic", "--programs", "quicksort", "--schemes", "static", "--profiles", bad, "--duration", "0.2", "--runs", "1", "--warmup", "0", "--name", "c", "--out", _root, .. TinySizes];
        (exitCode, _, error) = await CliRunner.RunAsync(rerun);

        Assert.Equal(CommandActions.BadInput, exitCode);
        Assert.Contains("bad-profiles.json", error, StringComparison.Ordinal);
        Assert.Contains("runs.csv", before.Keys);
        Assert.Equal(before, Directory.GetFiles(folder).ToDictionary(f => Path.GetFileName(f), File.ReadAllText));
        Assert.DoesNotContain(Directory.GetDirectories(_root), d => Path.GetFileName(d) != "c"); // nothing measured, nothing kept
    }

    [Theory]
    [InlineData(30)]
    [InlineData(300)]
    [InlineData(1500)]
    public async Task A_cancelled_run_says_Cancelled_keeps_the_old_results_and_leaves_no_staging_folder(int cancelAfterMilliseconds)
    {
        string[] first = ["phases", "--programs", "quicksort", "--runs", "1", "--out", _root, .. TinySizes];
        var (exitCode, output, error) = await CliRunner.RunAsync(first);
        Assert.True(exitCode == 0, error);
        Assert.Contains("warm-up", output, StringComparison.Ordinal); // the warm-up reports progress
        string summary = await File.ReadAllTextAsync(Path.Combine(_root, "phases", "summary.md"));

        // Big enough that the run is still going when the token fires (building the input, warming up or measuring).
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(cancelAfterMilliseconds));
        (exitCode, _, error) = await CliRunner.RunAsync(cancel.Token, "phases", "--programs", "quicksort", "--runs", "50", "--out", _root, "--sizes", "quicksort=2^24");

        Assert.Equal(CommandActions.Cancelled, exitCode);
        Assert.Contains("Cancelled.", error, StringComparison.Ordinal);
        Assert.Equal(summary, await File.ReadAllTextAsync(Path.Combine(_root, "phases", "summary.md")));
        Assert.Empty(Directory.GetDirectories(_root, ".*"));
    }

    [Fact]
    public void Without_out_results_and_profiles_go_to_the_ignored_folder_and_the_committed_profiles_are_only_read()
    {
        CliHost host = CliHost.ForWriters(TextWriter.Null, TextWriter.Null, "test");
        var common = new CommonOptions(host, ["quicksort"]);
        var schemes = new SchemeOptions(["shared"], 1, "1 s");
        var command = new RootCommand();
        common.AddTo(command);
        schemes.AddTo(command);

        CommonSettings adHoc = common.Read(command.Parse([]), host.Machine);
        SchemeSettings adHocSchemes = schemes.Read(command.Parse([]), adHoc, TimeSpan.FromSeconds(1));
        CommonSettings reference = common.Read(command.Parse(["--out", "results"]), host.Machine);
        SchemeSettings referenceSchemes = schemes.Read(command.Parse(["--out", "results"]), reference, TimeSpan.FromSeconds(1));

        Assert.Equal(CommonOptions.AdHocRoot, adHoc.OutRoot);
        Assert.Equal(Path.Combine(CommonOptions.AdHocRoot, "profiles.json"), adHocSchemes.ProfilesPath);
        Assert.Equal(Path.Combine("results", "profiles.json"), adHocSchemes.ReferenceProfilesPath);
        Assert.Equal("results", reference.OutRoot);
        Assert.Equal(Path.Combine("results", "profiles.json"), referenceSchemes.ProfilesPath);
        Assert.Null(referenceSchemes.ReferenceProfilesPath);
        string ignored = File.ReadAllText(Path.Combine(RepositoryRoot(), ".gitignore"));
        Assert.Contains($"/{CommonOptions.AdHocRoot}/", ignored, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("{\"version\": 1, \"profiles\": null}", "\"profiles\" is null")]
    [InlineData("{\"version\": 1, \"profiles\": [{\"programName\": \"quicksort\", \"problemSize\": \"8192\", \"sequentialSeconds\": 1, \"parallelTimes\": [null]}]}", "Timing 0")]
    public async Task A_store_with_nulls_is_a_one_line_bad_input_error_not_a_crash(string content, string message)
    {
        Directory.CreateDirectory(_root);
        string store = Path.Combine(_root, "profiles.json");
        await File.WriteAllTextAsync(store, content);

        string[] args = ["cyclic", "--programs", "quicksort", "--schemes", "static", "--profiles", store, "--duration", "0.2", "--runs", "1", "--warmup", "0", "--out", _root, .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);

        Assert.Equal(CommandActions.BadInput, exitCode);
        Assert.Contains(message, error, StringComparison.Ordinal);
        Assert.DoesNotContain("NullReference", error, StringComparison.Ordinal);
        Assert.Single(error.Trim().Split('\n'));
    }

    [Fact]
    public async Task An_unwritable_profile_store_stops_scalability_before_it_measures()
    {
        Directory.CreateDirectory(_root);
        string blocker = Path.Combine(_root, "a-file");
        await File.WriteAllTextAsync(blocker, "x");

        string[] args = ["scalability", "--programs", "quicksort", "--runs", "1", "--warmup", "0", "--profiles", Path.Combine(blocker, "profiles.json"), "--out", _root, .. TinySizes];
        var (exitCode, output, error) = await CliRunner.RunAsync(args);

        Assert.Equal(CommandActions.EnvironmentError, exitCode);
        Assert.Contains("cannot be written", error, StringComparison.Ordinal);
        Assert.DoesNotContain("[scalability]", output, StringComparison.Ordinal); // no sweep ran
        Assert.False(Directory.Exists(Path.Combine(_root, "scalability")));
    }

    [Fact]
    public async Task A_full_disk_reports_the_first_error_and_keeps_what_finished_as_partial()
    {
        // The run's failure is a full disk, and the same failure meets PARTIAL.md: the injected failure is a folder
        // where the note goes, so writing the note fails with an I/O error of its own.
        var output = new StringWriter();
        var error = new StringWriter();
        CliHost host = CliHost.ForWriters(output, error, "divcon test");
        int exitCode = await CommandActions.RunAsync(host, () => ExperimentOutput.RunAsync<int>(host, _root, "exp", 1, (context, _) =>
        {
            context.Output.WriteText("finished.csv", w => w.WriteLine("a,b"));
            Directory.CreateDirectory(Path.Combine(context.Output.Path, DivCon.Harness.Reports.StagedResultsFolder.PartialNoteFileName));
            throw new IOException("No space left on device : 'runs.csv'");
        }, _ => { }));

        Assert.Equal(CommandActions.EnvironmentError, exitCode);
        string[] errorLines = error.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal("error: No space left on device : 'runs.csv'", errorLines[^1].TrimEnd('\r'));
        Assert.Single(errorLines, l => l.StartsWith("error:", StringComparison.Ordinal));
        string[] folders = [.. Directory.GetDirectories(_root).Select(Path.GetFileName)!];
        string partial = Assert.Single(folders);
        Assert.StartsWith("exp.partial-", partial, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(_root, partial, "finished.csv")));
        Assert.Contains(errorLines, l => l.Contains(partial, StringComparison.Ordinal));
    }

    [Fact]
    public async Task An_unwritable_out_is_one_line_without_a_stack_trace()
    {
        Directory.CreateDirectory(_root);
        string blocker = Path.Combine(_root, "a-file");
        await File.WriteAllTextAsync(blocker, "x");

        string[] args = ["phases", "--programs", "quicksort", "--runs", "1", "--out", Path.Combine(blocker, "out"), .. TinySizes];
        var (exitCode, _, error) = await CliRunner.RunAsync(args);

        Assert.Equal(CommandActions.EnvironmentError, exitCode);
        Assert.StartsWith("error: Cannot write results under", error, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", error, StringComparison.Ordinal);
        Assert.Single(error.Trim().Split('\n'));
    }

    [Fact]
    public async Task Quick_profiles_of_an_ad_hoc_run_go_to_its_store_and_the_reference_store_is_only_read()
    {
        Directory.CreateDirectory(_root);
        string reference = Path.Combine(_root, "reference.json");
        var committed = new ScalabilityProfileStore();
        committed.Set(ScalabilityProfile.FromTimings("quicksort", "8192", TimeSpan.FromSeconds(2),
            [new CoreTiming(1, TimeSpan.FromSeconds(2)), new CoreTiming(2, TimeSpan.FromSeconds(1))], "reference", DateTimeOffset.UnixEpoch));
        ScalabilityProfileFile.Save(committed, reference);
        byte[] referenceBytes = await File.ReadAllBytesAsync(reference);
        string local = Path.Combine(_root, "local", "profiles.json");
        var sizes = new DivCon.Harness.Workload.SizeSelection(DivCon.Programs.SizePreset.Quick,
            new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase) { ["quicksort"] = 8192, ["mergesort"] = 8192 });
        var workload = DivCon.Harness.Workload.WorkloadBuilder.Distinct(["quicksort", "mergesort"], sizes, seed: 1);
        var resolver = new DivCon.Harness.Cli.ProfileResolver(local, DivCon.Harness.Cli.ProfileFallback.Measure, DivCon.Harness.Machine.HarnessMachine.Detect(), workers: 1, reference);

        var profiles = await resolver.ResolveAsync(workload, measureMissing: true, DivCon.Harness.Measurement.NullProgressSink.Instance, _ => { }, CancellationToken.None);

        Assert.Equal("reference", profiles["quicksort"]!.Machine);
        Assert.NotNull(profiles["mergesort"]);
        Assert.Equal(referenceBytes, await File.ReadAllBytesAsync(reference));
        ScalabilityProfileStore written = ScalabilityProfileFile.Load(local);
        Assert.Equal(["mergesort"], written.Profiles.Select(p => p.ProgramName));
    }

    private static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "DivCon.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("The repository root (DivCon.sln) was not found above the test binaries.");
    }
}
