namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>Why the rebalancer was asked for a decision.</summary>
public enum RebalanceReason
{
    /// <summary>The periodic timer (100 ms by default); may be skipped when nothing relevant changed.</summary>
    Interval,

    /// <summary>A program registered.</summary>
    Arrival,

    /// <summary>A program finished or unregistered.</summary>
    Departure,

    /// <summary>Someone asked explicitly; never skipped.</summary>
    Manual,
}
