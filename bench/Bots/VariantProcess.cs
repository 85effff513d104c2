using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using DivCon.Bench.Bots.Kernels;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots;

/// <summary>
/// One variant of one kernel in a process of its own (<c>--isolated</c>), driven over its standard streams, so that
/// each variant runs on the thread pool its own code shapes, as BenchmarkDotNet runs each benchmark in its own process.
/// </summary>
/// <remarks>
/// <para>Why: in one process every variant shares the .NET thread pool, and what one variant does to it stays for the
/// next (<c>Parallel.Invoke</c> waits inside pool threads, and the pool answers with more threads). The price: each
/// child compiles and lays out its own code and heap, and on the 2-CPU VM that moved the same kernel's CPU time by up to
/// 1.5 times between children (README.md, "One process per variant"), so isolation is not the default.</para>
/// <para>Protocol, one line each way per request. The child starts with
/// <c>--child KERNEL VARIANT SIZE</c>, builds its kernel and answers <c>ready</c>. Then, per line it reads:
/// <c>run</c>: a full collection, one timed run from fresh input, answered <c>ok SECONDS CPU DIGEST</c> (wall and
/// process CPU seconds, the output's digest in hex); <c>nodes</c>: one untimed run with a <see cref="PhaseAggregator"/>,
/// answered <c>nodes TASK INLINE DIGEST</c>. The end of its input ends it (exit code 0). Any failure is answered
/// <c>error MESSAGE</c> and ends it with exit code 1. The child's main thread makes every call, as a program's
/// <c>Main</c> would: the sequential and <c>Parallel.Invoke</c> variants run on it, not on a pool thread.</para>
/// </remarks>
internal sealed class VariantProcess : IDisposable
{
    /// <summary>The first argument that makes the program a variant's child process.</summary>
    public const string ChildFlag = "--child";

    private static readonly TimeSpan s_replyTimeout = TimeSpan.FromMinutes(10);

    private readonly Process _process;
    private readonly string _what;
    private readonly Queue<string> _errors = new();

    private VariantProcess(Process process, string what)
    {
        _process = process;
        _what = what;
    }

    /// <summary>Starts the child of <paramref name="variant"/> of <paramref name="kernel"/> and waits until it is ready.</summary>
    /// <exception cref="InvalidOperationException">The child could not start or ended before it was ready (its error is in the message).</exception>
    public static async Task<VariantProcess> StartAsync(string kernel, Variant variant, KernelSize size)
    {
        string what = $"{kernel} {variant.Name()}";
        (string file, IReadOnlyList<string> prefix) = Self();
        var info = new ProcessStartInfo(file)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string arg in prefix.Concat([ChildFlag, kernel, variant.Name(), size.ToString().ToLowerInvariant()]))
        {
            info.ArgumentList.Add(arg);
        }

        Process process;
        try
        {
            process = Process.Start(info) ?? throw new InvalidOperationException($"{what}: the child process did not start.");
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            throw new InvalidOperationException($"{what}: the child process did not start: {e.Message}", e);
        }

