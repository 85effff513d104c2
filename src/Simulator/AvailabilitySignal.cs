namespace DivCon.Simulator;

/// <summary>
/// What the <see cref="SimulatedScheme.TaskAvailability"/> policy reads as a program's available tasks at each decision (a
/// what-if switch: the mechanism itself reads queued tasks).
/// </summary>
public enum AvailabilitySignal
{
    /// <summary>Tasks queued and not yet started, at the decision's instant (the mechanism's signal).</summary>
    Queued = 0,

    /// <summary>Queued tasks plus the tasks of the program running on workers at that instant.</summary>
    QueuedAndRunning = 1,

    /// <summary>
    /// An exponentially smoothed history of the queued count: at every decision s += (queued - s) / 4, starting from
    /// the first sample, and the policy reads ceil(s). Damps the instant count's swings between decisions.
    /// </summary>
    Smoothed = 2,
}
