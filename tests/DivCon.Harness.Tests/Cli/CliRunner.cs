using DivCon.Harness.Cli;

namespace DivCon.Harness.Tests.Cli;

/// <summary>Runs the CLI in-process with captured output.</summary>
internal static class CliRunner
{
    /// <summary>Generous bound on any CLI run in the tests.</summary>
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);

    public static Task<(int ExitCode, string Output, string Error)> RunAsync(params string[] args) => RunAsync(CancellationToken.None, args);

    /// <summary>Runs the CLI; <paramref name="cancellationToken"/> stands for Ctrl+C.</summary>
    public static async Task<(int ExitCode, string Output, string Error)> RunAsync(CancellationToken cancellationToken, params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        CliHost host = CliHost.ForWriters(output, error, "divcon " + string.Join(' ', args));
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(Timeout);
        int exitCode = await HarnessCli.InvokeAsync(args, host, timeout.Token).WaitAsync(Timeout);
        return (exitCode, output.ToString(), error.ToString());
    }
}
