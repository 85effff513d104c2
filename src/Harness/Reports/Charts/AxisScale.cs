namespace DivCon.Harness.Reports.Charts;

/// <summary>How an axis maps values to positions.</summary>
public enum AxisScale
{
    /// <summary>Evenly spaced values; "nice" ticks (1, 2, 5 × 10^k steps).</summary>
    Linear,

    /// <summary>Evenly spaced powers of two (granularity ratios, core counts); values must be positive.</summary>
    Log2,

    /// <summary>Evenly spaced powers of ten (times spanning orders of magnitude); values must be positive.</summary>
    Log10,
}
