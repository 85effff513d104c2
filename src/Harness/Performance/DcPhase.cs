namespace DivCon.Harness.Performance;

/// <summary>The three phases of a divide-and-conquer node.</summary>
public enum DcPhase
{
    /// <summary>Dividing a problem into subproblems.</summary>
    Split,

    /// <summary>Solving a base case (a leaf) directly.</summary>
    Execute,

    /// <summary>Combining the subresults.</summary>
    Merge,
}
