using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Reports;

public sealed class StagedResultsFolderTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-staged-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public void A_failed_run_keeps_what_it_completed_in_a_marked_partial_folder_and_leaves_the_old_results_alone()
    {
        string target = Path.Combine(_root, "cyclic");
        Directory.CreateDirectory(target);
        File.WriteAllText(Path.Combine(target, ResultsFolder.StampFileName), "{}");
        File.WriteAllText(Path.Combine(target, "runs.csv"), "old");
        var clock = new ManualTimeProvider(); // 2026-01-01 00:00:00Z

        StagedResultsFolder staged = StagedResultsFolder.Prepare(_root, "cyclic", clock);
        ResultsFolder folder = ResultsFolder.CreateAt(staged.StagingPath, "cyclic", Samples.Stamp);
        folder.WriteText("isolated.csv", w => w.Write("program,run_index,seconds"));
        string? partial = staged.KeepPartial("cancelled.");

        Assert.Equal(Path.Combine(_root, "cyclic.partial-20260101T000000Z"), partial);
        Assert.True(File.Exists(Path.Combine(partial!, "isolated.csv")));
        Assert.Contains("cancelled.", File.ReadAllText(Path.Combine(partial!, StagedResultsFolder.PartialNoteFileName)), StringComparison.Ordinal);
        Assert.Equal("old", File.ReadAllText(Path.Combine(target, "runs.csv")));
        Assert.False(Directory.Exists(staged.StagingPath));
    }

    [Fact]
    public void A_run_that_measured_nothing_leaves_no_folder_behind()
    {
        StagedResultsFolder staged = StagedResultsFolder.Prepare(_root, "phases", TimeProvider.System);
        ResultsFolder.CreateAt(staged.StagingPath, "phases", Samples.Stamp).WriteJson("setup.json", new { });

        Assert.Null(staged.KeepPartial("bad profiles"));
        Assert.Empty(Directory.GetFileSystemEntries(_root));
    }

    [Fact]
    public void Publishing_renames_the_staging_folder_and_moves_earlier_results_aside()
    {
        string target = Path.Combine(_root, "demo");
        Directory.CreateDirectory(target);
        File.WriteAllText(Path.Combine(target, ResultsFolder.StampFileName), "{\"utcDate\": \"2026-11-21T08:09:10Z\"}");
        StagedResultsFolder staged = StagedResultsFolder.Prepare(_root, "demo", TimeProvider.System);
        ResultsFolder.CreateAt(staged.StagingPath, "demo", Samples.Stamp).WriteText("runs.csv", w => w.Write("new"));

        string? previous = staged.Publish();

        Assert.Equal(Path.Combine(_root, "demo.previous-20261121T080910Z"), previous);
        Assert.Equal("new", File.ReadAllText(Path.Combine(target, "runs.csv")));
        Assert.True(File.Exists(Path.Combine(previous!, ResultsFolder.StampFileName)));
        Assert.Equal(2, Directory.GetDirectories(_root).Length);
    }

    [Fact]
    public void A_foreign_folder_or_a_file_in_the_way_is_refused_before_anything_runs()
    {
        Directory.CreateDirectory(Path.Combine(_root, "mine"));
        File.WriteAllText(Path.Combine(_root, "mine", "notes.md"), "x");
        File.WriteAllText(Path.Combine(_root, "afile"), "x");

        Assert.Contains("not a results folder", Assert.Throws<ArgumentException>(() => StagedResultsFolder.Prepare(_root, "mine", TimeProvider.System)).Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => StagedResultsFolder.Prepare(_root, "afile", TimeProvider.System));
        Assert.Throws<IOException>(() => StagedResultsFolder.Prepare(Path.Combine(_root, "afile", "below"), "x", TimeProvider.System));
        Assert.Equal(2, Directory.GetFileSystemEntries(_root).Length); // nothing created
    }
}
