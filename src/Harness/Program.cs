using DivCon.Harness.Cli;

namespace DivCon.Harness;

/// <summary>Entry point of the DivCon experiment harness (see <see cref="HarnessCli"/>).</summary>
internal static class Program
{
    private static Task<int> Main(string[] args) => HarnessCli.InvokeAsync(args, CliHost.ForProcess());
}
