using System.Runtime.InteropServices;
using DivCon.Programs;
using DivCon.Schedulers;
using DivCon.Schedulers.Multiprogram;
using DivCon.Skeletons;

// 1. A lambda divide-and-conquer (sum of 0..n-1 by halving) on two workers pinned to CPUs.
var sum = DivideAndConquer.Create<(long From, long To), long>(
    shouldSplit: (r, depth) => r.To - r.From > 10_000,
    split: (r, depth) => [(r.From, (r.From + r.To) / 2), ((r.From + r.To) / 2, r.To)],
    execute: (r, depth) =>
    {
        long s = 0;
        for (long i = r.From; i < r.To; i++)
        {
            s += i;
        }

        return s;
    },
    merge: (parts, depth) => parts[0] + parts[1]);

const long n = 1_000_000;
int workers = Math.Min(2, Environment.ProcessorCount);
using (var affinity = new AffinityTaskScheduler(workerCount: workers))
{
    long total = await sum.RunAsync((0, n), DivideAndConquerOptions.Default with { Scheduler = affinity });
    if (total != n * (n - 1) / 2)
    {
        throw new InvalidOperationException($"sum was {total}");
    }

    Console.WriteLine($"affinity scheduler ({workers} pinned workers): sum 0..{n - 1} = {total}");
}

// 2. Two programs at once on the multiprogram scheduler, each through its own TaskScheduler view of the pool.
using (var pool = new MultiprogramScheduler(new MultiprogramSchedulerOptions()))
{
    using ProgramTaskScheduler sorting = pool.Register("quicksort", speedup: 1.9);
    using ProgramTaskScheduler counting = pool.Register("nqueens", speedup: 1.9);
    var quicksort = ProgramCatalog.Create("quicksort", SizePreset.Quick, seed: 1);
    var nqueens = ProgramCatalog.Create("nqueens", SizePreset.Quick, seed: 1);
    await Task.WhenAll(quicksort.RunParallelAsync(sorting), nqueens.RunParallelAsync(counting));
    quicksort.VerifyOrThrow();
    nqueens.VerifyOrThrow();
    Console.WriteLine($"multiprogram scheduler: {quicksort.DescribeResult()}; {nqueens.DescribeResult()}");
}

Console.WriteLine($"consumer OK on {RuntimeInformation.FrameworkDescription}");
