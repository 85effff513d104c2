using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace DivCon.Programs.Sorting;

/// <summary>The sequential pieces the sorts are built from: pivot choice, partitions and the two-way merge.</summary>
public static class SortKernels
{
    /// <summary>How many leading elements the quicksort pivot is the median of.</summary>
    public const int PivotSampleSize = 100;

    /// <summary>The median of the first min(<see cref="PivotSampleSize"/>, length) elements of <paramref name="items"/>.</summary>
    /// <param name="items">At least one element.</param>
    /// <returns>The median (the upper one for an even sample).</returns>
    /// <exception cref="ArgumentException"><paramref name="items"/> is empty.</exception>
    public static int MedianOfFirst(ReadOnlySpan<int> items)
    {
        if (items.IsEmpty)
        {
            throw new ArgumentException("A pivot needs at least one element.", nameof(items));
        }

        Span<int> sample = stackalloc int[Math.Min(PivotSampleSize, items.Length)];
        items[..sample.Length].CopyTo(sample);
        sample.Sort();
        return sample[sample.Length / 2];
    }

    /// <summary>
    /// Copies <paramref name="source"/> into <paramref name="destination"/> (same length) partitioned: the elements
    /// less than <paramref name="pivot"/> first, the others after them. Branch-free: each element is written to both
    /// fronts and only the right front advances.
    /// </summary>
    /// <param name="source">The elements (not written).</param>
    /// <param name="destination">Where they go; same length.</param>
    /// <param name="pivot">The pivot.</param>
    /// <returns>The number of elements less than the pivot (the index of the first other element).</returns>
    public static int PartitionCopy(ReadOnlySpan<int> source, Span<int> destination, int pivot)
    {
        Debug.Assert(source.Length == destination.Length, "A copying partition writes exactly its source's length.");
        int low = 0, high = destination.Length;
        foreach (int value in source)
        {
            // Slots low and high - 1 are both unfilled (low < high here); one of them keeps the value, the other is
            // overwritten later. When they coincide the value lands in the last free slot.
            int less = value < pivot ? 1 : 0;
            destination[low] = value;
            destination[high - 1] = value;
            low += less;
            high -= 1 - less;
        }

        Debug.Assert(low == high, "Every slot is filled exactly once.");
        return low;
    }

    /// <summary>The number of elements of <paramref name="items"/> less than <paramref name="bound"/> (vectorised).</summary>
    /// <param name="items">The elements.</param>
    /// <param name="bound">The bound.</param>
    /// <returns>The count.</returns>
    internal static int CountLess(ReadOnlySpan<int> items, int bound)
    {
        int count = 0;
        int i = 0;
        if (Vector.IsHardwareAccelerated && items.Length >= Vector<int>.Count)
        {
            // LessThan gives -1 (all bits set) per lane where true, so subtracting it counts per lane; a lane counts at
            // most items.Length / lanes, far below int.MaxValue for any span.
            var bounds = new Vector<int>(bound);
            var counts = Vector<int>.Zero;
            var vectors = MemoryMarshal.Cast<int, Vector<int>>(items);
            foreach (var vector in vectors)
            {
                counts -= Vector.LessThan(vector, bounds);
            }

            count = Vector.Dot(counts, Vector<int>.One);
            i = vectors.Length * Vector<int>.Count;
        }

        for (; i < items.Length; i++)
        {
            count += items[i] < bound ? 1 : 0;
        }

        return count;
    }

    /// <summary>
    /// Copies <paramref name="source"/> into <paramref name="destination"/>, elements less than <paramref name="bound"/>
    /// to consecutive slots from <paramref name="lessStart"/>, the others to consecutive slots from
    /// <paramref name="otherStart"/>, each in source order. Branch-free, and it writes exactly one slot per element
    /// (never a slot of another block: blocks of a parallel partition scatter into the same array at once).
    /// </summary>
    /// <param name="source">The block's elements (not written; must not overlap the slots written).</param>
    /// <param name="destination">Receives them.</param>
    /// <param name="bound">Elements below it go to the first run.</param>
    /// <param name="lessStart">Where the block's elements below the bound start.</param>
    /// <param name="otherStart">Where the block's other elements start.</param>
    internal static void Scatter(ReadOnlySpan<int> source, int[] destination, int bound, int lessStart, int otherStart)
    {
        int less = lessStart, other = otherStart;
        foreach (int value in source)
        {
            // mask = -1 when value < bound, else 0: the slot is 'less' or 'other' without a branch.
            int mask = -(value < bound ? 1 : 0);
            destination[other + ((less - other) & mask)] = value;
            less -= mask;
            other += 1 + mask;
        }
    }

    /// <summary>Partitions <paramref name="items"/> in place: elements less than <paramref name="bound"/> first (Hoare's two-pointer scan).</summary>
    /// <param name="items">The elements.</param>
    /// <param name="bound">Elements below it go left.</param>
    /// <returns>The number of elements less than <paramref name="bound"/>.</returns>
    public static int PartitionInPlace(Span<int> items, int bound)
    {
        int i = 0, j = items.Length - 1;
        while (true)
        {
            while (i <= j && items[i] < bound)
            {
                i++;
            }

            while (i <= j && items[j] >= bound)
            {
                j--;
            }

            if (i >= j)
            {
                return i;
            }

            (items[i], items[j]) = (items[j], items[i]);
            i++;
            j--;
        }
    }

