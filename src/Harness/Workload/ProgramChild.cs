using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;

namespace DivCon.Harness.Workload;

/// <summary>
/// One child process of the <c>processes</c> experiment, running one program on request. Protocol (lines): the child
/// writes <c>ready &lt;domain status&gt;</c> once its scheduler is up and it has run its program once, unrecorded (a
/// warm-up); for each <c>run</c> the parent writes, it runs the program once and writes <c>done</c> (or
/// <c>error &lt;message&gt;</c>); end of input ends it. A child that dies (killed)
/// closes its output: the run in flight, or the next one, reports it.
/// </summary>
/// <remarks>
/// The parent keeps the next <c>run</c> queued: as soon as a run is done it writes the next request, so the child
/// restarts its program at once, as the one-process mode does, instead of after a round trip through the parent (on a
/// loaded machine the parent's thread waits for a CPU to read <c>done</c>, and the child's for one to read the next
/// request: measured at thesis size, 1-4 ms per restart on average and up to 13 ms, during which a joined child's CPUs
/// idle). The parent still times each run from its own call (<see cref="RunOnceAsync"/>) to the reply it reads; the
/// reply's delay, which ends one run's timing, also starts the next one's, so it is not charged to the runs. A queued
/// run that nobody asks for any more (the test ended) is not waited for: disposal kills the child.
/// </remarks>
internal sealed class ProgramChild : IAsyncDisposable
{
    private static readonly TimeSpan ExitGrace = TimeSpan.FromSeconds(10);
    private readonly Process _process;
    private readonly ConcurrentQueue<string> _errors = new();

    private ProgramChild(Process process, string program, TimeSpan timeout)
    {
        _process = process;
        _program = program;
        _timeout = timeout;
    }

    private readonly string _program;
    private readonly TimeSpan _timeout;

    private int _runs;

    // A "run" line written ahead whose reply is not read yet. Only the caller of RunOnceAsync (one run at a time) and
    // DisposeAsync (after the last run) touch it.
    private bool _queued;

    /// <summary>Runs the child has completed.</summary>
    public int Runs => Volatile.Read(ref _runs);

    /// <summary>The child's process id.</summary>
    public int Id => _process.Id;

    /// <summary>What the child said about its machine domain when ready ("-" when none was asked for).</summary>
    public string Status { get; private set; } = "-";

    /// <summary>How the harness starts itself as the child of <paramref name="launch"/>.</summary>
    /// <param name="launch">What it runs.</param>
    /// <returns>The start information (the streams are redirected by <see cref="StartAsync"/>).</returns>
    public static ProcessStartInfo StartInfoOf(ChildLaunch launch)
    {
        ArgumentNullException.ThrowIfNull(launch);
        (string file, IReadOnlyList<string> prefix) = ChildLaunch.Self();
        var info = new ProcessStartInfo(file);
        foreach (string arg in prefix.Concat(launch.Arguments()))
        {
            info.ArgumentList.Add(arg);
        }

        return info;
    }

