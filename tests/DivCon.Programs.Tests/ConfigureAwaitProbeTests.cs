using System.Collections.Concurrent;
using DivCon.Schedulers.Multiprogram;
using DivCon.Skeletons;
using Xunit.Abstractions;

namespace DivCon.Programs.Tests;

/// <summary>
/// Every catalog program's run, started on a multiprogram program's worker, stays on that program's workers: no
/// thread outside them enters the run's flow (a <c>ConfigureAwait(false)</c> await of a skeleton run, whose task
/// completes its awaiters asynchronously, resumed on the .NET thread pool; so did the engine's wait for a nested run
/// handed to it as a merge). The flow of the run is marked with an <see cref="AsyncLocal{T}"/> whose change handler
/// sees every thread the run's execution context enters; entries on threads that are not the program's workers are
/// counted and printed.
/// </summary>
[Collection(DedicatedWorkersGroup.Name)]
public sealed class ConfigureAwaitProbeTests(ITestOutputHelper output)
{
    [Fact]
    public void The_probe_counts_a_resumption_outside_the_programs_workers()
    {
        using var scheduler = Unpinned();
        using var program = scheduler.Register("control");

        var probe = new FlowProbe(program);
        probe.Run(async () =>
        {
            await Task.Yield(); // Resumes on the program: not counted.
            await default(ResumeOnThreadPool); // Resumes on a .NET pool thread, as a ConfigureAwait(false) await may: counted.
        });

        // .NET enters the flow once per resumption; Mono may enter it more than once.
        Assert.True(probe.Outside >= 1, $"The resumption on the .NET pool was not counted ({probe.Outside}).");
        Assert.True(probe.Inside >= 1, $"The resumption after Yield was not counted ({probe.Inside}).");
    }

    [Fact]
    public void Catalog_programs_never_resume_outside_their_workers()
    {
        using var scheduler = Unpinned();
        using var program = scheduler.Register("catalog");
        using var other = scheduler.Register("other");

        // Every program at its quick size, then quicksort and Strassen just above the size where their splits and
        // merges become parallel sweeps (ranges longer than 2^19 elements; matrices of more than 2^19 elements).
        (string Name, long Size)[] runs =
        [
            .. ProgramCatalog.Programs.Select(p => (p.Name, p.QuickSize)),
            ("quicksort", 1 << 20),
            ("strassen", 768),
        ];
        var outside = new List<string>();
        foreach ((string name, long size) in runs)
        {
            BenchmarkProgram benchmark = ProgramCatalog.Create(name, size, seed: 7);
            var probe = new FlowProbe(program);
            probe.Run(() => benchmark.RunParallelAsync(program));
            benchmark.VerifyOrThrow();
            output.WriteLine($"{name} {size}: {probe.Outside} entries outside the program's workers ({string.Join(", ", probe.OutsideThreads)}), {probe.Inside} on its workers");
            Assert.True(probe.Inside > 0, "The probe saw nothing: it measures nothing.");
            if (probe.Outside > 0)
            {
                outside.Add($"{name} {size}: {probe.Outside}");
            }
        }

        Assert.True(outside.Count == 0, $"Runs entered threads outside the program's workers: {string.Join("; ", outside)}.");
    }

    /// <summary>
    /// An awaitable that always suspends and resumes its continuation on the .NET thread pool: a resumption outside
    /// the program's workers that cannot happen inline (an awaited <c>Task.Delay</c> can already be complete when a
    /// loaded machine reaches the await, and then resumes on the awaiting worker).
    /// </summary>
    private readonly struct ResumeOnThreadPool : System.Runtime.CompilerServices.ICriticalNotifyCompletion
    {
        public bool IsCompleted => false;

        public ResumeOnThreadPool GetAwaiter() => this;

        public void GetResult()
        {
        }

        public void OnCompleted(Action continuation) => ThreadPool.QueueUserWorkItem(static c => ((Action)c!)(), continuation);

        public void UnsafeOnCompleted(Action continuation) => ThreadPool.UnsafeQueueUserWorkItem(static c => ((Action)c!)(), continuation);
    }

    private static MultiprogramScheduler Unpinned() =>
        new(new MultiprogramSchedulerOptions { Pin = false, WorkerCount = 2, RebalanceInterval = Timeout.InfiniteTimeSpan });

    /// <summary>Runs an asynchronous method as a program's flow and counts where its execution context went.</summary>
    private sealed class FlowProbe
    {
        private readonly ProgramTaskScheduler _program;
        private readonly object _marker = new();
        private readonly AsyncLocal<object?> _flow;
        private readonly ConcurrentDictionary<string, int> _outsideThreads = new();
        private int _inside;
        private int _outside;

        public FlowProbe(ProgramTaskScheduler program)
        {
            _program = program;
            _flow = new AsyncLocal<object?>(args =>
            {
                // Only entries of a thread into the flow (a task or continuation starting there), not the set itself.
                if (!args.ThreadContextChanged || !ReferenceEquals(args.CurrentValue, _marker))
                {
                    return;
                }

                if (_program.IsCurrentThreadServing)
                {
                    Interlocked.Increment(ref _inside);
                }
                else
                {
                    Interlocked.Increment(ref _outside);
                    _outsideThreads.AddOrUpdate(Thread.CurrentThread.Name ?? ".NET pool", 1, (_, n) => n + 1);
                }
            });
        }

        public int Inside => Volatile.Read(ref _inside);

        public int Outside => Volatile.Read(ref _outside);

        public IEnumerable<string> OutsideThreads => _outsideThreads.Select(p => $"{p.Value} on {p.Key}");

        public void Run(Func<Task> flow)
        {
            Task run = _program.RunAsync(() =>
            {
                _flow.Value = _marker; // Set on a worker: the run's whole flow carries it from here.
                return flow();
            });
            Assert.True(run.Wait(TimeSpan.FromMinutes(2)), "The run did not complete.");
        }
    }
}
