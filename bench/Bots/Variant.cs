namespace DivCon.Bench.Bots;

/// <summary>The ways each kernel is run; every one computes the same result as <see cref="Sequential"/>, bit for bit.</summary>
internal enum Variant
{
    /// <summary>The plain recursion on the calling thread: the baseline of every ratio.</summary>
    Sequential,

    /// <summary>The DivCon skeletons on the .NET thread pool (<c>TaskScheduler.Default</c>).</summary>
    DivCon,

    /// <summary>The same DivCon code on a <c>WorkStealingTaskScheduler</c> with one worker per CPU.</summary>
    DivConWorkStealing,

    /// <summary><c>Parallel.Invoke</c> recursion with the suite's own cutoffs.</summary>
    ParallelInvoke,

    /// <summary><c>Task.Run</c> / <c>Task.WhenAll</c> recursion with the suite's own cutoffs.</summary>
    TaskRun,

    /// <summary>
    /// FFT only: the DivCon recursion with its split and merge loops sequential (a synchronous program), on the .NET
    /// thread pool; its node counts are the baseline of the nested-loop version's.
    /// </summary>
    DivConSeqLoops,
}

/// <summary>Names of <see cref="Variant"/> as printed and written to the CSV.</summary>
internal static class VariantNames
{
    /// <summary>The variants of every kernel, in the order of the table's columns.</summary>
    public static readonly IReadOnlyList<Variant> All =
        [Variant.Sequential, Variant.DivCon, Variant.DivConWorkStealing, Variant.ParallelInvoke, Variant.TaskRun];

    /// <summary>The short name of <paramref name="variant"/>.</summary>
    public static string Name(this Variant variant) => variant switch
    {
        Variant.Sequential => "sequential",
        Variant.DivCon => "divcon",
        Variant.DivConWorkStealing => "divcon-ws",
        Variant.ParallelInvoke => "parallel-invoke",
        Variant.TaskRun => "task-run",
        Variant.DivConSeqLoops => "divcon-seqloops",
        _ => throw new ArgumentOutOfRangeException(nameof(variant), variant, "Unknown variant."),
    };

    /// <summary>Whether <paramref name="variant"/> runs DivCon skeletons (and so reports task and inline nodes).</summary>
    public static bool IsDivCon(this Variant variant) => variant is Variant.DivCon or Variant.DivConWorkStealing or Variant.DivConSeqLoops;

    /// <summary>Whether <paramref name="variant"/> is one of the two TPL idioms.</summary>
    public static bool IsTpl(this Variant variant) => variant is Variant.ParallelInvoke or Variant.TaskRun;
}
