using System.Numerics;
using DivCon.Bench.Bots.Kernels;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots.Tests;

/// <summary>Every variant of every kernel against the sequential one, and the sequential ones against independent references.</summary>
public sealed class KernelTests : IDisposable
{
    private readonly WorkStealingTaskScheduler _workStealing = new(2);

    public static TheoryData<string, string> KernelsAndVariants()
    {
        var data = new TheoryData<string, string>();
        foreach (string kernel in KernelCatalog.Names)
        {
            foreach (Variant variant in KernelCatalog.Create(kernel, KernelSize.Small).Variants.Where(v => v != Variant.Sequential))
            {
                data.Add(kernel, variant.Name());
            }
        }

        return data;
    }

    public void Dispose() => _workStealing.Dispose();

    [Theory]
    [MemberData(nameof(KernelsAndVariants))]
    public async Task Every_variant_computes_the_sequential_result_bit_for_bit(string kernel, string variantName)
    {
        KernelCase k = KernelCatalog.Create(kernel, KernelSize.Small);
        Variant variant = k.Variants.Single(v => v.Name() == variantName);
        var (_, reference) = await Runner.RunOnceAsync(k, Variant.Sequential, _workStealing);

        // Twice: the second run of a DivCon program starts with what the first one learned.
        for (int run = 0; run < 2; run++)
        {
            var (_, digest) = await Runner.RunOnceAsync(k, variant, _workStealing);
            Assert.Equal(reference, digest);
        }
    }

    [Theory]
    [InlineData("sequential")]
    [InlineData("divcon")]
    public async Task Sort_output_is_the_input_sorted(string variantName)
    {
        var sort = new SortKernel(50_001);   // not a multiple of 4: the last quarter takes the remainder
        await Runner.RunOnceAsync(sort, VariantNames.All.Single(v => v.Name() == variantName), _workStealing);
        int[] expected = sort.Input.ToArray();
        Array.Sort(expected);
        Assert.Equal(expected, sort.Output.ToArray());
    }

    [Fact]
    public async Task Fft_output_is_the_discrete_fourier_transform()
    {
        var fft = new FftKernel(512);
        await Runner.RunOnceAsync(fft, Variant.DivCon, _workStealing);
        Complex[] x = fft.Input.ToArray();
        int n = x.Length;
        for (int k = 0; k < n; k += 7)
        {
            Complex sum = Complex.Zero;
            for (int t = 0; t < n; t++)
            {
                sum += x[t] * Complex.FromPolarCoordinates(1, -2 * Math.PI * ((long)k * t % n) / n);
            }

            Assert.True((sum - fft.Output[k]).Magnitude < 1e-9, $"bin {k}: {fft.Output[k]} instead of {sum}");
        }
    }

    [Fact]
    public void Only_the_fft_has_the_sequential_loops_variant_after_the_common_ones()
    {
        foreach (string kernel in KernelCatalog.Names)
        {
            IReadOnlyList<Variant> variants = KernelCatalog.Create(kernel, KernelSize.Small).Variants;
            Assert.Equal(VariantNames.All, variants.Take(VariantNames.All.Count));
            Assert.Equal(kernel == "fft", variants.Contains(Variant.DivConSeqLoops));
        }
    }

    [Fact]
    public async Task Fft_sequential_loops_variant_observes_every_node_of_the_recursion_and_the_nested_one_at_least_those()
    {
        // 4,096 points, recursion to 128: 32 leaves and 31 inner nodes. The nested loops add their own nodes when they
        // run as runs (they report to the same observer), none when they run inline.
        var fft = new FftKernel(4096);
        var sequentialLoops = new DivCon.Skeletons.PhaseAggregator();
        await Runner.RunOnceAsync(fft, Variant.DivConSeqLoops, _workStealing, sequentialLoops);
        Assert.Equal(63, sequentialLoops.TaskNodes + sequentialLoops.InlineNodes);

        var nested = new DivCon.Skeletons.PhaseAggregator();
        await Runner.RunOnceAsync(fft, Variant.DivConWorkStealing, _workStealing, nested);
        Assert.True(nested.TaskNodes + nested.InlineNodes >= 63, $"{nested.TaskNodes} task + {nested.InlineNodes} inline nodes");
    }

    [Fact]
    public async Task Fft_nested_loops_run_no_more_task_nodes_than_the_sequential_loops_once_their_cost_is_known()
    {
        // Every node of the recursion a task, so that both forms have the same 63 whatever the timing. At 4,096 points a
        // loop has at most 2,048 indexes (microseconds): once its lambda's cost is known, every closure of it runs inline
        // and adds no task node; a loop whose cost is not shared between closures is unknown at each new closure and runs
        // as a run, which adds nodes. The loops' minimum task cost is one second, not the default 100 us: on a loaded
        // two-core machine preemption inflated enough measurements of the default to send loops to runs in three runs
        // out of three; only a stall of seconds can do that to this one.
        var fft = new FftKernel(4096) { LoopGranularity = Granularity.Automatic(TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1)) };
        var options = DivideAndConquerOptions.Default with { Scheduler = _workStealing, Granularity = Granularity.EveryNodeATask };

        async Task<(long TaskNodes, ulong Digest)> CountAsync(Variant variant)
        {
            var observer = new PhaseAggregator();
            fft.Reset();
            await fft.RunAsync(variant, options with { Observer = observer }).WaitAsync(TimeSpan.FromSeconds(60));
            return (observer.TaskNodes, fft.Checksum());
        }

