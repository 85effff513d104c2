using System.Runtime.CompilerServices;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots.Kernels;

/// <summary>
/// BOTS Sort (cilksort): sort each quarter of the array, merge the quarters pairwise into a scratch array and the two
/// halves back, every merge itself divide and conquer (split the longer run at its middle element, find by binary
/// search where that element goes in the shorter run, merge the two pairs of pieces independently). Leaves:
/// quicksort below <see cref="QuickCutoff"/> elements (insertion sort below <see cref="InsertionCutoff"/>), a
/// sequential merge when the shorter run has fewer than <see cref="MergeCutoff"/> elements: the suite's defaults.
/// </summary>
internal sealed class SortKernel : KernelCase
{
    /// <summary>Below this many elements a quarter is quicksorted sequentially (the suite's default).</summary>
    public const int QuickCutoff = 2048;

    /// <summary>A merge whose shorter run has fewer elements is sequential (the suite's default).</summary>
    public const int MergeCutoff = 2048;

    /// <summary>Below this many elements quicksort finishes with insertion sort (the suite's default).</summary>
    public const int InsertionCutoff = 20;

    private readonly int[] _input;
    private readonly int[] _data;
    private readonly int[] _scratch;
    private readonly DivideAndConquer<SortJob, bool> _divConSort;

    // The nested merges' options: no scheduler (the caller's, the run's own) and the run's observer, so that the node
    // counts include them. One run of one variant at a time, so a field.
    private DivideAndConquerOptions _nested = DivideAndConquerOptions.Default;

    /// <summary>Creates the sort of <paramref name="length"/> pseudo-random integers (a fixed seed).</summary>
    public SortKernel(int length)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(length, 1);
        _input = new int[length];
        uint state = 2463534242;
        for (int i = 0; i < length; i++)
        {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            _input[i] = (int)state;
        }

        _data = new int[length];
        _scratch = new int[length];

