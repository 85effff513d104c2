namespace DivCon.Simulator.Engine;

/// <summary>
/// Threads sharing a capacity of cores by processor sharing: with r runnable threads and capacity c, each runs at
/// rate min(1, c / r) (times the context-switch efficiency when r &gt; c).
/// </summary>
/// <remarks>
/// Invariants: <see cref="Runnable"/> equals the number of entries in <see cref="Finishers"/>; <see cref="Virtual"/>
/// is the work each runnable thread has received since the group was created, as of <see cref="LastUpdate"/>; an
/// entry's priority is the virtual time at which its task ends.
/// </remarks>
internal sealed class CpuGroup(int capacity)
{
    public double Capacity { get; } = capacity;

    public int Runnable { get; set; }

    public double Virtual { get; set; }

    public long LastUpdate { get; set; }

    /// <summary>Changes whenever the runnable set changes; a pending event with an older version is stale.</summary>
    public int Version { get; set; }

    public PriorityQueue<int, double> Finishers { get; } = new();

    /// <summary>Reused list of threads finishing at one event.</summary>
    public List<int> DoneScratch { get; } = [];
}