        var sequentialLoops = await CountAsync(Variant.DivConSeqLoops);
        Assert.Equal(63, sequentialLoops.TaskNodes);

        await CountAsync(Variant.DivConWorkStealing);
        long fewest = long.MaxValue;
        for (int i = 0; i < 3; i++)
        {
            var nested = await CountAsync(Variant.DivConWorkStealing);
            Assert.Equal(sequentialLoops.Digest, nested.Digest);
            fewest = Math.Min(fewest, nested.TaskNodes);
        }

        Assert.True(fewest <= sequentialLoops.TaskNodes, $"nested loops: {fewest} task nodes, sequential loops: {sequentialLoops.TaskNodes}");
    }

    [Fact]
    public async Task Strassen_output_is_the_matrix_product()
    {
        var strassen = new StrassenKernel(256);   // two Strassen levels above the 64-row cutoff
        await Runner.RunOnceAsync(strassen, Variant.DivCon, _workStealing);
        var (a, b, c) = strassen.Matrices;
        const int n = 256;
        for (int i = 0; i < n; i += 5)
        {
            for (int j = 0; j < n; j += 3)
            {
                double sum = 0;
                for (int k = 0; k < n; k++)
                {
                    sum += a[(i * n) + k] * b[(k * n) + j];
                }

                Assert.True(Math.Abs(sum - c[(i * n) + j]) < 1e-9 * n, $"C[{i},{j}] = {c[(i * n) + j]} instead of {sum}");
            }
        }
    }

    [Fact]
    public async Task SparseLu_phases_are_dealt_a_task_per_worker_once_their_block_operations_are_measured()
    {
        // 64 x 64 blocks: a block operation is tens of microseconds or more (262,144 multiply-adds for a bmod), above a
        // quarter of the minimum task cost, so once a phase's cost is known its loop deals the operations out: a root
        // and at most a dealer per worker (2) per phase run. Halving would cut a phase of 16 operations into several
        // leaves per worker. 8 x 8 blocks: 16 phases (a fwd/bdiv and a bmod phase per diagonal block).
        var lu = new SparseLuKernel(8, 64);
        var (_, reference) = await Runner.RunOnceAsync(lu, Variant.Sequential, _workStealing);
        await Runner.RunOnceAsync(lu, Variant.DivConWorkStealing, _workStealing);

        long fewest = long.MaxValue;
        for (int i = 0; i < 3; i++)
        {
            var observer = new PhaseAggregator();
            var (_, digest) = await Runner.RunOnceAsync(lu, Variant.DivConWorkStealing, _workStealing, observer);
            Assert.Equal(reference, digest);
            fewest = Math.Min(fewest, observer.TaskNodes);
        }

        Assert.True(fewest <= 16 * 3, $"{fewest} task nodes in 16 phases");
    }

    [Fact]
    public async Task SparseLu_factors_multiply_back_to_the_input()
    {
        const int blocks = 6, size = 8, n = blocks * size;
        var lu = new SparseLuKernel(blocks, size);
        await Runner.RunOnceAsync(lu, Variant.DivCon, _workStealing);
        double[,] a = Dense(lu.Input, blocks, size), f = Dense(lu.Output, blocks, size);
        double scale = 0;
        for (int i = 0; i < n; i++)
        {
            for (int j = 0; j < n; j++)
            {
                // (L U)[i, j] with L unit lower triangular and U upper triangular, both stored in f.
                double sum = 0;
                for (int k = 0; k <= Math.Min(i, j); k++)
                {
                    sum += (k == i ? 1 : f[i, k]) * f[k, j];
                }

                scale = Math.Max(scale, Math.Abs(a[i, j]));
                Assert.True(Math.Abs(sum - a[i, j]) < 1e-2, $"(LU)[{i},{j}] = {sum} instead of {a[i, j]}");
            }
        }

        Assert.True(scale > 0.5, "the input was not generated");
    }

    [Theory]
    [InlineData(1, 1)]
    [InlineData(4, 2)]
    [InlineData(6, 4)]
    [InlineData(8, 92)]
    [InlineData(9, 352)]
    public async Task NQueens_counts_the_known_number_of_solutions_in_every_variant(int n, long solutions)
    {
        var queens = new NQueensKernel(n);
        foreach (Variant variant in VariantNames.All)
        {
            await Runner.RunOnceAsync(queens, variant, _workStealing);
            Assert.Equal(solutions, queens.Solutions);
        }
    }

    [Fact]
    public void Kernels_reject_bad_sizes_naming_the_parameter()
    {
        Assert.Equal("points", Assert.Throws<ArgumentOutOfRangeException>(() => new FftKernel(1000)).ParamName);
        Assert.Equal("n", Assert.Throws<ArgumentOutOfRangeException>(() => new StrassenKernel(96)).ParamName);
        Assert.Equal("length", Assert.Throws<ArgumentOutOfRangeException>(() => new SortKernel(0)).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => KernelCatalog.Create("health", KernelSize.Small)).ParamName);
    }

    private static double[,] Dense(IReadOnlyList<float[]?> blocks, int count, int size)
    {
        var m = new double[count * size, count * size];
        for (int bi = 0; bi < count; bi++)
        {
            for (int bj = 0; bj < count; bj++)
            {
                if (blocks[(bi * count) + bj] is not { } block)
                {
                    continue;
                }

                for (int i = 0; i < size; i++)
                {
                    for (int j = 0; j < size; j++)
                    {
                        m[(bi * size) + i, (bj * size) + j] = block[(i * size) + j];
                    }
                }
            }
        }

        return m;
    }
}
