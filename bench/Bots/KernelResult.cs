namespace DivCon.Bench.Bots;

/// <summary>What one kernel measured: the seconds of every variant in every round, and the DivCon node counts.</summary>
internal sealed class KernelResult(string kernel, string description)
{
    public string Kernel => kernel;

    public string Description => description;

    /// <summary>Seconds per round, by variant (round i of every variant is the same round).</summary>
    public Dictionary<Variant, List<double>> Seconds { get; } = [];

    /// <summary>CPU seconds of the whole process during each run, by variant.</summary>
    public Dictionary<Variant, List<double>> CpuSeconds { get; } = [];

    /// <summary>Position (0-based) of the variant within each round, by variant (the rotation).</summary>
    public Dictionary<Variant, List<int>> Positions { get; } = [];

    /// <summary>Task nodes and inline nodes of one observed run, by DivCon variant (nested runs included).</summary>
    public Dictionary<Variant, (long TaskNodes, long InlineNodes)> Nodes { get; } = [];

    /// <summary>The CPUs a parallel variant may use: the floor of its ratio to the sequential one is one over this.</summary>
    public int Processors { get; init; } = Environment.ProcessorCount;

    /// <summary>The variant's time as a share of the sequential variant's, with one over <see cref="Processors"/> as its floor.</summary>
    public RatioSummary ToSequential(Variant variant) =>
        RatioSummary.Of(Seconds[variant], Seconds[Variant.Sequential]) with { Floor = variant == Variant.Sequential ? 0 : 1.0 / Processors };

    /// <summary>The fastest and the slowest round of a variant: on a steady machine the sequential variant's are close.</summary>
    public (double Min, double Max) Range(Variant variant) => (Seconds[variant].Min(), Seconds[variant].Max());

    /// <summary>The TPL idiom with the smaller median time.</summary>
    public Variant BestTpl => Median(Variant.ParallelInvoke) <= Median(Variant.TaskRun) ? Variant.ParallelInvoke : Variant.TaskRun;

    public RatioSummary ToBestTpl(Variant variant) => RatioSummary.Of(Seconds[variant], Seconds[BestTpl]);

    public double Median(Variant variant) => MedianOf(Seconds[variant]);

    public double MedianCpu(Variant variant) => MedianOf(CpuSeconds[variant]);

    private static double MedianOf(List<double> values)
    {
        var sorted = values.Order().ToArray();
        int n = sorted.Length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[(n / 2) - 1] + sorted[n / 2]) / 2;
    }
}
