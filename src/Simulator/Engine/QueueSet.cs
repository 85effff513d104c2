namespace DivCon.Simulator.Engine;

/// <summary>
/// The queues of one scheduler (one program's, or the shared pool's): a global FIFO queue and one deque per thread
/// slot, plus the idle threads that call it home.
/// </summary>
/// <remarks>
/// Invariants: <see cref="Queued"/> is the number of tasks in <see cref="Global"/> and all <see cref="Deques"/>;
/// <see cref="NonEmpty"/> holds exactly the slots whose deque is not empty.
/// </remarks>
internal sealed class QueueSet
{
    public QueueSet(int slots, int threads)
    {
        Deques = new TaskDeque[slots];
        for (int i = 0; i < slots; i++)
        {
            Deques[i] = new TaskDeque();
        }

        NonEmpty = new IndexSet(slots);
        Idle = new IndexSet(threads);
    }

    public TaskDeque Global { get; } = new();

    public TaskDeque[] Deques { get; private set; }

    public IndexSet NonEmpty { get; }

    public IndexSet Idle { get; }

    public int Queued { get; set; }

    /// <summary>Adds one deque slot and room for one more thread (a thread the pool model injects); returns the slot.</summary>
    public int AddSlot()
    {
        int slot = Deques.Length;
        var deques = Deques;
        Array.Resize(ref deques, slot + 1);
        deques[slot] = new TaskDeque();
        Deques = deques;
        NonEmpty.Grow(slot + 1);
        Idle.Grow(slot + 1);
        return slot;
    }
}
