namespace DivCon.Simulator.Engine;

/// <summary>
/// A simulated thread: a worker of some scheduler, running one task at a time on its CPU group.
/// </summary>
/// <remarks>
/// Invariants: exactly one of <see cref="Busy"/>, <see cref="Idle"/>, <see cref="Inactive"/> holds between events
/// (a thread is momentarily none of them only inside the handler that finishes its task); a busy thread has one
/// entry in its group's finisher heap; <see cref="Serving"/> is the set whose tasks it runs and into whose deque
/// <see cref="Slot"/> it pushes; <see cref="Lent"/> implies <c>Serving != Home</c>.
/// </remarks>
internal sealed class SimThread(int index, int core, int group, int slot, int home)
{
    public int Index { get; } = index;

    /// <summary>The core this thread stands for (partitioning) or is pinned to; for free threads only informative.</summary>
    public int Core { get; } = core;

    public int Group { get; } = group;

    public int Slot { get; } = slot;

    /// <summary>The owning program's set (partitioning: as decided; otherwise fixed); -1 before the first decision.</summary>
    public int Home { get; set; } = home;

    public int Serving { get; set; } = Math.Max(home, 0);

    public bool Busy { get; set; }

    public bool Idle { get; set; }

    public bool Lent { get; set; }

    /// <summary>Standby handover: this thread finishes its task, then becomes inactive (its core has a new thread).</summary>
    public bool Retiring { get; set; }

    /// <summary>A spare thread slot (standby handover) not standing for its core now.</summary>
    public bool Inactive { get; set; }

    public long Task { get; set; }

    /// <summary>When the current (or last) task started, ns: the standby's handover threshold counts from here.</summary>
    public long TaskStartedAt { get; set; }

    /// <summary>Tasks started so far; identifies the current task for a pending handover check.</summary>
    public int TaskSerial { get; set; }

    /// <summary>Costs (wake, move) to add to the next task this thread starts, ns.</summary>
    public long PendingCost { get; set; }
}
