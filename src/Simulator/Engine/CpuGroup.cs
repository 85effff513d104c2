namespace DivCon.Simulator.Engine;

/// <summary>
/// Threads sharing a capacity of cores by processor sharing: with r runnable threads and capacity c, each runs at
/// rate min(1, c / r) (times the context-switch efficiency when r &gt; c).
/// </summary>
/// <remarks>
/// Invariants: the runnable threads are exactly those in <see cref="Finishers"/>; <see cref="Virtual"/> is the work each
/// runnable thread has received since the group was created, as of <see cref="LastUpdate"/>; a finisher's priority
/// is the virtual time at which its task ends.
/// </remarks>
internal sealed class CpuGroup(int capacity)
{
    public double Capacity { get; } = capacity;

    /// <summary>Threads running a task on the group (each has one entry in <see cref="Finishers"/>).</summary>
    public int Runnable => Finishers.Count;

    public double Virtual { get; set; }

    public long LastUpdate { get; set; }

    public FinisherHeap Finishers { get; } = new();

    /// <summary>Reused list of threads finishing at one event.</summary>
    public List<int> DoneScratch { get; } = [];
}

/// <summary>
/// The running threads of a CPU group by the virtual time their task ends: a quaternary min-heap of (finish, thread).
/// </summary>
/// <remarks>
/// It performs the same element moves as <c>PriorityQueue&lt;int, double&gt;</c> with the default comparer (the
/// runtime's 4-ary heap, sifting up on enqueue and moving the last node down from the root on dequeue), so threads
/// with equal finish times leave in the same order; it only compares the (never NaN) doubles directly instead of
/// through <c>Comparer&lt;double&gt;</c>, whose NaN handling costs branches on the simulator's hottest path.
/// Invariant: every node's finish is &lt;= its children's, for <c>_nodes[0.._count)</c>.
/// </remarks>
internal sealed class FinisherHeap
{
    private (double Finish, int Thread)[] _nodes = new (double, int)[4];
    private int _count;

    public int Count => _count;

    public bool TryPeek(out int thread, out double finish)
    {
        if (_count == 0)
        {
            thread = 0;
            finish = 0;
            return false;
        }

        (finish, thread) = _nodes[0];
        return true;
    }

    public void Enqueue(int thread, double finish)
    {
        if (_count == _nodes.Length)
        {
            Array.Resize(ref _nodes, _nodes.Length * 2);
        }

        // Sift up: parents later than the new node move down one level.
        var nodes = _nodes;
        int at = _count++;
        while (at > 0)
        {
            int parent = (at - 1) >> 2;
            var above = nodes[parent];
            if (!(finish < above.Finish))
            {
                break;
            }

            nodes[at] = above;
            at = parent;
        }

        nodes[at] = (finish, thread);
    }

    public void Dequeue()
    {
        int last = --_count;
        if (last > 0)
        {
            MoveDown(_nodes[last], 0);
        }
    }

    private void MoveDown((double Finish, int Thread) node, int at)
    {
        var nodes = _nodes;
        int size = _count;
        int i;
        while ((i = (at << 2) + 1) < size)
        {
            // The earliest of up to four children (the first of equals wins); stop when the node is no later.
            var min = nodes[i];
            int minAt = i;
            int end = Math.Min(i + 4, size);
            while (++i < end)
            {
                var next = nodes[i];
                if (next.Finish < min.Finish)
                {
                    min = next;
                    minAt = i;
                }
            }

            if (node.Finish <= min.Finish)
            {
                break;
            }

            nodes[at] = min;
            at = minAt;
        }

        nodes[at] = node;
    }
}
