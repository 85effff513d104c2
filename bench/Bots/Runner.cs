using System.Diagnostics;
using DivCon.Bench.Bots.Kernels;
using DivCon.Schedulers;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots;

/// <summary>
/// Times every variant of the chosen kernels: the sequential run gives the reference digest, each variant warms up,
/// then each round runs every variant once, in an order rotated by one per round, from fresh input and after a full
/// collection; every run's output is compared with the sequential one. Finally each DivCon variant runs once more,
/// untimed, with a <see cref="PhaseAggregator"/> to count its task and inline nodes. All variants run in this process
/// (sharing its thread pool, its machine code and its heap); with <c>--isolated</c> each runs in a process of its own
/// (<see cref="VariantProcess"/>; README.md, "One process per variant", says what each way costs).
/// </summary>
internal sealed class Runner(Options options, TextWriter log)
{
    /// <summary>Measures every kernel of the options.</summary>
    /// <exception cref="InvalidOperationException">A variant's output differs from the sequential one.</exception>
    public async Task<IReadOnlyList<KernelResult>> RunAsync()
    {
        // In process only: the isolated children make their own.
        using var workStealing = options.Isolated ? null : new WorkStealingTaskScheduler(Environment.ProcessorCount);
        var results = new List<KernelResult>();
        foreach (string name in options.Kernels)
        {
            results.Add(options.Isolated
                ? await MeasureIsolatedAsync(name).ConfigureAwait(false)
                : await MeasureAsync(KernelCatalog.Create(name, options.Size), workStealing!).ConfigureAwait(false));
        }

        return results;
    }

    /// <summary>
    /// Runs <paramref name="variant"/> once from fresh input and returns its wall-clock seconds, the process's CPU
    /// seconds meanwhile (for the sequential variant, its one-core time even when other programs share the CPUs) and
    /// the output's digest.
    /// </summary>
    public static async Task<(double Seconds, ulong Digest)> RunOnceAsync(KernelCase kernel, Variant variant, TaskScheduler workStealing, IDivideAndConquerObserver? observer = null)
    {
        var (seconds, _, digest) = await RunMeasuredAsync(kernel, variant, workStealing, observer).ConfigureAwait(false);
        return (seconds, digest);
    }

    /// <summary>As <see cref="RunOnceAsync"/>, with the CPU seconds.</summary>
    public static async Task<(double Seconds, double CpuSeconds, ulong Digest)> RunMeasuredAsync(KernelCase kernel, Variant variant, TaskScheduler workStealing, IDivideAndConquerObserver? observer = null)
    {
        kernel.Reset();
        var divCon = DivideAndConquerOptions.Default with
        {
            Scheduler = variant == Variant.DivConWorkStealing ? workStealing : TaskScheduler.Default,
            Observer = observer,
        };
        TimeSpan cpuBefore = Environment.CpuUsage.TotalTime;
        var clock = Stopwatch.StartNew();
        await kernel.RunAsync(variant, divCon).ConfigureAwait(false);
        double seconds = clock.Elapsed.TotalSeconds;
        double cpuSeconds = (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds;
        return (seconds, cpuSeconds, kernel.Checksum());
    }

    /// <summary>Measures one kernel in this process (see the class remarks): every variant on this process's thread pool.</summary>
    /// <exception cref="InvalidOperationException">A variant's output differs from the sequential one.</exception>
    internal Task<KernelResult> MeasureAsync(KernelCase kernel, TaskScheduler workStealing) =>
        MeasureAsync(
            kernel,
            variant =>
            {
                Collect();
                return RunMeasuredAsync(kernel, variant, workStealing);
            },
            async variant =>
            {
                var phases = new PhaseAggregator();
                var (_, digest) = await RunOnceAsync(kernel, variant, workStealing, phases).ConfigureAwait(false);
                return (phases.TaskNodes, phases.InlineNodes, digest);
            });

    /// <summary>
    /// Measures kernel <paramref name="name"/> with every variant in a process of its own (<see cref="VariantProcess"/>),
    /// driven through the same rounds as <see cref="MeasureAsync(KernelCase, TaskScheduler)"/>.
    /// </summary>
    /// <exception cref="InvalidOperationException">A variant's output differs from the sequential one, or a child failed.</exception>
    internal async Task<KernelResult> MeasureIsolatedAsync(string name)
    {
        KernelCase kernel = KernelCatalog.Create(name, options.Size);
        var children = new Dictionary<Variant, VariantProcess>();
        try
        {
            foreach (Variant variant in kernel.Variants)
            {
                children[variant] = await VariantProcess.StartAsync(name, variant, options.Size).ConfigureAwait(false);
            }

            return await MeasureAsync(kernel, variant => children[variant].RunAsync(), variant => children[variant].NodesAsync()).ConfigureAwait(false);
        }
        finally
        {
            foreach (VariantProcess child in children.Values)
            {
                child.Dispose();
            }
        }
    }

    /// <summary>The full collection before every timed run, in this process or in a child.</summary>
    internal static void Collect()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
    }

    // The rounds (see the class remarks), whichever way a variant's run is made: run gives its wall and CPU seconds and
    // its output's digest, observe its task and inline nodes and digest.
    private async Task<KernelResult> MeasureAsync(
        KernelCase kernel,
        Func<Variant, Task<(double Seconds, double CpuSeconds, ulong Digest)>> run,
        Func<Variant, Task<(long TaskNodes, long InlineNodes, ulong Digest)>> observe)
    {
        log.WriteLine($"{kernel.Name}: {kernel.Description}");
        var result = new KernelResult(kernel.Name, kernel.Description);
        IReadOnlyList<Variant> variants = kernel.Variants;
        var (_, _, reference) = await run(Variant.Sequential).ConfigureAwait(false);

        void Check(Variant variant, ulong digest)
        {
            if (digest != reference)
            {
                throw new InvalidOperationException($"{kernel.Name} {variant.Name()}: the result differs from the sequential one.");
            }
        }

        async Task<(double Seconds, double CpuSeconds)> TimedAsync(Variant variant)
        {
            var (seconds, cpuSeconds, digest) = await run(variant).ConfigureAwait(false);
            Check(variant, digest);
            return (seconds, cpuSeconds);
        }

        for (int w = 0; w < options.Warmups; w++)
        {
            foreach (Variant variant in variants)
            {
                await TimedAsync(variant).ConfigureAwait(false);
            }
        }

        foreach (Variant variant in variants)
        {
            result.Seconds[variant] = [];
            result.Positions[variant] = [];
            result.CpuSeconds[variant] = [];
        }

        for (int round = 0; round < options.Rounds; round++)
        {
            for (int position = 0; position < variants.Count; position++)
            {
                Variant variant = variants[(round + position) % variants.Count];
                var (seconds, cpuSeconds) = await TimedAsync(variant).ConfigureAwait(false);
                result.Seconds[variant].Add(seconds);
                result.CpuSeconds[variant].Add(cpuSeconds);
                result.Positions[variant].Add(position);
            }

            log.WriteLine($"  round {round + 1}/{options.Rounds}: " + string.Join(", ", variants.Select(v => $"{v.Name()} {result.Seconds[v][^1]:F3} s (cpu {result.CpuSeconds[v][^1]:F3} s)")));
        }

        foreach (Variant variant in variants.Where(v => v.IsDivCon()))
        {
            var (taskNodes, inlineNodes, digest) = await observe(variant).ConfigureAwait(false);
            Check(variant, digest);
            result.Nodes[variant] = (taskNodes, inlineNodes);
        }

        return result;
    }
}