    /// <summary>Starts a child and waits until it is ready.</summary>
    /// <param name="launch">What it runs.</param>
    /// <param name="info">How it is started (<see cref="StartInfoOf"/>, or a stand-in).</param>
    /// <param name="timeout">How long the child may take to say ready, and to answer each run.</param>
    /// <param name="cancellationToken">Cancels the start (the child is killed).</param>
    /// <returns>The ready child, or null when it died before it was ready (killed while starting).</returns>
    /// <exception cref="InvalidOperationException">The child refused to start (its last error lines are in the message).</exception>
    /// <exception cref="TimeoutException">The child was not ready within <paramref name="timeout"/> (it is killed).</exception>
    public static async Task<ProgramChild?> StartAsync(ChildLaunch launch, ProcessStartInfo info, TimeSpan timeout, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(launch);
        ArgumentNullException.ThrowIfNull(info);
        string file = info.FileName;
        info.RedirectStandardInput = true;
        info.RedirectStandardOutput = true;
        info.RedirectStandardError = true;
        info.UseShellExecute = false;

        if (launch.Mode == ProcessMode.Independent)
        {
            // Each independent child believes it owns every CPU of the run: the thread pool sized to them.
            info.Environment["DOTNET_PROCESSOR_COUNT"] = launch.Cpus.Count.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }

        info.Environment.Remove(Schedulers.Multiprogram.MachineDomainOptions.EnvironmentVariable); // only the mode decides
        var process = Process.Start(info) ?? throw new InvalidOperationException($"Could not start {file}.");
        var child = new ProgramChild(process, launch.Program, timeout);
        process.ErrorDataReceived += (_, e) => child.KeepError(e.Data);
        process.BeginErrorReadLine();
        string? ready;
        try
        {
            ready = await child.ReadReplyAsync("ready", cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or TimeoutException)
        {
            child.Kill();
            await child.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        if (ready is null || !ready.StartsWith("ready", StringComparison.Ordinal))
        {
            bool killed = ready is null && await child.ExitedBySignalAsync().ConfigureAwait(false);
            string errors = child.Errors();
            await child.DisposeAsync().ConfigureAwait(false);
            return killed ? null : throw new InvalidOperationException($"The child for {launch.Program} did not start: {ready ?? "no output"} {errors}".Trim());
        }

        child.Status = ready.Length > 6 ? ready[6..] : "-";
        return child;
    }

    /// <summary>Runs the program once in the child.</summary>
    /// <param name="cancellationToken">Cancels the run (the child is killed).</param>
    /// <returns>Whether it ran; false when the child died first (it was killed).</returns>
    /// <exception cref="InvalidOperationException">The run failed in the child (its message).</exception>
    public async Task<bool> RunOnceAsync(CancellationToken cancellationToken)
    {
        string? reply;
        try
        {
            if (!_queued)
            {
                await RequestRunAsync(cancellationToken).ConfigureAwait(false);
            }

            _queued = false;
            reply = await ReadReplyAsync("a run", cancellationToken).ConfigureAwait(false);
            if (reply == "done")
            {
                // Queue the next run now (see the remarks); a broken pipe here is found by the next call.
                try
                {
                    await RequestRunAsync(cancellationToken).ConfigureAwait(false);
                    _queued = true;
                }
                catch (IOException)
                {
                }
            }
        }
        catch (IOException)
        {
            return false; // The pipe broke: the child is gone.
        }
        catch (Exception e) when (e is OperationCanceledException or TimeoutException)
        {
            Kill();
            throw;
        }

        if (reply == "done")
        {
            Interlocked.Increment(ref _runs); // Interlocked: read by the fault loop on another thread.
        }

        return reply switch
        {
            null => false,
            "done" => true,
            _ => throw new InvalidOperationException($"A child run failed: {reply} {Errors()}".Trim()),
        };
    }

    private async Task RequestRunAsync(CancellationToken cancellationToken)
    {
        await _process.StandardInput.WriteLineAsync("run".AsMemory(), cancellationToken).ConfigureAwait(false);
        await _process.StandardInput.FlushAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// The child's next line, waited for no longer than the timeout: a starved or hung child is reported, never waited
    /// for forever.
    /// </summary>
    private async Task<string?> ReadReplyAsync(string what, CancellationToken cancellationToken)
    {
        using var bound = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bound.CancelAfter(_timeout);
        try
        {
            return await _process.StandardOutput.ReadLineAsync(bound.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new TimeoutException(string.Create(CultureInfo.InvariantCulture,
                $"The child running {_program} (pid {Id}) did not answer {what} within {_timeout.TotalSeconds:0.#} s (starved or hung); it was killed. {LastErrors}"));
        }
    }

    /// <summary>Kills the child at once (SIGKILL on Unix): no clean-up runs in it.</summary>
    public void Kill()
    {
        try
        {
            _process.Kill(entireProcessTree: false);
        }
        catch (InvalidOperationException)
        {
            // Already exited.
        }
    }

    /// <summary>Ends the child: end of input, then a bounded wait, then a kill.</summary>
    /// <returns>A task.</returns>
    public async ValueTask DisposeAsync()
    {
        if (_queued)
        {
            // The child is running a queued run nobody will read: its result is not wanted, so it is not waited for.
            Kill();
        }

        try
        {
            _process.StandardInput.Close();
        }
        catch (IOException)
        {
            // Already gone.
        }

        using var grace = new CancellationTokenSource(ExitGrace);
        try
        {
            await _process.WaitForExitAsync(grace.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            Kill();
        }

        _process.Dispose();
    }

    private async Task<bool> ExitedBySignalAsync()
    {
        using var grace = new CancellationTokenSource(ExitGrace);
        try
        {
            await _process.WaitForExitAsync(grace.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return false;
        }

        return _process.ExitCode == 137 || _process.ExitCode < 0; // 128 + SIGKILL
    }

    private void KeepError(string? line)
    {
        if (line is null)
        {
            return;
        }

        _errors.Enqueue(line);
        while (_errors.Count > 20 && _errors.TryDequeue(out _))
        {
        }
    }

    private string Errors() => string.Join(" | ", _errors);

    /// <summary>The child's last error lines (diagnostics).</summary>
    public string LastErrors => _errors.IsEmpty ? "no error output" : Errors();
}
