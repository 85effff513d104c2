namespace DivCon.Simulator.Engine;

/// <summary>
/// The simulation's pending events in time order, ties broken by scheduling order, so a run is deterministic.
/// Two kinds live here: each CPU group's one "earliest finisher is due" event, which changes on nearly every task
/// start and end, and the rare timed events (decision ticks, handover checks, the pool's gate and wave ticks).
/// </summary>
/// <remarks>
/// <para><b>Group events</b> sit in an indexed binary heap with at most one entry per group: rescheduling a group
/// moves its entry in place (sift up or down) instead of adding a new one and leaving the old one to be skipped
/// when it comes due. A simulation reschedules a group two or more times per task, so the heap stays as small as
/// the number of groups and no event is ever stale.</para>
/// <para><b>Order.</b> Every schedule, of either kind, takes the next number of one sequence counter; events pop in
/// (time, sequence) order. A group's entry carries the sequence number of its latest schedule, which is exactly
/// the key the latest of a series of one-shot events would carry: a superseded schedule still consumes its number,
/// and a cancel takes none (as a version bump took none). So the order of the events handled is the same as with a plain heap of one-shot events and
/// version checks, event for event.</para>
/// <para><b>Deferred updates.</b> A schedule or cancel is recorded (its key taken at the call) and applied to the heap
/// at the next dequeue, so a group rescheduled several times while one event is handled costs one heap update.</para>
/// <para>Invariants: between calls, the groups in <c>_dirty</c> are exactly those with <c>_isDirty</c> set, and
/// for every other group, <c>_position[g]</c> is g's index in <c>_heap</c> or -1 when it has no pending event; the
/// heap property holds on (Time, Sequence) for <c>_heap[0.._count)</c>.</para>
/// </remarks>
internal sealed class EventQueue
{
    private readonly PriorityQueue<(int Kind, int A, int B), (long Time, long Sequence)> _timed = new();

    // The group heap: entries in heap order in _heap[0.._count), _position[g] = g's index there or -1.
    private readonly int[] _position;
    private readonly GroupEntry[] _heap;
    private int _count;

    // Schedules not yet applied to the heap: per group its latest key (Time -1: cancelled), listed once in _dirty.
    private readonly GroupEntry[] _pending;
    private readonly bool[] _isDirty;
    private readonly int[] _dirty;
    private int _dirtyCount;

    private long _sequence;

    /// <summary>Creates a queue for <paramref name="groups"/> CPU groups.</summary>
    public EventQueue(int groups)
    {
        _position = new int[groups];
        Array.Fill(_position, -1);
        _heap = new GroupEntry[groups];
        _pending = new GroupEntry[groups];
        _isDirty = new bool[groups];
        _dirty = new int[groups];
    }

    /// <summary>Schedules a timed event (kind and two arguments, as the simulation defines them).</summary>
    public void Schedule(long time, int kind, int a, int b) => _timed.Enqueue((kind, a, b), (time, _sequence++));

    /// <summary>Sets group <paramref name="group"/>'s due event to <paramref name="time"/>, replacing any pending one.</summary>
    public void ScheduleGroup(int group, long time) => Record(new GroupEntry(time, _sequence++, group));

    /// <summary>Drops group <paramref name="group"/>'s pending event, if any.</summary>
    public void CancelGroup(int group) => Record(new GroupEntry(-1, 0, group));

    /// <summary>
    /// Removes the earliest event. A group event comes back as (<paramref name="group"/> &gt;= 0, kind and arguments
    /// unused); a timed one as (<paramref name="group"/> = -1, its kind and arguments). False when nothing is pending.
    /// </summary>
    /// <remarks>
    /// A due group's entry stays at the root, recorded as cancelled: the handler reschedules the group (or leaves it
    /// cancelled), and the next call applies that with one sift down from the root instead of a removal and an
    /// insertion.
    /// </remarks>
    public bool TryDequeue(out long time, out int group, out (int Kind, int A, int B) timed)
    {
        Flush();
        bool hasTimed = _timed.TryPeek(out timed, out var key);
        if (_count > 0 && (!hasTimed || Less(_heap[0], new GroupEntry(key.Time, key.Sequence, -1))))
        {
            time = _heap[0].Time;
            group = _heap[0].Group;
            CancelGroup(group);
            return true;
        }

        group = -1;
        if (!hasTimed)
        {
            time = 0;
            return false;
        }

        _timed.Dequeue();
        time = key.Time;
        return true;
    }

    private void Record(GroupEntry entry)
    {
        // Only the latest schedule of a group counts, and its key (time, sequence) is fixed now; applying it to the
        // heap later cannot change the order in which events pop, since that order depends on the keys alone.
        _pending[entry.Group] = entry;
        if (!_isDirty[entry.Group])
        {
            _isDirty[entry.Group] = true;
            _dirty[_dirtyCount++] = entry.Group;
        }
    }

    private void Flush()
    {
        for (int i = 0; i < _dirtyCount; i++)
        {
            int g = _dirty[i];
            _isDirty[g] = false;
            var entry = _pending[g];
            if (entry.Time < 0)
            {
                Remove(g);
            }
            else
            {
                Set(entry);
            }
        }

        _dirtyCount = 0;
    }

    private void Set(GroupEntry entry)
    {
        int at = _position[entry.Group];
        if (at < 0)
        {
            SiftUp(_count++, entry);
        }
        else if (Less(entry, _heap[at]))
        {
            // The new key may be earlier or later than the old one: at most one of the two sifts moves it.
            SiftUp(at, entry);
        }
        else
        {
            SiftDown(at, entry);
        }
    }

    private void Remove(int group)
    {
        int at = _position[group];
        if (at < 0)
        {
            return;
        }

        _position[group] = -1;
        var last = _heap[--_count];
        if (at == _count)
        {
            return;
        }

        // The last entry fills the hole; it may belong above or below it.
        if (at > 0 && Less(last, _heap[(at - 1) >> 1]))
        {
            SiftUp(at, last);
        }
        else
        {
            SiftDown(at, last);
        }
    }

    private static bool Less(in GroupEntry a, in GroupEntry b) =>
        a.Time < b.Time || (a.Time == b.Time && a.Sequence < b.Sequence);

    private void SiftUp(int at, GroupEntry entry)
    {
        while (at > 0)
        {
            int parent = (at - 1) >> 1;
            var above = _heap[parent];
            if (!Less(entry, above))
            {
                break;
            }

            _heap[at] = above;
            _position[above.Group] = at;
            at = parent;
        }

        _heap[at] = entry;
        _position[entry.Group] = at;
    }

    private void SiftDown(int at, GroupEntry entry)
    {
        while (true)
        {
            int child = (2 * at) + 1;
            if (child >= _count)
            {
                break;
            }

            if (child + 1 < _count && Less(_heap[child + 1], _heap[child]))
            {
                child++;
            }

            var below = _heap[child];
            if (!Less(below, entry))
            {
                break;
            }

            _heap[at] = below;
            _position[below.Group] = at;
            at = child;
        }

        _heap[at] = entry;
        _position[entry.Group] = at;
    }

    private readonly record struct GroupEntry(long Time, long Sequence, int Group);
}
