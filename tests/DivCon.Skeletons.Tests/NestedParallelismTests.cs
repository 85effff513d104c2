using DivCon.Skeletons.Tests.Infrastructure;

namespace DivCon.Skeletons.Tests;

/// <summary>
/// A merge that itself runs a skeleton on the same scheduler (a mergesort whose merge is a parallel merge) completes
/// on one worker without deadlock, because neither level ever blocks the worker.
/// </summary>
public sealed class NestedParallelismTests
{
    [Fact]
    public async Task Mergesort_with_a_parallel_merge_completes_on_a_one_worker_scheduler()
    {
        using var scheduler = new CountingTaskScheduler(1, allowInlining: false);
        var source = Workloads.RandomArray(20_000, seed: 7);
        int innerExecutes = 0;
        int innerExecutesOffTheScheduler = 0;
        var parallelMerge = ParallelMerge(() =>
        {
            Interlocked.Increment(ref innerExecutes);
            if (!scheduler.IsCurrentThreadAWorker)
            {
                Interlocked.Increment(ref innerExecutesOffTheScheduler);
            }
        });

        var mergesort = DivideAndConquer.CreateAsync<int[], int[]>(
            shouldSplit: (items, depth) => items.Length > 1024,
            splitAsync: (items, depth, token) => new ValueTask<IReadOnlyList<int[]>>([items.AsSpan(0, items.Length / 2).ToArray(), items.AsSpan(items.Length / 2).ToArray()]),
            execute: (items, depth) => Workloads.SequentialSort(items),
            mergeAsync: async (halves, depth, token) =>
            {
                var destination = new int[halves[0].Length + halves[1].Length];
                var problem = new MergeProblem(halves[0], 0, halves[0].Length, halves[1], 0, halves[1].Length, destination, 0);
                // TaskScheduler.Current is the run's scheduler: the inner skeleton queues its tasks there, and this
                // await resumes there too (it captures the current non-default scheduler).
                await parallelMerge.RunAsync(problem, DivideAndConquerOptions.Default with { Scheduler = TaskScheduler.Current }, token);
                return destination;
            });

        int[] sorted = await mergesort.RunAsync(source, DivideAndConquerOptions.Default with { Scheduler = scheduler }).Bounded();

        Assert.Equal(Workloads.SequentialSort(source), sorted);
        Assert.True(innerExecutes > 31, $"{innerExecutes} inner executes: the merges should have split");
        Assert.Equal(0, innerExecutesOffTheScheduler);
        Assert.Equal(0, scheduler.InlineRequestCount);
    }

    /// <summary>Merge left[lLo..lHi) and right[rLo..rHi) into destination from dLo.</summary>
    private sealed record MergeProblem(int[] Left, int LeftStart, int LeftEnd, int[] Right, int RightStart, int RightEnd, int[] Destination, int DestinationStart)
    {
        public int Length => LeftEnd - LeftStart + (RightEnd - RightStart);
    }

    /// <summary>
    /// The classic parallel merge: take the middle of the longer input, find its place in the shorter one by binary
    /// search, and merge the two lower halves and the two upper halves independently.
    /// </summary>
    private static DivideAndConquer<MergeProblem, bool> ParallelMerge(Action onExecute) =>
        DivideAndConquer.Create<MergeProblem, bool>(
            shouldSplit: (p, depth) => p.Length > 512,
            split: (p, depth) =>
            {
                bool leftLonger = p.LeftEnd - p.LeftStart >= p.RightEnd - p.RightStart;
                var (longArr, longStart, longEnd, shortArr, shortStart, shortEnd) = leftLonger
                    ? (p.Left, p.LeftStart, p.LeftEnd, p.Right, p.RightStart, p.RightEnd)
                    : (p.Right, p.RightStart, p.RightEnd, p.Left, p.LeftStart, p.LeftEnd);
                int longMid = (longStart + longEnd) / 2;
                int shortMid = LowerBound(shortArr, shortStart, shortEnd, longArr[longMid]);
                int lowLength = longMid - longStart + (shortMid - shortStart);
                var low = leftLonger
                    ? p with { LeftEnd = longMid, RightEnd = shortMid }
                    : p with { RightEnd = longMid, LeftEnd = shortMid };
                var high = leftLonger
                    ? p with { LeftStart = longMid, RightStart = shortMid, DestinationStart = p.DestinationStart + lowLength }
                    : p with { RightStart = longMid, LeftStart = shortMid, DestinationStart = p.DestinationStart + lowLength };
                return [low, high];
            },
            execute: (p, depth) =>
            {
                onExecute();
                int i = p.LeftStart, j = p.RightStart, k = p.DestinationStart;
                while (i < p.LeftEnd && j < p.RightEnd)
                {
                    p.Destination[k++] = p.Left[i] <= p.Right[j] ? p.Left[i++] : p.Right[j++];
                }

                while (i < p.LeftEnd)
                {
                    p.Destination[k++] = p.Left[i++];
                }

                while (j < p.RightEnd)
                {
                    p.Destination[k++] = p.Right[j++];
                }

                return true;
            },
            merge: (done, depth) => true);

    private static int LowerBound(int[] items, int start, int end, int value)
    {
        while (start < end)
        {
            int mid = (start + end) / 2;
            if (items[mid] < value)
            {
                start = mid + 1;
            }
            else
            {
                end = mid;
            }
        }

        return start;
    }
}
