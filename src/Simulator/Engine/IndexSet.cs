namespace DivCon.Simulator.Engine;

/// <summary>
/// A set of small integers in [0, capacity) with O(1) add, remove, membership and uniformly random choice: the
/// members are packed in <c>_members[0.._count)</c> and <c>_position[x]</c> says where x is (-1 when absent).
/// </summary>
internal sealed class IndexSet
{
    private int[] _members;
    private int[] _position;
    private int _count;

    public IndexSet(int capacity)
    {
        _members = new int[capacity];
        _position = new int[capacity];
        Array.Fill(_position, -1);
    }

    public int Count => _count;

    /// <summary>Widens the range to [0, <paramref name="capacity"/>); members stay (the thread-pool model adds threads).</summary>
    public void Grow(int capacity)
    {
        int old = _position.Length;
        if (capacity <= old)
        {
            return;
        }

        Array.Resize(ref _members, capacity);
        Array.Resize(ref _position, capacity);
        Array.Fill(_position, -1, old, capacity - old);
    }

    public bool Contains(int x) => _position[x] >= 0;

    public void Add(int x)
    {
        if (_position[x] >= 0)
        {
            return;
        }

        _position[x] = _count;
        _members[_count++] = x;
    }

    public void Remove(int x)
    {
        int at = _position[x];
        if (at < 0)
        {
            return;
        }

        // Move the last member into the hole so the members stay packed.
        int last = _members[--_count];
        _members[at] = last;
        _position[last] = at;
        _position[x] = -1;
    }

    /// <summary>A uniformly random member; the set must not be empty.</summary>
    public int Random(Random random) => _members[random.Next(_count)];
}
