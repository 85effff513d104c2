using BenchmarkDotNet.Running;

namespace DivCon.Harness;

/// <summary>Entry point of the DivCon experiment harness.</summary>
internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "bench")
        {
            // Everything after "bench" goes to BenchmarkDotNet (--filter, --job, --list ...).
            BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args[1..]);
            return 0;
        }

        Console.WriteLine("DivCon harness: experiments arrive with the harness issue. Try: bench --list flat");
        return 0;
    }
}
