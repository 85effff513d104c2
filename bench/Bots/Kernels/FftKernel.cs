using System.Numerics;
using System.Runtime.CompilerServices;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots.Kernels;

/// <summary>
/// BOTS FFT, radix 2: a recursive Cooley-Tukey transform whose every step is three parallel parts: unshuffle the
/// input into even and odd halves (a parallel loop), transform both halves (two subproblems, the scratch and output
/// arrays trading places), and combine them with the twiddle factors (a parallel loop). The suite's loops split
/// their range down to <see cref="LoopGrain"/> indices; transforms of at most <see cref="TaskCutoff"/> points run
/// sequentially (the suite spawns every sub-transform down to its 2-32 point codelets; at radix 2 that would be a task
/// per pair of points, so the same 128 bounds the recursion too).
/// </summary>
internal sealed class FftKernel : KernelCase
{
    /// <summary>A parallel loop is split until a piece has at most this many indices (the suite's value).</summary>
    public const int LoopGrain = 128;

    /// <summary>Transforms of at most this many points run sequentially.</summary>
    public const int TaskCutoff = 128;

    private readonly Complex[] _input;
    private readonly Complex[] _in;
    private readonly Complex[] _out;
    private readonly Complex[] _roots;
    private readonly DivideAndConquer<FftJob, bool> _divCon;
    private readonly DivideAndConquer<FftJob, bool> _divConSeqLoops;

    // The nested loops' options: no scheduler (they run on the caller's, the run's own) and the run's observer, so
    // that the node counts include them. One run of one variant at a time, so a field.
    private DivideAndConquerOptions _loops = DivideAndConquerOptions.Default;

    /// <summary>
    /// The nested loops' granularity in the nested-loop variants; null (the default) keeps the automatic default. A test
    /// can raise the minimum task cost so far that a measurement inflated by preemption cannot cross it.
    /// </summary>
    public Granularity? LoopGranularity { get; init; }

    /// <summary>Creates the transform of <paramref name="points"/> pseudo-random complex values.</summary>
    public FftKernel(int points)
    {
        if (points < 2 || (points & (points - 1)) != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(points), points, "The FFT needs a power of two of at least 2 points.");
        }

        _input = new Complex[points];
        var random = new Random(17);
        for (int i = 0; i < points; i++)
        {
            _input[i] = new Complex(random.NextDouble() - 0.5, random.NextDouble() - 0.5);
        }

        _in = new Complex[points];
        _out = new Complex[points];
        _roots = new Complex[points / 2];
        for (int k = 0; k < _roots.Length; k++)
        {
            double angle = -2 * Math.PI * k / points;
            _roots[k] = new Complex(Math.Cos(angle), Math.Sin(angle));
        }

        // Nested loops inside the split (unshuffle) and the merge (twiddle), two halves: CreateBinaryAsync. The loops
        // are created per node (closures over the node's job) and share the learned cost of their lambda; below the
        // minimum task cost they run inline, and so do whole small subtrees (the default, automatic granularity).
        _divCon = DivideAndConquer.CreateBinaryAsync<FftJob, bool>(
            shouldSplit: (job, depth) => job.N > TaskCutoff,
            splitAsync: SplitAsync,
            execute: (job, depth) => TransformSequential(job),
            mergeAsync: MergeAsync);

