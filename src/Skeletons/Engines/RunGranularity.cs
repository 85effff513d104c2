namespace DivCon.Skeletons.Engines;

/// <summary>Which nodes of a run execute their subtree inline instead of as tasks.</summary>
internal enum InlineRule
{
    /// <summary>Every node is a task.</summary>
    Never = 0,

    /// <summary>A node whose subtree is predicted cheaper than the minimum task cost runs it inline.</summary>
    ByTime = 1,

    /// <summary>A node at or below <see cref="RunGranularity.InlineDepth"/> runs its subtree inline.</summary>
    FromDepth = 2,
}

/// <summary>
/// The granularity of one run, resolved when it starts: the inline rule and its thresholds, what the run learns
/// (<see cref="Costs"/>), and, for a granular program, its resolved size rule. Per run, so that runs of one
/// program instance never share it; a node's task makes it <see cref="Current"/> on its thread while it calls the
/// program, which is how a granular program's should-split finds its run.
/// </summary>
internal sealed class RunGranularity
{
    [ThreadStatic]
    private static RunGranularity? t_current;

    /// <summary>The run whose node the current thread is processing, if any.</summary>
    public static RunGranularity? Current => t_current;

    public InlineRule Rule { get; init; }

    /// <summary>For <see cref="InlineRule.FromDepth"/>: nodes at this depth or deeper run inline.</summary>
    public int InlineDepth { get; init; }

    /// <summary>For <see cref="InlineRule.ByTime"/>: the lower bound on a task's cost, in Stopwatch ticks.</summary>
    public long MinimumTicks { get; init; }

    /// <summary>Leaves predicted longer than this (Stopwatch ticks) are split where a granular program allows; 0: never.</summary>
    public long MaximumTicks { get; init; }

    /// <summary>What the run has measured; set when the run learns (time-based granularity).</summary>
    public CostEstimator? Costs { get; init; }

    /// <summary>
    /// Whether the program's split or merge is asynchronous: its inline subtrees are then run by the continuation
    /// engine's direct calls (see <see cref="ContinuationNode{TProblem, TResult}"/>) instead of the plain recursion, and
    /// the fork-join engine runs none inline. Set once by <c>RunAsync</c> before the run's first task.
    /// </summary>
    public bool AsynchronousPhases { get; set; }

    /// <summary>Granular programs: problems larger than this are split.</summary>
    public long SizeThreshold { get; init; }

    /// <summary>Granular programs: split by depth (<see cref="DepthLimit"/>) instead of by size.</summary>
    public bool SplitByDepth { get; init; }

    /// <summary>Granular programs with <see cref="SplitByDepth"/>: the depth of the leaves.</summary>
    public int DepthLimit { get; init; }

    /// <summary>Makes <paramref name="run"/> current on this thread; returns the previous one for <see cref="Restore"/>.</summary>
    public static RunGranularity? Enter(RunGranularity run)
    {
        var previous = t_current;
        t_current = run;
        return previous;
    }

    /// <summary>Restores what <see cref="Enter"/> replaced (a task inlined into a wait may have been of another run).</summary>
    public static void Restore(RunGranularity? previous) => t_current = previous;

    /// <summary>The granularity of a run of a plain program (one that reports no size).</summary>
    /// <param name="granularity">The program's granularity.</param>
    public static RunGranularity ForPlainProgram(Granularity granularity) => granularity.Kind switch
    {
        GranularityKind.Automatic => ByTime(granularity),
        GranularityKind.Depth => new RunGranularity { Rule = InlineRule.FromDepth, InlineDepth = granularity.TargetDepth },
        GranularityKind.Sequential => new RunGranularity { Rule = InlineRule.FromDepth, InlineDepth = 0 },
        _ => new RunGranularity { Rule = InlineRule.Never },
    };

    /// <summary>The time-based rule with the bounds of <paramref name="granularity"/>, plus a granular program's size rule.</summary>
    /// <param name="granularity">The program's granularity.</param>
    /// <param name="sizeThreshold">A granular program's size threshold (0 for a plain program).</param>
    /// <param name="memory">What earlier runs of the program learned about its leaves (granular programs), or null.</param>
    /// <param name="predictSubtreesFromMemory">See <see cref="CostEstimator(LeafCostMemory, bool)"/>.</param>
    public static RunGranularity ByTime(Granularity granularity, long sizeThreshold = 0, LeafCostMemory? memory = null, bool predictSubtreesFromMemory = false) => new()
    {
        Rule = granularity.MinimumTaskCost > TimeSpan.Zero ? InlineRule.ByTime : InlineRule.Never,
        MinimumTicks = ToTicks(granularity.MinimumTaskCost),
        MaximumTicks = ToTicks(granularity.MaximumTaskDuration),
        Costs = memory is null ? new CostEstimator() : new CostEstimator(memory, predictSubtreesFromMemory),
        SizeThreshold = sizeThreshold,
    };

    /// <summary>Whether a node that will split at <paramref name="depth"/> (size <paramref name="size"/>, -1 if unknown) runs its subtree inline.</summary>
    public bool ShouldInline(int depth, long size) => Rule switch
    {
        InlineRule.ByTime => Costs!.PredictSubtree(depth, size) < MinimumTicks,
        InlineRule.FromDepth => depth >= InlineDepth,
        _ => false,
    };

    private static long ToTicks(TimeSpan time) =>
        (long)Math.Min(time.TotalSeconds * System.Diagnostics.Stopwatch.Frequency, long.MaxValue / 2);
}
