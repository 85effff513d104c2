namespace DivCon.Hosting;

/// <summary>One program to register when the host's multiprogram scheduler starts.</summary>
public sealed class DivConProgramOptions
{
    /// <summary>Its speedup on the whole machine, which the policies weigh (default 1: unknown, equal weight).</summary>
    public double Speedup { get; set; } = 1.0;
}
