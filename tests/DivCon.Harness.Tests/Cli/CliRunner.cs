using System.Text;
using DivCon.Harness.Cli;

namespace DivCon.Harness.Tests.Cli;

/// <summary>Runs the CLI in-process with captured output.</summary>
internal static class CliRunner
{
    /// <summary>Generous bound on any CLI run in the tests.</summary>
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);

    public static Task<(int ExitCode, string Output, string Error)> RunAsync(params string[] args) => RunAsync(CancellationToken.None, args);

    /// <summary>Runs the CLI; <paramref name="cancellationToken"/> stands for Ctrl+C.</summary>
    /// <remarks>
    /// A cancelled command returns at once, even while a program run that does not observe the token is still
    /// finishing (the process would end there; see <c>CommandActions.RunAsync</c>); that run may still write
    /// progress after the command returned, so the captured writers take writes and reads from any thread.
    /// </remarks>
    public static async Task<(int ExitCode, string Output, string Error)> RunAsync(CancellationToken cancellationToken, params string[] args)
    {
        var output = new CapturingWriter();
        var error = new CapturingWriter();
        CliHost host = CliHost.ForWriters(output, error, "divcon " + string.Join(' ', args));
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(Timeout);
        int exitCode = await HarnessCli.InvokeAsync(args, host, timeout.Token).WaitAsync(Timeout);
        return (exitCode, output.ToString(), error.ToString());
    }

    /// <summary>
    /// A string writer safe for concurrent writers and readers: every write and the final read take one lock. Every
    /// other <see cref="TextWriter"/> overload ends in one of the three writes overridden here, and the asynchronous
    /// ones write synchronously (as <see cref="StringWriter"/>'s do), so the order of awaited writes is kept.
    /// </summary>
    private sealed class CapturingWriter : TextWriter
    {
        private readonly StringBuilder _text = new();
        private readonly Lock _gate = new();

        public override Encoding Encoding => Encoding.Unicode;

        public override void Write(char value)
        {
            lock (_gate)
            {
                _text.Append(value);
            }
        }

        public override void Write(string? value)
        {
            lock (_gate)
            {
                _text.Append(value);
            }
        }

        public override void Write(char[] buffer, int index, int count)
        {
            lock (_gate)
            {
                _text.Append(buffer, index, count);
            }
        }

        public override Task WriteAsync(char value) => Synchronously(() => Write(value));

        public override Task WriteAsync(string? value) => Synchronously(() => Write(value));

        public override Task WriteAsync(char[] buffer, int index, int count) => Synchronously(() => Write(buffer, index, count));

        public override Task WriteLineAsync(char value) => Synchronously(() => WriteLine(value));

        public override Task WriteLineAsync(string? value) => Synchronously(() => WriteLine(value));

        public override Task WriteLineAsync(char[] buffer, int index, int count) => Synchronously(() => WriteLine(buffer, index, count));

        public override Task WriteLineAsync() => Synchronously(WriteLine);

        public override Task FlushAsync() => Task.CompletedTask;

        private static Task Synchronously(Action write)
        {
            write();
            return Task.CompletedTask;
        }

        public override string ToString()
        {
            lock (_gate)
            {
                return _text.ToString();
            }
        }
    }
}
