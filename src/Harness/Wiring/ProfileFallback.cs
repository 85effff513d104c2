namespace DivCon.Harness.Wiring;

/// <summary>What a partitioning scheme does for a program without a stored scalability profile.</summary>
public enum ProfileFallback
{
    /// <summary>Measure a quick profile (sequential, 1 core, all cores; one run each) and store it.</summary>
    Measure = 0,

    /// <summary>Assume speedup 1 (no scaling) and warn.</summary>
    Unit = 1,
}
