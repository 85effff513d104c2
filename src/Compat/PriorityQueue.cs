// Compiled only into the netstandard2.0 and .NET Framework builds (see Directory.Build.targets): the subset of
// .NET 6's PriorityQueue<TElement, TPriority> that DivCon uses, as a binary min-heap. DivCon's priorities are a total
// order (ties broken by program index), so the dequeue order is the same as with the BCL's heap.
#if !NETCOREAPP
namespace System.Collections.Generic;

[Microsoft.CodeAnalysis.Embedded]
internal sealed class PriorityQueue<TElement, TPriority>
{
    private readonly IComparer<TPriority> _comparer;
    private readonly List<(TElement Element, TPriority Priority)> _nodes;

    public PriorityQueue(int initialCapacity, IComparer<TPriority>? comparer)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(initialCapacity);
        _nodes = new List<(TElement, TPriority)>(initialCapacity);
        _comparer = comparer ?? Comparer<TPriority>.Default;
    }

    public int Count => _nodes.Count;

    public void Clear() => _nodes.Clear();

    public void Enqueue(TElement element, TPriority priority)
    {
        _nodes.Add((element, priority));
        int i = _nodes.Count - 1;
        while (i > 0)
        {
            int parent = (i - 1) / 2;
            if (_comparer.Compare(_nodes[i].Priority, _nodes[parent].Priority) >= 0)
            {
                break;
            }

            (_nodes[i], _nodes[parent]) = (_nodes[parent], _nodes[i]);
            i = parent;
        }
    }

    public TElement Dequeue() =>
        TryDequeue(out TElement element, out _) ? element : throw new InvalidOperationException("The queue is empty.");

    public bool TryDequeue(out TElement element, out TPriority priority)
    {
        if (_nodes.Count == 0)
        {
            element = default!;
            priority = default!;
            return false;
        }

        (element, priority) = _nodes[0];
        int last = _nodes.Count - 1;
        _nodes[0] = _nodes[last];
        _nodes.RemoveAt(last);
        int i = 0;
        while (true)
        {
            int smallest = i;
            int left = (2 * i) + 1;
            int right = left + 1;
            if (left < _nodes.Count && _comparer.Compare(_nodes[left].Priority, _nodes[smallest].Priority) < 0)
            {
                smallest = left;
            }

            if (right < _nodes.Count && _comparer.Compare(_nodes[right].Priority, _nodes[smallest].Priority) < 0)
            {
                smallest = right;
            }

            if (smallest == i)
            {
                return true;
            }

            (_nodes[i], _nodes[smallest]) = (_nodes[smallest], _nodes[i]);
            i = smallest;
        }
    }
}
#endif
