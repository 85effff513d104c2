using System.Globalization;

namespace DivCon.Harness.Reports;

/// <summary>
/// Where one experiment's files go while it runs, and how they become its results: every file is written into a
/// fresh hidden folder beside the target (<c>&lt;root&gt;/.&lt;experiment&gt;.incomplete-&lt;id&gt;</c>); only a
/// run that succeeds publishes it, by renaming it to <c>&lt;root&gt;/&lt;experiment&gt;</c>.
/// </summary>
/// <remarks>
/// <para><b>Nothing is destroyed.</b> Results already in the target folder are moved aside to
/// <c>&lt;experiment&gt;.previous-&lt;their UTC date&gt;</c> before the new ones are renamed into place (both renames
/// stay inside the results root, so each is atomic). A run that fails or is cancelled leaves the target untouched; what
/// it completed (files beyond the stamp and the setup) is kept in <c>&lt;experiment&gt;.partial-&lt;UTC date&gt;</c>
/// with a <c>PARTIAL.md</c> saying why, and a staging folder holding nothing else is removed.</para>
/// <para>A target that exists, is not empty and has no <c>stamp.json</c> is somebody's own folder: it is refused before
/// anything runs.</para>
/// </remarks>
public sealed class StagedResultsFolder
{
    /// <summary>Name of the note that marks a partial folder.</summary>
    public const string PartialNoteFileName = "PARTIAL.md";

    /// <summary>Files a run writes before it measures anything; a staging folder holding only these is not worth keeping.</summary>
    private static readonly string[] s_setupFiles = [ResultsFolder.StampFileName, "setup.json"];

    private readonly TimeProvider _time;

    private StagedResultsFolder(string root, string experiment, string staging, TimeProvider time)
    {
        Root = root;
        Experiment = experiment;
        StagingPath = staging;
        TargetPath = Path.Combine(root, experiment);
        _time = time;
    }

    /// <summary>The results root (full path).</summary>
    public string Root { get; }

    /// <summary>The experiment's folder name.</summary>
    public string Experiment { get; }

    /// <summary>The folder the run writes into (full path).</summary>
    public string StagingPath { get; }

    /// <summary>Where the results are published (full path).</summary>
    public string TargetPath { get; }

    /// <summary>
    /// Checks the target, creates the results root and a fresh staging folder in it (which also proves the root is
    /// writable), before anything is measured.
    /// </summary>
    /// <param name="resultsRoot">The results root (e.g. "results").</param>
    /// <param name="experiment">The experiment's folder name (see <see cref="ResultsFolder.Create"/>).</param>
    /// <param name="time">The clock naming moved-aside and partial folders.</param>
    /// <returns>The staged folder.</returns>
    /// <exception cref="ArgumentException">The name is not a plain folder name, or the target is a folder that is not
    /// a results folder, or a file.</exception>
    /// <exception cref="IOException">The root cannot be created or written.</exception>
    public static StagedResultsFolder Prepare(string resultsRoot, string experiment, TimeProvider time)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(resultsRoot);
        ResultsFolder.ValidateName(experiment);
        ArgumentNullException.ThrowIfNull(time);
        string root = Path.GetFullPath(resultsRoot);
        string target = Path.Combine(root, experiment);
        if (File.Exists(target))
        {
            throw new ArgumentException($"'{target}' is a file, not a results folder: choose another --out or --name.", nameof(experiment));
        }

        if (Directory.Exists(target) && !File.Exists(Path.Combine(target, ResultsFolder.StampFileName)) && Directory.EnumerateFileSystemEntries(target).Any())
        {
            throw new ArgumentException(
                $"'{target}' exists and is not a results folder (it has no {ResultsFolder.StampFileName}): choose another --out or --name; nothing was run.", nameof(experiment));
        }

        string staging = Path.Combine(root, $".{experiment}.incomplete-{Guid.NewGuid():N}");
        try
        {
            Directory.CreateDirectory(root);
            Directory.CreateDirectory(staging);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new IOException($"Cannot write results under '{root}' (--out): {e.Message}", e);
        }

        return new StagedResultsFolder(root, experiment, staging, time);
    }

    /// <summary>Publishes the staged files as the results: any previous results are moved aside, then the staging folder
    /// is renamed to the target.</summary>
    /// <returns>Where the previous results went, or null when there were none.</returns>
    public string? Publish()
    {
        string? previous = null;
        if (Directory.Exists(TargetPath))
        {
            if (Directory.EnumerateFileSystemEntries(TargetPath).Any())
            {
                previous = FreeName($"{Experiment}.previous-{Label(StampDate(TargetPath) ?? Directory.GetLastWriteTimeUtc(TargetPath))}");
                Directory.Move(TargetPath, previous);
            }
            else
            {
                Directory.Delete(TargetPath);
            }
        }

        Directory.Move(StagingPath, TargetPath);
        return previous;
    }

    /// <summary>After a failed or cancelled run: keeps what it completed in a partial folder marked by
    /// <see cref="PartialNoteFileName"/>, or removes the staging folder when it holds nothing measured. The target is
    /// never touched.</summary>
    /// <param name="reason">Why the run ended (one line).</param>
    /// <returns>The partial folder, or null when nothing was kept. A note that cannot be written (e.g. on a full disk)
    /// does not keep the folder from being renamed.</returns>
    public string? KeepPartial(string reason)
    {
        ArgumentNullException.ThrowIfNull(reason);
        if (!Directory.Exists(StagingPath))
        {
            return null;
        }

        bool measured = Directory.EnumerateFileSystemEntries(StagingPath)
            .Any(f => !s_setupFiles.Contains(Path.GetFileName(f), StringComparer.Ordinal));
        if (!measured)
        {
            Directory.Delete(StagingPath, recursive: true);
            return null;
        }

        DateTimeOffset now = _time.GetUtcNow();
        try
        {
            File.WriteAllLines(Path.Combine(StagingPath, PartialNoteFileName),
            [
                "# Partial results",
                "",
                string.Create(CultureInfo.InvariantCulture, $"This run of `{Experiment}` did not finish ({now:yyyy-MM-dd HH:mm:ss}Z): {reason}"),
                "",
                "The files here hold only what completed before it ended (e.g. the isolated timings and the schemes, sweep",
                "points or programs that finished); summaries, metrics and charts of the whole run are missing.",
                $"The complete results of earlier runs, if any, are untouched in `../{Experiment}/`.",
            ]);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // The run's own failure may be the reason the note cannot be written (a full disk): the folder's name
            // still says the results are partial, and a rename needs no space.
        }

        string partial = FreeName($"{Experiment}.partial-{Label(now)}");
        Directory.Move(StagingPath, partial);
        return partial;
    }

    private static string Label(DateTimeOffset time) => time.UtcDateTime.ToString("yyyyMMdd'T'HHmmss'Z'", CultureInfo.InvariantCulture);

    private static DateTimeOffset? StampDate(string folder)
    {
        try
        {
            using var stream = File.OpenRead(Path.Combine(folder, ResultsFolder.StampFileName));
            using var document = System.Text.Json.JsonDocument.Parse(stream);
            return document.RootElement.TryGetProperty("utcDate", out var date) && date.TryGetDateTimeOffset(out DateTimeOffset value) ? value : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.Text.Json.JsonException)
        {
            return null; // the folder's own time names it instead
        }
    }

    private string FreeName(string name)
    {
        string path = Path.Combine(Root, name);
        for (int i = 2; Directory.Exists(path) || File.Exists(path); i++)
        {
            path = Path.Combine(Root, string.Create(CultureInfo.InvariantCulture, $"{name}-{i}"));
        }

        return path;
    }
}
