namespace DivCon.Skeletons;

/// <summary>The phases of a divide-and-conquer node that an <see cref="IDivideAndConquerObserver"/> is told about.</summary>
public enum DivideAndConquerPhase
{
    /// <summary>A problem was divided into subproblems (one call of split per internal node).</summary>
    Split = 0,

    /// <summary>A problem was solved directly by the base-case muscle (one call per leaf).</summary>
    Execute = 1,

    /// <summary>The subresults of an internal node were combined (one call per internal node).</summary>
    Merge = 2,
}