        var child = new VariantProcess(process, what);
        process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is { } line)
            {
                lock (child._errors)
                {
                    child._errors.Enqueue(line);
                    if (child._errors.Count > 5)
                    {
                        child._errors.Dequeue();
                    }
                }
            }
        };
        process.BeginErrorReadLine();
        try
        {
            string reply = await child.ReadReplyAsync().ConfigureAwait(false);
            if (reply != "ready")
            {
                throw child.Failure(reply);
            }
        }
        catch
        {
            child.Dispose();
            throw;
        }

        return child;
    }

    /// <summary>The child's process id.</summary>
    internal int ProcessId => _process.Id;

    /// <summary>One timed run in the child: wall seconds, the child's CPU seconds, the output's digest.</summary>
    /// <exception cref="InvalidOperationException">The child failed or ended (its error is in the message).</exception>
    public async Task<(double Seconds, double CpuSeconds, ulong Digest)> RunAsync()
    {
        string[] fields = await RequestAsync("run", "ok", 4).ConfigureAwait(false);
        return (Number(fields[1]), Number(fields[2]), ulong.Parse(fields[3], NumberStyles.HexNumber, CultureInfo.InvariantCulture));
    }

    /// <summary>One observed, untimed run in the child: its task and inline nodes, and the output's digest.</summary>
    /// <exception cref="InvalidOperationException">The child failed or ended (its error is in the message).</exception>
    public async Task<(long TaskNodes, long InlineNodes, ulong Digest)> NodesAsync()
    {
        string[] fields = await RequestAsync("nodes", "nodes", 4).ConfigureAwait(false);
        return (long.Parse(fields[1], CultureInfo.InvariantCulture), long.Parse(fields[2], CultureInfo.InvariantCulture),
            ulong.Parse(fields[3], NumberStyles.HexNumber, CultureInfo.InvariantCulture));
    }

    /// <summary>Ends the child: closes its input (it exits), and kills it if it has not exited within 10 s.</summary>
    public void Dispose()
    {
        try
        {
            _process.StandardInput.Close();
            if (!_process.WaitForExit(TimeSpan.FromSeconds(10)))
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit();
            }
        }
        catch (Exception e) when (e is InvalidOperationException or IOException or System.ComponentModel.Win32Exception)
        {
            // Already gone: nothing to end.
        }
        finally
        {
            _process.Dispose();
        }
    }

    /// <summary>The child's side: serves the requests of its standard input until it ends (see the class remarks).</summary>
    /// <param name="args"><c>--child KERNEL VARIANT SIZE</c>.</param>
    /// <param name="input">Its requests.</param>
    /// <param name="output">Its replies (flushed after each).</param>
    /// <returns>0 at the end of the input, 1 after a failure (answered <c>error ...</c>).</returns>
    public static int ServeChild(IReadOnlyList<string> args, TextReader input, TextWriter output)
    {
        try
        {
            if (args.Count != 4 || args[0] != ChildFlag)
            {
                throw new ArgumentException($"usage: {ChildFlag} KERNEL VARIANT SIZE", nameof(args));
            }

            KernelCase kernel = KernelCatalog.Create(args[1], Options.ParseSize(args[3], "size"));
            Variant variant = kernel.Variants.FirstOrDefault(v => v.Name() == args[2], (Variant)(-1));
            if (!kernel.Variants.Contains(variant))
            {
                throw new ArgumentException($"{kernel.Name} has no variant '{args[2]}'.", nameof(args));
            }

            // Only the divcon-ws child has the work-stealing scheduler: its workers are threads of their own.
            using var workStealing = variant == Variant.DivConWorkStealing ? new WorkStealingTaskScheduler(Environment.ProcessorCount) : null;
            TaskScheduler scheduler = (TaskScheduler?)workStealing ?? TaskScheduler.Default;
            Reply(output, "ready");
            while (input.ReadLine() is { } request)
            {
                switch (request)
                {
                    case "run":
                        Runner.Collect();
                        var (seconds, cpuSeconds, digest) = Runner.RunMeasuredAsync(kernel, variant, scheduler).GetAwaiter().GetResult();
                        Reply(output, string.Create(CultureInfo.InvariantCulture, $"ok {seconds:R} {cpuSeconds:R} {digest:x16}"));
                        break;
                    case "nodes":
                        var phases = new PhaseAggregator();
                        var (_, observed) = Runner.RunOnceAsync(kernel, variant, scheduler, phases).GetAwaiter().GetResult();
                        Reply(output, string.Create(CultureInfo.InvariantCulture, $"nodes {phases.TaskNodes} {phases.InlineNodes} {observed:x16}"));
                        break;
                    default:
                        throw new ArgumentException($"unknown request '{request}' (run, nodes).", nameof(input));
                }
            }

            return 0;
        }
        catch (Exception e)
        {
            Reply(output, "error " + e.GetType().Name + ": " + e.Message.ReplaceLineEndings(" "));
            return 1;
        }
    }

    private static void Reply(TextWriter output, string line)
    {
        output.WriteLine(line);
        output.Flush();
    }

    // How to start this program again: through the dotnet host when it runs as a dll (dotnet run, the tests).
    private static (string File, IReadOnlyList<string> Prefix) Self()
    {
        string process = Environment.ProcessPath ?? throw new PlatformNotSupportedException("This program's own executable path is unknown.");
        string assembly = typeof(VariantProcess).Assembly.Location;
        bool host = string.Equals(Path.GetFileNameWithoutExtension(process), "dotnet", StringComparison.OrdinalIgnoreCase);
        bool isBench = string.Equals(Assembly.GetEntryAssembly()?.Location, assembly, StringComparison.Ordinal);
        return host || !isBench ? ("dotnet", [assembly]) : (process, []);
    }

    private static double Number(string text) => double.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture);

    private async Task<string[]> RequestAsync(string request, string answer, int fields)
    {
        try
        {
            await _process.StandardInput.WriteLineAsync(request).ConfigureAwait(false);
            await _process.StandardInput.FlushAsync().ConfigureAwait(false);
        }
        catch (IOException)
        {
            throw Failure(null);   // the child has gone: its input is a broken pipe
        }

        string reply = await ReadReplyAsync().ConfigureAwait(false);
        string[] parts = reply.Split(' ');
        return parts.Length == fields && parts[0] == answer ? parts : throw Failure(reply);
    }

    private async Task<string> ReadReplyAsync()
    {
        using var timeout = new CancellationTokenSource(s_replyTimeout);
        string? line;
        try
        {
            line = await _process.StandardOutput.ReadLineAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            throw new InvalidOperationException($"{_what}: the child process did not answer within {s_replyTimeout.TotalMinutes} minutes.");
        }

        return line ?? throw Failure(null);
    }

    private InvalidOperationException Failure(string? reply)
    {
        if (reply is not null && reply.StartsWith("error ", StringComparison.Ordinal))
        {
            return new InvalidOperationException($"{_what}: {reply["error ".Length..]}");
        }

        if (reply is null)
        {
            // The child's output ended: let its error stream drain too (the parameterless wait does) before quoting it.
            if (_process.WaitForExit(TimeSpan.FromSeconds(5)))
            {
                _process.WaitForExit();
            }
        }

        string errors;
        lock (_errors)
        {
            errors = string.Join(" | ", _errors);
        }

        return new InvalidOperationException(reply is null
            ? $"{_what}: the child process ended{(errors.Length > 0 ? ": " + errors : ".")}"
            : $"{_what}: unexpected reply '{reply}' from the child process.");
    }
}
