namespace DivCon.Harness;

/// <summary>Entry point of the DivCon experiment harness.</summary>
internal static class Program
{
    private static int Main(string[] args)
    {
        Console.WriteLine("DivCon harness: experiments arrive with the harness issue.");
        return args.Length == 0 ? 0 : 1;
    }
}
