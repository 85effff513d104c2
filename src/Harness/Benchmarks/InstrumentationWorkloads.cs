using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;
using System.Globalization;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Topology;
using DivCon.Skeletons;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// What one process of the instrumentation A/B (<c>bench-instrumentation</c>) measures: existing benchmarks of the
/// skeleton (<see cref="SkeletonBenchmarks"/>: the continuation engine on the .NET pool and on the work-stealing
/// scheduler, the fork-join engine; fib with the default granularity, whose subtrees run inline) and of the
/// multiprogram scheduler (<see cref="MultiprogramBenchmarks"/>, idle programs: a decision, an interval check, a
/// one-worker move), each timed by a plain loop: a short warm-up, then batches of about
/// <see cref="BatchSeconds"/> for a given time, reporting the median time per operation over the batches.
/// </summary>
/// <remarks>
/// Nobody listens during the measurement. The process checks that it runs the variant it was started for: the
/// <c>DivCon.Instrumentation.IsSupported</c> switch as the runtime host gave it, the scheduler's own reading of it,
/// and afterwards what passive listeners find (listeners that enable nothing, created once the timing is over): both
/// DivCon meters and the event source with the instrumentation on, none of them off.
/// </remarks>
public static class InstrumentationWorkloads
{
    /// <summary>The target length of one timed batch.</summary>
    public const double BatchSeconds = BatchTiming.BatchSeconds;

    /// <summary>The switch the A/B toggles.</summary>
    public const string SwitchName = Instrumentation.SwitchName;

    /// <summary>The meters DivCon creates when its instrumentation is on.</summary>
    public static readonly IReadOnlyList<string> MeterNames = ["DivCon.Schedulers", "DivCon.Skeletons"];

    /// <summary>The event sources DivCon creates when its instrumentation is on.</summary>
    public static readonly IReadOnlyList<string> EventSourceNames = [MultiprogramEventSource.SourceName];

    /// <summary>The benchmarks, in the order they run, with what each one is.</summary>
    public static readonly IReadOnlyList<(string Name, string Description)> Benchmarks =
    [
        ("skeleton.sum.continuation", "SkeletonBenchmarks.ContinuationEngine: 2^17-node fine-grain sum, every node a task, on TaskScheduler.Default"),
        ("skeleton.sum.workstealing", "SkeletonBenchmarks.ContinuationOnWorkStealing: the same on WorkStealingTaskScheduler"),
        ("skeleton.sum.forkjoin", "SkeletonBenchmarks.ForkJoinEngine: the same with the blocking engine"),
        ("skeleton.fib", "fib(24), four lambdas, default granularity (inline subtrees), on TaskScheduler.Default"),
        ("multiprogram.decision", "MultiprogramBenchmarks.Decision (idle): a full rebalancing decision"),
        ("multiprogram.interval-check", "MultiprogramBenchmarks.IntervalCheck (idle): a skipped periodic check"),
        ("multiprogram.move", "MultiprogramBenchmarks.MoveOneWorker (idle): move one parked worker and wait until it serves"),
    ];