    /// <summary>
    /// Partitions, in place, elements all at least <paramref name="pivot"/> into those equal to it (first) and those
    /// greater.
    /// </summary>
    /// <param name="items">Elements, none less than <paramref name="pivot"/>.</param>
    /// <param name="pivot">The pivot.</param>
    /// <returns>The number of elements equal to the pivot.</returns>
    public static int PartitionEqual(Span<int> items, int pivot) =>
        pivot == int.MaxValue ? items.Length : PartitionInPlace(items, pivot + 1);

    /// <summary>Merges two sorted runs into <paramref name="destination"/> (length = sum of theirs), stable, left first on ties.</summary>
    /// <param name="left">A sorted run.</param>
    /// <param name="right">A sorted run.</param>
    /// <param name="destination">Where the merged run goes; must not overlap either input.</param>
    /// <exception cref="ArgumentException">The destination's length is wrong.</exception>
    /// <remarks>
    /// Bidirectional and branch-free: each step writes the smallest remaining element at the front and the largest at
    /// the back, choosing with a mask from the sign of the difference instead of a branch (a random merge mispredicts
    /// half of its branches), so the two ends form two independent dependency chains that the CPU overlaps. Both ends run
    /// min(left, right, total / 2) steps, which keeps every read inside the runs without bounds checks (after k &lt;
    /// min(left, right) steps the front has taken at most k elements of either run, and the back likewise); the
    /// elements between the two ends (none or a few when the runs are of about equal length, as mergesort's are) are
    /// then merged by the plain loop. The front takes the left element on ties and the back the right one, so the
    /// result is the stable merge.
    /// </remarks>
    public static void Merge(ReadOnlySpan<int> left, ReadOnlySpan<int> right, Span<int> destination)
    {
        if (destination.Length != left.Length + right.Length)
        {
            throw new ArgumentException($"The destination holds {destination.Length} elements, the runs {left.Length + right.Length}.", nameof(destination));
        }

        int total = destination.Length;
        int steps = Math.Min(Math.Min(left.Length, right.Length), total / 2);
        int i = 0, j = 0, p = left.Length - 1, q = right.Length - 1;
        if (steps > 0)
        {
            ref int l = ref MemoryMarshal.GetReference(left);
            ref int r = ref MemoryMarshal.GetReference(right);
            ref int d = ref MemoryMarshal.GetReference(destination);
            for (int k = 0; k < steps; k++)
            {
                // Front: i + j == k < min(left, right), so i and j index inside their runs. takeRight = -1 (all bits) when
                // b < a, else 0, from the sign of the 64-bit difference (no overflow for any ints). With conditional
                // expressions instead, the JIT (.NET 10, x64) selected the value with cmov but advanced i and j by branches.
                int a = Unsafe.Add(ref l, i), b = Unsafe.Add(ref r, j);
                int takeRight = (int)(((long)b - a) >> 63);
                Unsafe.Add(ref d, k) = a ^ ((a ^ b) & takeRight);
                j -= takeRight;
                i += 1 + takeRight;

                // Back: (left - 1 - p) + (right - 1 - q) == k, so p and q are at least 0. takeLeft = -1 when c > e.
                int c = Unsafe.Add(ref l, p), e = Unsafe.Add(ref r, q);
                int takeLeft = (int)(((long)e - c) >> 63);
                Unsafe.Add(ref d, total - 1 - k) = e ^ ((e ^ c) & takeLeft);
                p += takeLeft;
                q -= 1 + takeLeft;
            }
        }

        // The middle: left[i..p] and right[j..q] into destination[steps..total - steps] (the front's and back's sets
        // are the steps smallest and the steps largest in merge order, disjoint since 2 steps <= total).
        MergeForward(left[i..(p + 1)], right[j..(q + 1)], destination[steps..(total - steps)]);
    }

    private static void MergeForward(ReadOnlySpan<int> left, ReadOnlySpan<int> right, Span<int> destination)
    {
        Debug.Assert(destination.Length == left.Length + right.Length, "The middle holds exactly the elements not yet taken.");
        int i = 0, j = 0, k = 0;
        while (i < left.Length && j < right.Length)
        {
            int a = left[i], b = right[j];
            bool takeRight = b < a;
            destination[k++] = takeRight ? b : a;
            j += takeRight ? 1 : 0;
            i += takeRight ? 0 : 1;
        }

        left[i..].CopyTo(destination[k..]);
        right[j..].CopyTo(destination[(k + left.Length - i)..]);
    }

    /// <summary>Whether <paramref name="items"/> is in non-decreasing order; the index of the first descent otherwise.</summary>
    /// <param name="items">The elements.</param>
    /// <returns>-1 when sorted, else the first i with items[i] &gt; items[i + 1].</returns>
    public static int FindFirstDescent(ReadOnlySpan<int> items)
    {
        for (int i = 0; i + 1 < items.Length; i++)
        {
            if (items[i] > items[i + 1])
            {
                return i;
            }
        }

        return -1;
    }
}
