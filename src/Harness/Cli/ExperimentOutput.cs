using System.Collections.Concurrent;
using DivCon.Harness.Experiments;
using DivCon.Harness.Machine;
using DivCon.Harness.Reports;
using DivCon.Harness.Terminal;
using Spectre.Console;

namespace DivCon.Harness.Cli;

/// <summary>
/// Hosts one experiment: creates its stamped results folder (removing the CSV/JSON/Markdown/SVG files a previous run
/// left there, if it has a run stamp), runs the
/// body under a progress display, then prints warnings and where the files are.
/// </summary>
public static class ExperimentOutput
{
    /// <summary>File types an experiment writes; a rerun removes those left in its folder so no stale chart survives.</summary>
    private static readonly string[] s_ownedExtensions = [".csv", ".json", ".md", ".svg"];

    /// <summary>The least time between two progress lines of one phase in plain (non-interactive) output.</summary>
    public static readonly TimeSpan PlainReportInterval = TimeSpan.FromSeconds(1);

    /// <summary>Runs an experiment.</summary>
    /// <typeparam name="T">The body's result.</typeparam>
    /// <param name="host">The host.</param>
    /// <param name="outRoot">Results root.</param>
    /// <param name="experiment">Folder name.</param>
    /// <param name="workers">Worker count (for the stamp).</param>
    /// <param name="body">The experiment, given its context and a warning sink. The context has no console: tables
    /// are written after the progress display closes, by <paramref name="render"/>.</param>
    /// <param name="render">Writes the console tables from the result.</param>
    /// <returns>The body's result.</returns>
    public static async Task<T> RunAsync<T>(
        CliHost host, string outRoot, string experiment, int workers, Func<ExperimentContext, Action<string>, Task<T>> body, Action<T> render)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(body);
        ArgumentNullException.ThrowIfNull(render);
        string path = Path.GetFullPath(Path.Combine(outRoot, experiment));
        // Only a folder an earlier run created (it has a stamp) is cleaned: never someone's own folder named by --out/--name.
        if (File.Exists(Path.Combine(path, ResultsFolder.StampFileName)))
        {
            foreach (string file in Directory.EnumerateFiles(path).Where(f => s_ownedExtensions.Contains(Path.GetExtension(f), StringComparer.OrdinalIgnoreCase)))
            {
                File.Delete(file);
            }
        }

        ResultsFolder folder = ResultsFolder.Create(outRoot, experiment, RunStamp.Capture(host.Machine.Describe(workers), host.CommandLine, host.Time));
        var warnings = new ConcurrentQueue<string>();
        T result = await ProgressDisplay.RunAsync(host.Console, host.Interactive,
            progress => body(new ExperimentContext(folder, host.Interactive ? progress : new ThrottledProgressSink(progress, host.Time, PlainReportInterval), null, host.Time), warnings.Enqueue)).ConfigureAwait(false);
        render(result);
        foreach (string warning in warnings.Distinct(StringComparer.Ordinal))
        {
            await host.Error.WriteLineAsync($"warning: {warning}").ConfigureAwait(false);
        }

        host.Console.WriteLine($"Results: {folder.Path}");
        return result;
    }
}