    /// <summary>Times every selected benchmark and writes one <c>result</c> line each, then the <c>check</c> line.</summary>
    /// <param name="expectOn">Whether the process was started with the instrumentation on.</param>
    /// <param name="seconds">Timed seconds per benchmark.</param>
    /// <param name="only">The benchmarks to run (null: all).</param>
    /// <param name="output">Where the lines go.</param>
    /// <exception cref="InvalidOperationException">The process does not run the expected variant, or a benchmark computed a wrong result.</exception>
    public static void Run(bool expectOn, double seconds, IReadOnlySet<string>? only, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        bool? hostSwitch = AppContext.TryGetSwitch(SwitchName, out bool value) ? value : null;
        if (hostSwitch != expectOn || Instrumentation.IsSupported != expectOn)
        {
            throw new InvalidOperationException(
                $"Started for the instrumentation {(expectOn ? "on" : "off")}, but the runtime host gave {SwitchName}={hostSwitch?.ToString() ?? "unset"} and the scheduler reads {Instrumentation.IsSupported}.");
        }

        bool Wanted(string name) => only is null || only.Contains(name);
        if (Wanted("skeleton.sum.continuation") || Wanted("skeleton.sum.workstealing") || Wanted("skeleton.sum.forkjoin"))
        {
            var skeleton = new SkeletonBenchmarks();
            skeleton.Setup();
            try
            {
                Time("skeleton.sum.continuation", skeleton.ContinuationEngine, SkeletonBenchmarks.LaunchesPerInvoke);
                Time("skeleton.sum.workstealing", skeleton.ContinuationOnWorkStealing, SkeletonBenchmarks.LaunchesPerInvoke);
                Time("skeleton.sum.forkjoin", skeleton.ForkJoinEngine, SkeletonBenchmarks.LaunchesPerInvoke);
            }
            finally
            {
                skeleton.Cleanup();
            }
        }

        if (Wanted("skeleton.fib"))
        {
            const int N = 24;
            DivideAndConquer<int, long> fib = GranularityWorkloads.BinaryProgram(GranularityWorkloads.BinaryFibFunctions());
            long expected = GranularityWorkloads.Recurse(GranularityWorkloads.BinaryFibFunctions(), N, 0);
            Time("skeleton.fib", () => Checked(fib.RunAsync(N).GetAwaiter().GetResult(), expected), 1);
        }

        if (Wanted("multiprogram.decision") || Wanted("multiprogram.interval-check") || Wanted("multiprogram.move"))
        {
            var multiprogram = new MultiprogramBenchmarks { Programs = MultiprogramBenchmarks.Load.Idle };
            multiprogram.Setup();
            try
            {
                Time("multiprogram.decision", () => multiprogram.Decision().Moves.Count, 1);
                Time("multiprogram.interval-check", () => multiprogram.IntervalCheck().Moves.Count, 1);
                Time("multiprogram.move", multiprogram.MoveOneWorker, 1);
            }
            finally
            {
                multiprogram.Cleanup();
            }
        }

        var (meters, sources) = Present();
        output.WriteLine($"check {(expectOn ? "on" : "off")} meters={Joined(meters)} sources={Joined(sources)}");
        bool complete = MeterNames.All(meters.Contains) && EventSourceNames.All(sources.Contains);
        bool ran = only is null || (only.Any(n => n.StartsWith("skeleton.", StringComparison.Ordinal)) && only.Any(n => n.StartsWith("multiprogram.", StringComparison.Ordinal)));
        if (expectOn ? ran && !complete : meters.Count + sources.Count > 0)
        {
            throw new InvalidOperationException(
                $"With the instrumentation {(expectOn ? "on" : "off")} the process has DivCon meters [{Joined(meters)}] and event sources [{Joined(sources)}].");
        }

        void Time<T>(string name, Func<T> operation, int operationsPerCall)
        {
            if (!Wanted(name))
            {
                return;
            }

            double[] perBatch = TimeBatches(() => operation(), seconds);
            double nanoseconds = Median(perBatch) / operationsPerCall * 1e9;
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"result {name} {nanoseconds:F1} {perBatch.Length}"));
            output.Flush();
        }
    }

    /// <summary>
    /// The process-level check of the switch: listens to every DivCon instrument and event from the start, runs a
    /// skeleton program and a multiprogram scheduler with a program that runs a task and moves a worker, and writes
    /// <c>observed meters=... measurements=N events=M result=R</c>.
    /// </summary>
    /// <param name="output">Where the line goes.</param>
    public static void Observe(TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        long measurements = 0;
        var meters = new SortedSet<string>(StringComparer.Ordinal);
        using var meterListener = new MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name.StartsWith("DivCon.", StringComparison.Ordinal))
                {
                    lock (meters)
                    {
                        meters.Add(instrument.Meter.Name);
                    }

                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        meterListener.SetMeasurementEventCallback<long>((_, _, _, _) => Interlocked.Increment(ref measurements));
        meterListener.SetMeasurementEventCallback<int>((_, _, _, _) => Interlocked.Increment(ref measurements));
        meterListener.SetMeasurementEventCallback<double>((_, _, _, _) => Interlocked.Increment(ref measurements));
        meterListener.Start();
        using var eventListener = new DivConEventListener(enable: true);

        long result = GranularityWorkloads.BinaryProgram(GranularityWorkloads.BinaryFibFunctions()).RunAsync(16).GetAwaiter().GetResult();
        var topology = CpuTopologyDetector.Detect();
        using (var setup = new TwoProgramSetup(topology, workers: Math.Max(1, topology.Count - 1), low: 0))
        {
            // b holds the first worker (a may have none on a 2-CPU machine, where its task would wait forever).
            Task<long> onB = Task.Factory.StartNew(() => 21L * 2, CancellationToken.None, TaskCreationOptions.None, setup.B);
            if (!onB.Wait(TimeSpan.FromSeconds(30)))
            {
                throw new TimeoutException("A task of program b did not run within 30 s.");
            }

            result += onB.Result;
            setup.MoveOneWorker();
            setup.Decide(RebalanceReason.Manual);
        }

        meterListener.RecordObservableInstruments();
        output.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"observed meters={Joined(meters)} measurements={Interlocked.Read(ref measurements)} sources={Joined(eventListener.Sources)} events={eventListener.Events} result={result}"));
    }

    /// <summary>The DivCon meters and event sources that exist in this process, found by listeners that enable nothing.</summary>
    /// <returns>Their names.</returns>
    public static (IReadOnlyCollection<string> Meters, IReadOnlyCollection<string> Sources) Present()
    {
        var meters = new SortedSet<string>(StringComparer.Ordinal);
        using (var listener = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name.StartsWith("DivCon.", StringComparison.Ordinal))
                {
                    lock (meters)
                    {
                        meters.Add(instrument.Meter.Name);
                    }
                }
            },
        })
        {
            listener.Start(); // Publishes every instrument created so far; none is enabled.
        }

        using var events = new DivConEventListener(enable: false);
        return (meters, events.Sources);
    }

    /// <summary>Runs <paramref name="operation"/> in batches of about <see cref="BatchSeconds"/> for <paramref name="seconds"/>.</summary>
    /// <param name="operation">One call.</param>
    /// <param name="seconds">Timed seconds (at least 5 batches), after a warm-up of a quarter of that.</param>
    /// <returns>Seconds per call in each batch.</returns>
    internal static double[] TimeBatches(Action operation, double seconds) => BatchTiming.Time(operation, seconds / 4, seconds);

    private static double Median(double[] values) => BatchTiming.Median(values);

    private static long Checked(long actual, long expected) =>
        actual == expected ? actual : throw new InvalidOperationException($"fib computed {actual}, expected {expected}.");

    private static string Joined(IEnumerable<string> names) => string.Join(',', names);

    /// <summary>Records the DivCon event sources it is told about, and enables them only when asked to.</summary>
    private sealed class DivConEventListener : EventListener
    {
        // Initialized before the base constructor runs, which reports the sources that exist already.
        private readonly SortedSet<string> _sources = new(StringComparer.Ordinal);
        private readonly bool _enable;
        private long _events;

        public DivConEventListener(bool enable)
        {
            _enable = enable;
            if (enable)
            {
                // The base constructor reported the existing sources before _enable was set: enable them now.
                foreach (EventSource source in EventSource.GetSources())
                {
                    if (source.Name.StartsWith("DivCon", StringComparison.Ordinal))
                    {
                        EnableEvents(source, EventLevel.Verbose, EventKeywords.All);
                    }
                }
            }
        }

        public IReadOnlyCollection<string> Sources
        {
            get
            {
                lock (_sources)
                {
                    return [.. _sources];
                }
            }
        }

        public long Events => Interlocked.Read(ref _events);

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (!eventSource.Name.StartsWith("DivCon", StringComparison.Ordinal))
            {
                return;
            }

            lock (_sources)
            {
                _sources.Add(eventSource.Name);
            }

            if (_enable)
            {
                EnableEvents(eventSource, EventLevel.Verbose, EventKeywords.All);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData) => Interlocked.Increment(ref _events);
    }
}