        // The outer sort merges with nested map-reduces (MergeAsync), so its merge is asynchronous (CreateAsync, with a
        // synchronous split into quarters). The default, automatic granularity runs small subtrees inline.
        _divConSort = DivideAndConquer.CreateAsync<SortJob, bool>(
            shouldSplit: (job, depth) => job.Length >= QuickCutoff,
            split: (job, depth) => job.Quarters(),
            execute: (job, depth) =>
            {
                QuickSort(_data, job.Start, job.Start + job.Length - 1);
                return true;
            },
            mergeAsync: MergeQuartersAsync);
    }

    /// <inheritdoc/>
    public override string Name => "sort";

    /// <inheritdoc/>
    public override string Description =>
        $"{_input.Length:N0} ints; quicksort below {QuickCutoff}, insertion below {InsertionCutoff}, sequential merge below {MergeCutoff}";

    /// <summary>The sorted output of the last run.</summary>
    public ReadOnlySpan<int> Output => _data;

    /// <summary>The unsorted input.</summary>
    public ReadOnlySpan<int> Input => _input;

    /// <inheritdoc/>
    public override void Reset() => _input.CopyTo(_data, 0);

    /// <inheritdoc/>
    public override ulong Checksum()
    {
        var digest = new Digest();
        digest.Add<int>(_data);
        return digest.Value;
    }

    /// <inheritdoc/>
    public override Task RunAsync(Variant variant, DivideAndConquerOptions divCon)
    {
        var all = new SortJob(0, _data.Length);
        switch (variant)
        {
            case Variant.Sequential:
                SortSequential(all);
                return Task.CompletedTask;
            case Variant.ParallelInvoke:
                SortInvoke(all);
                return Task.CompletedTask;
            case Variant.TaskRun:
                return SortTasksAsync(all);
            default:
                _nested = DivideAndConquerOptions.Default with { Observer = divCon.Observer };
                return _divConSort.RunAsync(all, divCon);
        }
    }

    // ---- the sequential pieces shared by every variant ----

    /// <summary>Quicksort of a[low..high] (inclusive), median-of-three pivot, insertion sort for short ranges.</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    internal static void QuickSort(int[] a, int low, int high)
    {
        while (high - low >= InsertionCutoff)
        {
            int cut = Partition(a, low, high);
            // Recurse into the smaller side, loop on the larger: the stack stays logarithmic.
            if (cut - low < high - cut)
            {
                QuickSort(a, low, cut);
                low = cut + 1;
            }
            else
            {
                QuickSort(a, cut + 1, high);
                high = cut;
            }
        }

        for (int i = low + 1; i <= high; i++)
        {
            int value = a[i];
            int j = i - 1;
            while (j >= low && a[j] > value)
            {
                a[j + 1] = a[j];
                j--;
            }

            a[j + 1] = value;
        }
    }

    // Hoare partition around the median of the first, middle and last elements: afterwards a[low..cut] <= pivot <=
    // a[cut+1..high], and low <= cut < high because the pivot is one of the range's values.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static int Partition(int[] a, int low, int high)
    {
        int x = a[low], y = a[low + ((high - low) / 2)], z = a[high];
        int pivot = Math.Max(Math.Min(x, y), Math.Min(Math.Max(x, y), z));
        int i = low - 1, j = high + 1;
        while (true)
        {
            do
            {
                i++;
            }
            while (a[i] < pivot);
            do
            {
                j--;
            }
            while (a[j] > pivot);
            if (i >= j)
            {
                return j;
            }

            (a[i], a[j]) = (a[j], a[i]);
        }
    }

    private MergeJob LowHalves(SortJob job) => new(_data, job.Start, job.Start + job.Quarter, job.Start + job.Quarter, job.Start + (2 * job.Quarter), _scratch, job.Start);

    private MergeJob HighHalves(SortJob job) => new(_data, job.Start + (2 * job.Quarter), job.Start + (3 * job.Quarter), job.Start + (3 * job.Quarter), job.End, _scratch, job.Start + (2 * job.Quarter));

    private MergeJob Whole(SortJob job) => new(_scratch, job.Start, job.Start + (2 * job.Quarter), job.Start + (2 * job.Quarter), job.End, _data, job.Start);

    // ---- sequential ----

    private void SortSequential(SortJob job)
    {
        if (job.Length < QuickCutoff)
        {
            QuickSort(_data, job.Start, job.End - 1);
            return;
        }

        foreach (SortJob quarter in job.Quarters())
        {
            SortSequential(quarter);
        }

        MergeSequential(LowHalves(job));
        MergeSequential(HighHalves(job));
        MergeSequential(Whole(job));
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void MergeSequential(MergeJob job)
    {
        if (!job.IsLarge)
        {
            job.MergeSequentially();
            return;
        }

        var (left, right) = job.Divide();
        MergeSequential(left);
        MergeSequential(right);
    }

    // ---- Parallel.Invoke ----

    private void SortInvoke(SortJob job)
    {
        if (job.Length < QuickCutoff)
        {
            QuickSort(_data, job.Start, job.End - 1);
            return;
        }

        SortJob[] q = job.Quarters();
        Parallel.Invoke(() => SortInvoke(q[0]), () => SortInvoke(q[1]), () => SortInvoke(q[2]), () => SortInvoke(q[3]));
        Parallel.Invoke(() => MergeInvoke(LowHalves(job)), () => MergeInvoke(HighHalves(job)));
        MergeInvoke(Whole(job));
    }

    private static void MergeInvoke(MergeJob job)
    {
        if (!job.IsLarge)
        {
            job.MergeSequentially();
            return;
        }

        var (left, right) = job.Divide();
        Parallel.Invoke(() => MergeInvoke(left), () => MergeInvoke(right));
    }

    // ---- Task.Run / Task.WhenAll ----

    private async Task SortTasksAsync(SortJob job)
    {
        if (job.Length < QuickCutoff)
        {
            QuickSort(_data, job.Start, job.End - 1);
            return;
        }

        SortJob[] q = job.Quarters();
        await Task.WhenAll(
            Task.Run(() => SortTasksAsync(q[0])),
            Task.Run(() => SortTasksAsync(q[1])),
            Task.Run(() => SortTasksAsync(q[2])),
            Task.Run(() => SortTasksAsync(q[3]))).ConfigureAwait(false);
        await Task.WhenAll(
            Task.Run(() => MergeTasksAsync(LowHalves(job))),
            Task.Run(() => MergeTasksAsync(HighHalves(job)))).ConfigureAwait(false);
        await MergeTasksAsync(Whole(job)).ConfigureAwait(false);
    }

    private static Task MergeTasksAsync(MergeJob job)
    {
        if (!job.IsLarge)
        {
            job.MergeSequentially();
            return Task.CompletedTask;
        }

        var (left, right) = job.Divide();
        return Task.WhenAll(Task.Run(() => MergeTasksAsync(left)), Task.Run(() => MergeTasksAsync(right)));
    }

    // ---- DivCon ----

    // Nested runs name no scheduler: they run on the caller's, the sort's own. No ConfigureAwait(false) before the
    // third merge, which must start on that scheduler too.
    private async ValueTask<bool> MergeQuartersAsync(SortJob job, IReadOnlyList<bool> sorted, int depth, CancellationToken cancellationToken)
    {
        await Task.WhenAll(
            MergeAsync(LowHalves(job), cancellationToken).AsTask(),
            MergeAsync(HighHalves(job), cancellationToken).AsTask());
        return await MergeAsync(Whole(job), cancellationToken);
    }

    // A merge as a nested map-reduce over its elements: split at the middle of the longer run (each side is smaller
    // by at least the pivot), merge sequentially. Its cost is learned per element, shared by every merge (static
    // lambdas), so a merge of any length is predicted from its size: small ones run inline, large ones are cut into
    // leaves of at most the maximum task duration.
    private ValueTask<bool> MergeAsync(MergeJob job, CancellationToken cancellationToken) =>
        DivideAndConquer.MapReduceAsync(
            job,
            getSize: static merge => (long)(merge.A1 - merge.A0) + (merge.B1 - merge.B0),
            split: static merge => merge.Divide(),
            map: static merge => merge.MergeSequentially(),
            reduce: static (_, _) => true,
            _nested,
            cancellationToken: cancellationToken);

    /// <summary>A range of the array to sort.</summary>
    internal readonly record struct SortJob(int Start, int Length)
    {
        public int End => Start + Length;

        public int Quarter => Length / 4;

        /// <summary>The four quarters (the last takes the remainder).</summary>
        public SortJob[] Quarters()
        {
            int q = Quarter;
            return [new(Start, q), new(Start + q, q), new(Start + (2 * q), q), new(Start + (3 * q), Length - (3 * q))];
        }
    }

    /// <summary>The merge of the sorted runs <c>Source[A0..A1)</c> and <c>Source[B0..B1)</c> into <c>Destination</c> from <c>At</c>.</summary>
    internal readonly record struct MergeJob(int[] Source, int A0, int A1, int B0, int B1, int[] Destination, int At)
    {
        /// <summary>Whether both runs have at least <see cref="MergeCutoff"/> elements (the suite merges sequentially otherwise).</summary>
        public bool IsLarge => Math.Min(A1 - A0, B1 - B0) >= MergeCutoff;

        /// <summary>
        /// Splits at the middle element of the longer run, which goes straight to its final place; the elements of
        /// the shorter run below it (binary search) go to the first merge, the rest to the second.
        /// </summary>
        public (MergeJob Left, MergeJob Right) Divide()
        {
            var (a0, a1, b0, b1) = A1 - A0 >= B1 - B0 ? (A0, A1, B0, B1) : (B0, B1, A0, A1);
            int middle = a0 + ((a1 - a0) / 2);
            int pivot = Source[middle];
            int low = b0, high = b1;
            while (low < high)
            {
                int probe = low + ((high - low) / 2);
                if (Source[probe] < pivot)
                {
                    low = probe + 1;
                }
                else
                {
                    high = probe;
                }
            }

            int place = At + (middle - a0) + (low - b0);
            Destination[place] = pivot;
            return (new MergeJob(Source, a0, middle, b0, low, Destination, At), new MergeJob(Source, middle + 1, a1, low, b1, Destination, place + 1));
        }

        /// <summary>Merges sequentially; always true (the programs' unit result).</summary>
        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public bool MergeSequentially()
        {
            int i = A0, j = B0, k = At;
            while (i < A1 && j < B1)
            {
                Destination[k++] = Source[j] < Source[i] ? Source[j++] : Source[i++];
            }

            Array.Copy(Source, i, Destination, k, A1 - i);
            Array.Copy(Source, j, Destination, k + (A1 - i), B1 - j);
            return true;
        }
    }
}
