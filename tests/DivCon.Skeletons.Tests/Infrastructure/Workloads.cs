namespace DivCon.Skeletons.Tests.Infrastructure;

/// <summary>The programs of the grid tests, each in both authoring models, with a sequential reference answer.</summary>
public static class Workloads
{
    // ---------- Sum of the integers of a range, halving it down to a leaf size. ----------

    public static long SequentialSum(IndexRange range)
    {
        long sum = 0;
        for (int i = range.Start; i < range.End; i++)
        {
            sum += i;
        }

        return sum;
    }

    public static DivideAndConquer<IndexRange, long> SumLambda(int leafSize, DivideAndConquerOptions? options = null) =>
        DivideAndConquer.Create<IndexRange, long>(
            shouldSplit: (range, depth) => range.Length > leafSize,
            split: (range, depth) => range.Split(2),
            execute: (range, depth) => SequentialSum(range),
            merge: (sums, depth) => sums.Sum(),
            options);

    public sealed class SumProgram(int leafSize) : DivideAndConquer<IndexRange, long>
    {
        protected override bool ShouldSplit(IndexRange problem, int depth) => problem.Length > leafSize;

        protected override IReadOnlyList<IndexRange> Split(IndexRange problem, int depth) => problem.Split(2);

        protected override long Execute(IndexRange problem, int depth) => SequentialSum(problem);

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => subresults.Sum();
    }

    // ---------- The README's quicksort (three-way partition by LINQ, concatenate). ----------

    public static int[] RandomArray(int length, int seed)
    {
        var random = new Random(seed);
        var items = new int[length];
        for (int i = 0; i < length; i++)
        {
            items[i] = random.Next(0, length / 4);
        }

        return items;
    }

    public static int[] SequentialSort(int[] items)
    {
        var copy = (int[])items.Clone();
        Array.Sort(copy);
        return copy;
    }

    public static DivideAndConquer<int[], int[]> QuicksortLambda(int leafSize) =>
        DivideAndConquer.Create<int[], int[]>(
            shouldSplit: (items, depth) => items.Length > leafSize && depth < 40,
            split: (items, depth) =>
            {
                int pivot = items[items.Length / 2];
                return [items.Where(x => x < pivot).ToArray(),
                        items.Where(x => x == pivot).ToArray(),
                        items.Where(x => x > pivot).ToArray()];
            },
            execute: (items, depth) => SequentialSort(items),
            merge: (parts, depth) => [.. parts[0], .. parts[1], .. parts[2]]);

    public sealed class QuicksortProgram(int leafSize) : DivideAndConquer<int[], int[]>
    {
        protected override bool ShouldSplit(int[] problem, int depth) => problem.Length > leafSize && depth < 40;

        protected override IReadOnlyList<int[]> Split(int[] problem, int depth)
        {
            int pivot = problem[problem.Length / 2];
            return [problem.Where(x => x < pivot).ToArray(), problem.Where(x => x == pivot).ToArray(), problem.Where(x => x > pivot).ToArray()];
        }

        protected override int[] Execute(int[] problem, int depth) => SequentialSort(problem);

        protected override int[] Merge(IReadOnlyList<int[]> subresults, int depth) => [.. subresults[0], .. subresults[1], .. subresults[2]];
    }

    // ---------- An irregular tree: 1 to 4 children per node, leaves at any depth. ----------

    public const int IrregularMaxDepth = 9;

    /// <summary>A deterministic hash (SplitMix64's finaliser) that shapes the irregular tree.</summary>
    public static ulong Mix(ulong x)
    {
        x += 0x9E3779B97F4A7C15UL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
        return x ^ (x >> 31);
    }

    public static bool IrregularIsInternal(ulong id, int depth) => depth < IrregularMaxDepth && (depth == 0 || Mix(id) % 3 != 0);

    public static ulong[] IrregularChildren(ulong id)
    {
        int count = 1 + (int)(Mix(id ^ 0xABCDEF) % 4);
        var children = new ulong[count];
        for (int i = 0; i < count; i++)
        {
            children[i] = (id * 5) + (ulong)i + 1;
        }

        return children;
    }

    public static long IrregularLeaf(ulong id) => (long)(id % 1000) + 1;

    /// <summary>Merge is order-sensitive on purpose (a polynomial), so a result in the wrong slot changes the answer.</summary>
    public static long IrregularMerge(IReadOnlyList<long> results)
    {
        long hash = 17;
        foreach (long r in results)
        {
            hash = unchecked((hash * 31) + r);
        }

        return hash;
    }

    public static long SequentialIrregular(ulong id, int depth) =>
        IrregularIsInternal(id, depth)
            ? IrregularMerge(IrregularChildren(id).Select(child => SequentialIrregular(child, depth + 1)).ToArray())
            : IrregularLeaf(id);

    public static DivideAndConquer<ulong, long> IrregularLambda() =>
        DivideAndConquer.Create<ulong, long>(
            shouldSplit: IrregularIsInternal,
            split: (id, depth) => IrregularChildren(id),
            execute: (id, depth) => IrregularLeaf(id),
            merge: (results, depth) => IrregularMerge(results));

    public sealed class IrregularProgram : DivideAndConquer<ulong, long>
    {
        protected override bool ShouldSplit(ulong problem, int depth) => IrregularIsInternal(problem, depth);

        protected override IReadOnlyList<ulong> Split(ulong problem, int depth) => IrregularChildren(problem);

        protected override long Execute(ulong problem, int depth) => IrregularLeaf(problem);

        protected override long Merge(IReadOnlyList<long> subresults, int depth) => IrregularMerge(subresults);
    }
}
