using System.Collections.Concurrent;
using DivCon.Harness.Experiments;
using DivCon.Harness.Machine;
using DivCon.Harness.Reports;
using DivCon.Harness.Terminal;
using Spectre.Console;

namespace DivCon.Harness.Cli;

/// <summary>
/// Hosts one experiment: stages its stamped results folder (<see cref="StagedResultsFolder"/>), runs the body under a
/// progress display, publishes the folder only when the body succeeds (earlier results are moved aside, never
/// deleted), keeps what a failed or cancelled run completed in a partial folder, then prints warnings and where the
/// files are.
/// </summary>
public static class ExperimentOutput
{
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
    /// <param name="cancellationToken">The run's cancellation: once cancelled, what completed is kept as partial at
    /// once, without waiting for a program run that does not observe the token.</param>
    /// <returns>The body's result.</returns>
    public static async Task<T> RunAsync<T>(
        CliHost host, string outRoot, string experiment, int workers, Func<ExperimentContext, Action<string>, Task<T>> body, Action<T> render,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(body);
        ArgumentNullException.ThrowIfNull(render);
        cancellationToken.ThrowIfCancellationRequested(); // cancelled while the workload was being built: create nothing
        StagedResultsFolder staged = StagedResultsFolder.Prepare(outRoot, experiment, host.Time);
        var warnings = new ConcurrentQueue<string>();
        T result;
        try
        {
            ResultsFolder folder = ResultsFolder.CreateAt(staged.StagingPath, experiment, RunStamp.Capture(host.Machine.Describe(workers), host.CommandLine, host.Time));
            result = await ProgressDisplay.RunAsync(host.Console, host.Interactive,
                progress => body(new ExperimentContext(folder, host.Interactive ? progress : new ThrottledProgressSink(progress, host.Time, PlainReportInterval), host.Time), warnings.Enqueue))
                .WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            await WriteWarningsAsync(host, warnings).ConfigureAwait(false);
            string? partial;
            try
            {
                partial = staged.KeepPartial(e is OperationCanceledException ? "cancelled." : CommandActions.OneLine(e));
            }
            catch (Exception keep) when (keep is IOException or UnauthorizedAccessException)
            {
                // The run's own failure is the error to report (it is rethrown below); this one is its consequence.
                partial = null;
                await host.Error.WriteLineAsync($"warning: could not keep the partial results in {staged.StagingPath}: {CommandActions.OneLine(keep)}").ConfigureAwait(false);
            }

            if (partial is not null)
            {
                await host.Error.WriteLineAsync($"Partial results (what completed before the run ended): {partial}").ConfigureAwait(false);
            }

            throw;
        }

        string? previous = staged.Publish();
        render(result);
        await WriteWarningsAsync(host, warnings).ConfigureAwait(false);
        host.Console.WriteLine($"Results: {staged.TargetPath}");
        if (string.Equals(Path.GetFullPath(outRoot), Path.GetFullPath(CommonOptions.AdHocRoot), StringComparison.Ordinal))
        {
            host.Console.WriteLine($"(ad-hoc results, ignored by git; reference results are written with --out {CommonOptions.ReferenceRoot})");
        }
        if (previous is not null)
        {
            host.Console.WriteLine($"Previous results moved to: {previous}");
        }

        return result;
    }

    private static async Task WriteWarningsAsync(CliHost host, ConcurrentQueue<string> warnings)
    {
        foreach (string warning in warnings.Distinct(StringComparer.Ordinal))
        {
            await host.Error.WriteLineAsync($"warning: {warning}").ConfigureAwait(false);
        }

        warnings.Clear();
    }
}
