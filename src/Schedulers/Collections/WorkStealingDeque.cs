using System.Diagnostics;

namespace DivCon.Schedulers.Collections;

/// <summary>
/// A growable work-stealing deque: one owner thread pushes and pops at the bottom (LIFO), any number of thieves
/// take from the top (FIFO).
/// </summary>
/// <remarks>
/// <para>
/// <b>Algorithm.</b> The dynamic circular work-stealing deque of Chase and Lev ("Dynamic Circular Work-Stealing
/// Deque", SPAA 2005), with the memory orderings that Lê, Pop, Cohen and Zappa Nardelli proved sufficient for the
/// C11 memory model ("Correct and Efficient Work-Stealing for Weak Memory Models", PPoPP 2013). Two indices,
/// <c>top</c> and <c>bottom</c>, grow without bound; the live items are the indices in <c>[top, bottom)</c>,
/// stored at <c>index &amp; (capacity - 1)</c> of a power-of-two circular array.
/// </para>
/// <list type="bullet">
/// <item><see cref="LocalPush"/> writes the slot, then publishes it with a release store of <c>bottom</c>. When the
/// array is full the owner copies the live range into an array twice the size (thieves may keep reading the old
/// one: it still holds the same items at the same indices).</item>
/// <item><see cref="LocalPop"/> reserves the bottom item by decrementing <c>bottom</c>, fences, then reads
/// <c>top</c>. Only when one item is left does it race thieves, with a compare-and-swap on <c>top</c>.</item>
/// <item><see cref="TrySteal"/> reads <c>top</c>, fences, reads <c>bottom</c>, reads the slot, then claims it with
/// one compare-and-swap on <c>top</c>. Losing that race is reported as <see cref="StealResult.Retry"/>.</item>
/// </list>
/// <para>
/// <b>Threading contract.</b> <see cref="LocalPush"/>, <see cref="LocalPop"/> and <see cref="LocalDrain"/> must only
/// be called by one thread at a time (the owner); the deque does not check. <see cref="TrySteal"/> and
/// <see cref="Count"/> may be called from any thread. Every item pushed comes out exactly once, by a pop, a drain
/// or a steal.
/// </para>
/// <para>
/// <b>Memory.</b> Slots the owner pops are cleared; a stolen slot keeps its reference until the owner
/// overwrites it (a thief cannot clear it safely because the owner may already be reusing the slot), so up to
/// <c>capacity</c> stolen items can stay reachable for a while.
/// </para>
/// <example>
/// <code>
/// var deque = new WorkStealingDeque&lt;string&gt;();
/// deque.LocalPush("a"); deque.LocalPush("b");
/// deque.LocalPop();                              // "b" (LIFO for the owner)
/// deque.TrySteal(out var stolen);                // Success, stolen == "a" (FIFO for thieves)
/// </code>
/// </example>
/// </remarks>
/// <typeparam name="T">The item type; <see langword="null"/> is not a valid item.</typeparam>
internal sealed class WorkStealingDeque<T>
    where T : class
{
    /// <summary>The capacity used when none is given.</summary>
    public const int DefaultInitialCapacity = 32;

    // Thieves write top, the owner writes bottom: each on its own cache line.
    private CacheLinePaddedInt64 _top;
    private CacheLinePaddedInt64 _bottom;

    // Replaced only by the owner (growth); thieves read whichever array they see.
    private T?[] _array;

    /// <summary>Creates an empty deque.</summary>
    /// <param name="initialCapacity">Slots before the first growth; rounded up to a power of two, at least 2.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="initialCapacity"/> is below 1 or above 2^30.</exception>
    public WorkStealingDeque(int initialCapacity = DefaultInitialCapacity)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(initialCapacity, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(initialCapacity, 1 << 30);
        int capacity = 2;
        while (capacity < initialCapacity)
        {
            capacity <<= 1;
        }

        _array = new T?[capacity];
    }

    /// <summary>
    /// The number of items, approximately: exact when no other thread is using the deque, otherwise a value the
    /// deque held at some moment during the call, give or take the operations in flight. Never negative.
    /// </summary>
    public int Count
    {
        get
        {
            // Acquire reads (any order): a snapshot good enough for heuristics and idle checks.
            long top = Volatile.Read(ref _top.Value);
            long bottom = Volatile.Read(ref _bottom.Value);
            long count = bottom - top;
            return count <= 0 ? 0 : (int)Math.Min(count, int.MaxValue);
        }
    }

    /// <summary>Whether the deque looked empty (see <see cref="Count"/> for how exact that is).</summary>
    public bool IsEmpty => Count == 0;

    /// <summary>The current capacity of the circular array (grows by doubling).</summary>
    public int Capacity => Volatile.Read(ref _array).Length;

    /// <summary>Owner only: pushes an item at the bottom.</summary>
    /// <param name="item">The item; not null.</param>
    /// <exception cref="ArgumentNullException"><paramref name="item"/> is null.</exception>
    public void LocalPush(T item)
    {
        ArgumentNullException.ThrowIfNull(item);
        long bottom = _bottom.Value; // Only the owner writes bottom: a plain read sees its own last write.
        // Acquire: a thief's claim of a slot (top moving past it) happens-before we overwrite that slot.
        long top = Volatile.Read(ref _top.Value);
        T?[] array = _array;
        if (bottom - top > array.Length - 1)
        {
            array = Grow(array, top, bottom);
        }

        array[bottom & (array.Length - 1)] = item;
        // Release: the slot write (and a grown array's contents) is visible to any thief that sees the new bottom.
        Volatile.Write(ref _bottom.Value, bottom + 1);
    }

    /// <summary>Owner only: pops the most recently pushed item (LIFO).</summary>
    /// <returns>The item, or <see langword="null"/> when the deque is empty or a thief won the last item.</returns>
    public T? LocalPop()
    {
        long bottom = _bottom.Value - 1;
        T?[] array = _array;
        // Full fence: our reservation of slot `bottom` must be visible before we read top, and a thief reads top
        // before bottom, so at most one of us can believe it owns the last item without the CAS below.
        Interlocked.Exchange(ref _bottom.Value, bottom);
        long top = Volatile.Read(ref _top.Value); // Ordered after the exchange by its fence.
        if (top > bottom)
        {
            // Empty: undo the reservation. Plain-order store is enough; thieves that read the transient value saw
            // an empty range either way.
            Volatile.Write(ref _bottom.Value, bottom + 1);
            return null;
        }

        int slot = (int)(bottom & (array.Length - 1));
        T? item = array[slot];
        if (top < bottom)
        {
            // More than one item: thieves only claim indices below bottom, so this slot is ours alone.
            array[slot] = null;
            Debug.Assert(item is not null, "A reserved slot below the live range's end holds an item.");
            return item;
        }

        // Exactly one item: race thieves for it. Full fence (CAS) so that a thief that read the same top fails.
        bool won = Interlocked.CompareExchange(ref _top.Value, top + 1, top) == top;
        if (won)
        {
            // Index `top` is claimed by us, so no thief can return it; one that read the slot fails its CAS.
            array[slot] = null;
        }

        // Release: restore bottom = top + 1 (the deque is now empty either way) after the CAS settled top.
        Volatile.Write(ref _bottom.Value, bottom + 1);
        return won ? item : null;
    }

    /// <summary>Any thread: tries to take the oldest item (the top).</summary>
    /// <param name="item">The stolen item on <see cref="StealResult.Success"/>, otherwise <see langword="null"/>.</param>
    /// <returns>Whether an item was taken, the deque looked empty, or another thread won the race.</returns>
    public StealResult TrySteal(out T? item)
    {
        // Acquire: the top we read is at least as new as any slot claim we then rely on.
        long top = Volatile.Read(ref _top.Value);
        // Full fence: read top before bottom, pairing with the owner's fence in LocalPop (store bottom, then load top).
        Interlocked.MemoryBarrier();
        // Acquire: pairs with LocalPush's release, so the slot (and a grown array) behind this bottom is visible.
        long bottom = Volatile.Read(ref _bottom.Value);
        if (top >= bottom)
        {
            item = null;
            return StealResult.Empty;
        }

        // Acquire: the array we index is at least the one that was current when bottom was published.
        T?[] array = Volatile.Read(ref _array);
        T? candidate = array[top & (array.Length - 1)];
        // Full fence (CAS): claim index `top`; if anyone moved top first, the slot we read may be stale.
        if (Interlocked.CompareExchange(ref _top.Value, top + 1, top) != top)
        {
            item = null;
            return StealResult.Retry;
        }

        Debug.Assert(candidate is not null, "A claimed slot inside the live range holds an item.");
        item = candidate;
        return StealResult.Success;
    }

    /// <summary>
    /// Owner only: pops every item into <paramref name="destination"/>, oldest first (so re-queuing them in that
    /// order keeps the order thieves would have taken them in). Concurrent thieves may still take some.
    /// </summary>
    /// <param name="destination">Receives the items.</param>
    /// <returns>The number of items added to <paramref name="destination"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="destination"/> is null.</exception>
    public int LocalDrain(ICollection<T> destination)
    {
        ArgumentNullException.ThrowIfNull(destination);
        var popped = new List<T>();
        while (LocalPop() is { } item)
        {
            popped.Add(item);
        }

        for (int i = popped.Count - 1; i >= 0; i--)
        {
            destination.Add(popped[i]);
        }

        return popped.Count;
    }

    /// <summary>
    /// Any thread, for debuggers and diagnostics: the items that looked live at the time of the call, oldest first.
    /// Not a consistent snapshot while other threads use the deque.
    /// </summary>
    /// <returns>A new array of the items seen.</returns>
    public T[] ToArraySnapshot()
    {
        // Acquire reads, top first: the range read is one the deque held recently; racing slots may be missed.
        long top = Volatile.Read(ref _top.Value);
        long bottom = Volatile.Read(ref _bottom.Value);
        T?[] array = Volatile.Read(ref _array);
        var items = new List<T>((int)Math.Clamp(bottom - top, 0, array.Length));
        for (long i = top; i < bottom && i - top < array.Length; i++)
        {
            if (array[i & (array.Length - 1)] is { } item)
            {
                items.Add(item);
            }
        }

        return [.. items];
    }

    private T?[] Grow(T?[] array, long top, long bottom)
    {
        int capacity = array.Length;
        if (capacity >= 1 << 30)
        {
            ThrowFull();
        }

        var grown = new T?[capacity << 1];
        for (long i = top; i < bottom; i++)
        {
            grown[i & (grown.Length - 1)] = array[i & (capacity - 1)];
        }

        // Release: the copied contents are visible to any thief that reads the new array reference.
        Volatile.Write(ref _array, grown);
        return grown;
    }

    private static void ThrowFull() =>
        throw new InvalidOperationException("The work-stealing deque cannot grow beyond 2^30 items.");
}

/// <summary>The outcome of one <see cref="WorkStealingDeque{T}.TrySteal"/> attempt.</summary>
internal enum StealResult
{
    /// <summary>The deque looked empty; nothing was taken.</summary>
    Empty,

    /// <summary>One item was taken from the top (the oldest end) of the deque.</summary>
    Success,

    /// <summary>
    /// Another thief or the owner took the item this thief was after (one lost compare-and-swap). The deque may
    /// still hold items; the caller decides whether to try again now or move on.
    /// </summary>
    Retry,
}
