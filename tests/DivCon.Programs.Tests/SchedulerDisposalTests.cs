using DivCon.Programs.Tests.Infrastructure;
using DivCon.Schedulers;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Platform;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

/// <summary>Tests that start dedicated (some pinned) workers run one at a time.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class DedicatedWorkersGroup
{
    public const string Name = "Dedicated workers";
}

/// <summary>
/// A run whose DivCon scheduler is disposed while an asynchronous split or merge is pending always ends: faulted
/// with the scheduler's refusal when its resumption can no longer be queued, or with its result when nothing had to
/// be queued from outside the workers. Every DivCon scheduler, both engines; deterministic (a gate, not a delay).
/// </summary>
[Collection(DedicatedWorkersGroup.Name)]
public sealed class SchedulerDisposalTests
{
    public enum Kind
    {
        WorkStealing,
        Affinity,
        Program,
    }

    public enum Pending
    {
        Split,
        Merge,
    }

    public static TheoryData<Kind, ExecutionEngine, Pending> Cases
    {
        get
        {
            var data = new TheoryData<Kind, ExecutionEngine, Pending>();
            foreach (Kind kind in Enum.GetValues<Kind>())
            {
                foreach (ExecutionEngine engine in Enum.GetValues<ExecutionEngine>())
                {
                    foreach (Pending pending in Enum.GetValues<Pending>())
                    {
                        data.Add(kind, engine, pending);
                    }
                }
            }

            return data;
        }
    }

    [SkippableTheory]
    [MemberData(nameof(Cases))]
    public async Task Disposing_the_scheduler_while_an_async_split_or_merge_is_pending_never_strands_the_run(Kind kind, ExecutionEngine engine, Pending pending)
    {
        Skip.If(kind == Kind.Affinity && !ThreadAffinity.IsSupported, "Pinning is not supported on this operating system.");
        using var lease = new Lease(kind);
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var program = DivideAndConquer.CreateAsync<int, int>(
            (n, depth) => depth == 0,
            async (n, depth, token) =>
            {
                if (pending == Pending.Split)
                {
                    entered.TrySetResult();
                    await gate.Task.ConfigureAwait(false);
                }

                return [n, n];
            },
            (n, depth) => n,
            async (results, depth, token) =>
            {
                if (pending == Pending.Merge)
                {
                    entered.TrySetResult();
                    await gate.Task.ConfigureAwait(false);
                }

                return results[0] + results[1];
            });

        var run = program.RunAsync(1, DivideAndConquerOptions.Default with { Scheduler = lease.Scheduler, Engine = engine });
        await entered.Task.Bounded();
        // Under fork-join a worker is blocked on the gate, which opens only below: the disposal cannot end before.
        // Under the continuation engine it ends once the node's task has returned (its resumption registered,
        // nothing running): only then is the resumption sure to be queued from outside the workers.
        Task disposal = lease.DisposeAsync();
        if (engine == ExecutionEngine.Continuation)
        {
            await disposal.Bounded();
        }

        gate.SetResult();
        await disposal.Bounded();

        if (engine == ExecutionEngine.ForkJoin)
        {
            // The fork-join node waits on its worker, and queues its children from there: a closed DivCon scheduler
            // still accepts tasks from its own workers, so the run finishes normally.
            Assert.Equal(2, await run.Bounded());
            return;
        }

        // The continuation engine resumes from the thread that completed the program's task: refused.
        var error = await Assert.ThrowsAsync<TaskSchedulerException>(() => run.Bounded());
        Assert.IsType<ObjectDisposedException>(error.InnerException);
    }

    [Fact]
    public async Task The_reported_repro_completes_whichever_comes_first()
    {
        var p = DivideAndConquer.CreateAsync<int, int>(
            (x, d) => d < 2,
            (x, d, ct) => new ValueTask<IReadOnlyList<int>>([x, x]),
            (x, d) => x,
            async (r, d, ct) =>
            {
                await Task.Delay(200, ct).ConfigureAwait(false);
                return r[0] + r[1];
            });
        var s = new WorkStealingTaskScheduler(2);
        var run = p.RunAsync(1, DivideAndConquerOptions.Default with { Scheduler = s });
        await Task.Delay(50);
        s.Dispose();

        // The merges resume after the disposal (refused: faulted) unless the machine was slow enough for them to
        // finish before it (the result); never a hang.
        try
        {
            Assert.Equal(4, await run.Bounded());
        }
        catch (TaskSchedulerException refused)
        {
            Assert.IsType<ObjectDisposedException>(refused.InnerException);
        }
    }

    /// <summary>The scheduler under test and what owns it.</summary>
    private sealed class Lease : IDisposable
    {
        private readonly WorkerPoolTaskScheduler? _pool;
        private readonly MultiprogramScheduler? _multiprogram;
        private readonly ProgramTaskScheduler? _program;

        public Lease(Kind kind)
        {
            switch (kind)
            {
                case Kind.WorkStealing:
                    _pool = new WorkStealingTaskScheduler(2);
                    break;
                case Kind.Affinity:
                    _pool = new AffinityTaskScheduler(1);
                    break;
                default:
                    _multiprogram = new MultiprogramScheduler(new MultiprogramSchedulerOptions { Pin = false, WorkerCount = 2, RebalanceInterval = Timeout.InfiniteTimeSpan });
                    _program = _multiprogram.Register("gated");
                    break;
            }
        }

        public TaskScheduler Scheduler => (TaskScheduler?)_pool ?? _program!;

        /// <summary>Disposes the scheduler without blocking (for the program kind: the program leaves).</summary>
        public Task DisposeAsync() => _pool?.DisposeAsync().AsTask() ?? _program!.DisposeAsync().AsTask();

        public void Dispose()
        {
            _pool?.Dispose();
            _multiprogram?.Dispose();
        }
    }
}