        // The same recursion with both loops sequential: a synchronous program, the baseline of the node counts.
        _divConSeqLoops = DivideAndConquer.CreateBinary<FftJob, bool>(
            shouldSplit: (job, depth) => job.N > TaskCutoff,
            split: (job, depth) =>
            {
                Unshuffle(job, 0, job.N / 2);
                return job.Halves();
            },
            execute: (job, depth) => TransformSequential(job),
            merge: (job, first, second, depth) =>
            {
                Twiddle(job, 0, job.N / 2);
                return true;
            });
    }

    /// <inheritdoc/>
    public override string Name => "fft";

    /// <inheritdoc/>
    public override IReadOnlyList<Variant> Variants { get; } = [.. VariantNames.All, Variant.DivConSeqLoops];

    /// <inheritdoc/>
    public override string Description => $"{_input.Length:N0} complex points, radix 2; loops split to {LoopGrain}, sequential at {TaskCutoff} points";

    /// <summary>The transform of the last run.</summary>
    public ReadOnlySpan<Complex> Output => _out;

    /// <summary>The input.</summary>
    public ReadOnlySpan<Complex> Input => _input;

    /// <inheritdoc/>
    public override void Reset()
    {
        _input.CopyTo(_in, 0);
        Array.Clear(_out);
    }

    /// <inheritdoc/>
    public override ulong Checksum()
    {
        var digest = new Digest();
        digest.Add<Complex>(_out);
        return digest.Value;
    }

    /// <inheritdoc/>
    public override Task RunAsync(Variant variant, DivideAndConquerOptions divCon)
    {
        var all = new FftJob(_in, _out, 0, _input.Length);
        switch (variant)
        {
            case Variant.Sequential:
                TransformSequential(all);
                return Task.CompletedTask;
            case Variant.ParallelInvoke:
                TransformInvoke(all);
                return Task.CompletedTask;
            case Variant.TaskRun:
                return TransformTasksAsync(all);
            case Variant.DivConSeqLoops:
                return _divConSeqLoops.RunAsync(all, divCon);
            default:
                _loops = DivideAndConquerOptions.Default with { Observer = divCon.Observer, Granularity = LoopGranularity };
                return _divCon.RunAsync(all, divCon);
        }
    }

    // ---- the sequential pieces shared by every variant ----

    // Even points of the input to the first half of the output, odd points to the second half, for i in [from, to).
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Unshuffle(FftJob job, int from, int to)
    {
        int half = job.N / 2;
        for (int i = from; i < to; i++)
        {
            job.Out[job.Offset + i] = job.In[job.Offset + (2 * i)];
            job.Out[job.Offset + half + i] = job.In[job.Offset + (2 * i) + 1];
        }
    }

    // After the halves were transformed into In: the butterflies for i in [from, to) into Out.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private void Twiddle(FftJob job, int from, int to)
    {
        int half = job.N / 2;
        int stride = _input.Length / job.N;
        for (int i = from; i < to; i++)
        {
            Complex even = job.In[job.Offset + i];
            Complex odd = _roots[i * stride] * job.In[job.Offset + half + i];
            job.Out[job.Offset + i] = even + odd;
            job.Out[job.Offset + half + i] = even - odd;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private bool TransformSequential(FftJob job)
    {
        if (job.N == 1)
        {
            job.Out[job.Offset] = job.In[job.Offset];
            return true;
        }

        int half = job.N / 2;
        Unshuffle(job, 0, half);
        var (first, second) = job.Halves();
        TransformSequential(first);
        TransformSequential(second);
        Twiddle(job, 0, half);
        return true;
    }

    // ---- Parallel.Invoke ----

    private void TransformInvoke(FftJob job)
    {
        if (job.N <= TaskCutoff)
        {
            TransformSequential(job);
            return;
        }

        int half = job.N / 2;
        TplLoops.InvokeFor(0, half, LoopGrain, (from, to) => Unshuffle(job, from, to));
        var (first, second) = job.Halves();
        Parallel.Invoke(() => TransformInvoke(first), () => TransformInvoke(second));
        TplLoops.InvokeFor(0, half, LoopGrain, (from, to) => Twiddle(job, from, to));
    }

    // ---- Task.Run / Task.WhenAll ----

    private async Task TransformTasksAsync(FftJob job)
    {
        if (job.N <= TaskCutoff)
        {
            TransformSequential(job);
            return;
        }

        int half = job.N / 2;
        await TplLoops.TaskFor(0, half, LoopGrain, (from, to) => Unshuffle(job, from, to)).ConfigureAwait(false);
        var (first, second) = job.Halves();
        await Task.WhenAll(Task.Run(() => TransformTasksAsync(first)), Task.Run(() => TransformTasksAsync(second))).ConfigureAwait(false);
        await TplLoops.TaskFor(0, half, LoopGrain, (from, to) => Twiddle(job, from, to)).ConfigureAwait(false);
    }

    // ---- DivCon ----

    // No ConfigureAwait(false): nothing runs after the loop but the return, and the skeleton resumes the node on the
    // run's scheduler either way; a loop predicted cheap completes at once and the node never suspends.
    private async ValueTask<(FftJob First, FftJob Second)> SplitAsync(FftJob job, int depth, CancellationToken cancellationToken)
    {
        await DivideAndConquer.ForRangesAsync(0, job.N / 2, range => Unshuffle(job, range.Start, range.End), _loops, cancellationToken: cancellationToken);
        return job.Halves();
    }

    private async ValueTask<bool> MergeAsync(FftJob job, bool first, bool second, int depth, CancellationToken cancellationToken)
    {
        await DivideAndConquer.ForRangesAsync(0, job.N / 2, range => Twiddle(job, range.Start, range.End), _loops, cancellationToken: cancellationToken);
        return true;
    }

    /// <summary>The transform of <c>In[Offset..Offset+N)</c> into <c>Out[Offset..Offset+N)</c>; <c>In</c> is scratch.</summary>
    internal sealed record FftJob(Complex[] In, Complex[] Out, int Offset, int N)
    {
        /// <summary>The two half transforms: from the unshuffled halves in <c>Out</c> back into <c>In</c>.</summary>
        public (FftJob First, FftJob Second) Halves() => (new FftJob(Out, In, Offset, N / 2), new FftJob(Out, In, Offset + (N / 2), N / 2));
    }
}
