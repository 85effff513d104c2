using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;
using BenchmarkDotNet.Attributes;
using DivCon.Schedulers;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Topology;

namespace DivCon.Harness.Benchmarks;

/// <summary>
/// What observing the multiprogram scheduler costs its decisions and moves: the same decision and move as
/// <see cref="MultiprogramBenchmarks"/> (idle programs, lending off, a pinned worker on each CPU but the last) with
/// nobody listening, and with an in-process <see cref="MeterListener"/> on the <c>DivCon.Schedulers</c> meter and an
/// <see cref="EventListener"/> on the <c>DivCon-Multiprogram</c> event source (every keyword, verbose) attached.
/// </summary>
/// <remarks>
/// The goal is that an unobserved scheduler pays nothing measurable: <see cref="Listeners.None"/> should be within
/// noise of the figures in <c>MultiprogramBenchmarks</c>, and <see cref="Listeners.MeterAndEvents"/> shows what a
/// listener adds (the event source formats the decision's allocation and writes three events per move; the meter
/// records one histogram value per arrived move). The listeners' callbacks only count, so the figure is the
/// library's cost, not the consumer's.
/// </remarks>
[MemoryDiagnoser]
#pragma warning disable CA1001 // BenchmarkDotNet owns the lifetime: everything is disposed in [GlobalCleanup].
public class ObservabilityOverheadBenchmarks
#pragma warning restore CA1001
{
    private TwoProgramSetup? _setup;
    private MeterListener? _meterListener;
    private CountingEventListener? _eventListener;
    private long _measurements;

    /// <summary>Who listens while we measure.</summary>
    [Params(Listeners.None, Listeners.MeterAndEvents)]
    public Listeners Listening { get; set; }

    /// <summary>Who listens.</summary>
    public enum Listeners
    {
        /// <summary>Nobody: the instruments and the event source are disabled.</summary>
        None,

        /// <summary>A meter listener on every DivCon.Schedulers instrument and an event listener on DivCon-Multiprogram.</summary>
        MeterAndEvents,
    }

    /// <summary>Measurements the meter listener received (read so that the callbacks are not dead code).</summary>
    public long Measurements => Interlocked.Read(ref _measurements);

    /// <summary>Attaches the listeners (if any), then starts the scheduler and registers two idle programs.</summary>
    [GlobalSetup]
    public void Setup()
    {
        if (Listening == Listeners.MeterAndEvents)
        {
            _meterListener = new MeterListener
            {
                InstrumentPublished = (instrument, listener) =>
                {
                    if (instrument.Meter.Name == MultiprogramMetrics.MeterName)
                    {
                        listener.EnableMeasurementEvents(instrument);
                    }
                },
            };
            _meterListener.SetMeasurementEventCallback<double>((_, _, _, _) => Interlocked.Increment(ref _measurements));
            _meterListener.SetMeasurementEventCallback<long>((_, _, _, _) => Interlocked.Increment(ref _measurements));
            _meterListener.SetMeasurementEventCallback<int>((_, _, _, _) => Interlocked.Increment(ref _measurements));
            _meterListener.Start();
            _eventListener = new CountingEventListener();
        }

        // Idle programs: b alternates between one worker and none (a program with no queued task may have none).
        var topology = CpuTopologyDetector.Detect();
        _setup = new TwoProgramSetup(topology, workers: Math.Max(1, topology.Count - 1), low: 0);
    }

    /// <summary>Stops the scheduler, then the listeners.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _setup?.Dispose();
        _meterListener?.Dispose();
        _eventListener?.Dispose();
    }

    /// <summary>A full decision with nothing to move: snapshot, policy, placement, apply, history, events.</summary>
    /// <returns>The decision.</returns>
    [Benchmark(Baseline = true)]
    public RebalanceEvent Decision() => _setup!.Decide(RebalanceReason.Manual);

    /// <summary>Moves one (parked) worker between the programs and waits until it serves its new program.</summary>
    /// <returns>The workers serving b afterwards.</returns>
    [Benchmark]
    public int MoveOneWorker() => _setup!.MoveOneWorker();

    /// <summary>Enables the scheduler's event source at its most detailed and counts its events.</summary>
    private sealed class CountingEventListener : EventListener
    {
        private long _events;

        /// <summary>Events received.</summary>
        public long Events => Interlocked.Read(ref _events);

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == MultiprogramEventSource.SourceName)
            {
                EnableEvents(eventSource, EventLevel.Verbose, EventKeywords.All);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData) => Interlocked.Increment(ref _events);
    }
}
