namespace DivCon.Simulator.Engine;

/// <summary>
/// A growable ring buffer of packed task references, used both as a worker's deque (the owner pushes and pops at
/// the bottom, LIFO; thieves take from the top, FIFO) and as a global FIFO queue (push at the bottom, take from the
/// top). Single-threaded: the simulation is one thread, so no synchronisation is needed.
/// </summary>
/// <remarks>Invariant: <c>0 &lt;= _count &lt;= _items.Length</c>; the items are <c>_items[(_head + i) % capacity]</c>
/// for i in [0, _count), oldest (top) first.</remarks>
internal sealed class TaskDeque
{
    private long[] _items = new long[8];
    private int _head;
    private int _count;

    public int Count => _count;

    public void PushBottom(long task)
    {
        if (_count == _items.Length)
        {
            Grow();
        }

        _items[(_head + _count) & (_items.Length - 1)] = task;
        _count++;
    }

    public long PopBottom()
    {
        _count--;
        return _items[(_head + _count) & (_items.Length - 1)];
    }

    public long PopTop()
    {
        long task = _items[_head];
        _head = (_head + 1) & (_items.Length - 1);
        _count--;
        return task;
    }

    public void Clear()
    {
        _head = 0;
        _count = 0;
    }

    private void Grow()
    {
        // Capacity stays a power of two so that indices wrap with a mask.
        var larger = new long[_items.Length * 2];
        for (int i = 0; i < _count; i++)
        {
            larger[i] = _items[(_head + i) & (_items.Length - 1)];
        }

        _items = larger;
        _head = 0;
    }
}
