using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using Microsoft.Extensions.Logging;
using Xunit.Abstractions;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>What a user sees: the meter's instruments, the event source, names and times in events, how and when handlers run.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismObservabilityTests(ITestOutputHelper output)
{
    private static readonly string[] s_instruments =
    [
        "divcon.program.cores", "divcon.program.tasks.executed", "divcon.program.tasks.stolen", "divcon.program.queue.length",
        "divcon.program.tasks.running", "divcon.program.runs.completed", "divcon.multiprogram.moves", "divcon.multiprogram.handovers",
        "divcon.multiprogram.decisions", "divcon.multiprogram.standby.threads", "divcon.multiprogram.move.duration",
    ];

    private static MultiprogramScheduler Create(int workers, IMeterFactory? meters = null, ILogger? logger = null, bool raiseSkipped = false, EventHandler<RebalanceEvent>? observer = null, TimeSpan? interval = null) =>
        new(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = workers,
            Policy = new EqualSharePolicy(),
            RebalanceInterval = interval ?? Timeout.InfiniteTimeSpan,
            MeterFactory = meters,
            Logger = logger,
            RaiseSkippedDecisions = raiseSkipped,
            OnRebalanced = observer,
        });

    [Fact]
    public void Every_instrument_reports_on_the_meter_of_the_hosts_factory_with_program_names()
    {
        using var meters = new TestMeterFactory();
        using var listener = new RecordingListener(meters);
        using var scheduler = Create(4, meters);
        using var sort = scheduler.Register("sort");
        using var fft = scheduler.Register("fft");
        Task.WaitAll([.. Enumerable.Range(0, 200).Select(i => (i % 2 == 0 ? sort : fft).Start(() => { }))], TestSchedulers.Timeout);
        sort.BeginRun().Dispose();
        sort.BeginRun().Dispose();
        RebalanceEvent moved = scheduler.SetAllocation([new(sort, 3), new(fft, 1)]);
        Assert.True(SpinWait.SpinUntil(() => moved.Arrivals.ArrivedCount == moved.Moves.Count, TestSchedulers.Timeout));

        listener.Collect();
        Assert.All(s_instruments, name => Assert.Contains(name, listener.Names));
        Assert.Equal(3, listener.Last("divcon.program.cores", "sort"));
        Assert.Equal(1, listener.Last("divcon.program.cores", "fft"));
        Assert.Equal(100, listener.Last("divcon.program.tasks.executed", "sort"));
        Assert.Equal(0, listener.Last("divcon.program.queue.length", "fft"));
        Assert.Equal(2, listener.Last("divcon.program.runs.completed", "sort"));
        Assert.Equal(0, listener.Last("divcon.program.runs.completed", "fft"));
        Assert.Equal(2, listener.Last("divcon.multiprogram.decisions", "arrival"));
        Assert.Equal(1, listener.Last("divcon.multiprogram.decisions", "manual"));
        Assert.True(listener.Last("divcon.multiprogram.moves", null) >= moved.Moves.Count);
        // One duration per arrived move (an arrival records after it is visible in the event, hence at most).
        Assert.InRange(listener.Count("divcon.multiprogram.move.duration", null), moved.Moves.Count, scheduler.History.Sum(e => e.Arrivals.ArrivedCount));
        Assert.True(listener.Count("divcon.multiprogram.move.duration", "sort") >= 1);
    }

    [Fact]
    public void Nothing_is_measured_before_a_listener_subscribes_and_the_counters_cover_what_happened_before()
    {
        using var meters = new TestMeterFactory();
        using var scheduler = Create(2, meters);
        using var a = scheduler.Register("a");
        a.Start(() => { }).AssertCompletes();
        // Every move of the registration's decision arrived (one worker ran the task; the other may still be waking,
        // and a move that arrives once the listener is there is measured then, rightly).
        Assert.True(SpinWait.SpinUntil(() => scheduler.History.All(e => e.Arrivals.ArrivedCount == e.Moves.Count), TestSchedulers.Timeout));

        // Observable instruments read the scheduler's own counters when collected: a late listener sees the totals.
        using var listener = new RecordingListener(meters);
        listener.Collect();
        Assert.Equal(1, listener.Last("divcon.program.tasks.executed", "a"));
        Assert.Equal(1, listener.Last("divcon.multiprogram.decisions", "arrival"));
        Assert.Equal(0, listener.Count("divcon.multiprogram.move.duration", null));
    }

    [SkippableFact]
    public void The_event_source_traces_decisions_moves_and_programs_by_name()
    {
        using var listener = new TraceListener();
        using var scheduler = Create(2);
        using var left = scheduler.Register("traced-left");
        ProgramTaskScheduler right = scheduler.Register("traced-right");
        right.Dispose();
        // Mono's EventSource writes nothing to in-process listeners; on .NET an empty list is a failure, not a skip.
        Skip.If(Type.GetType("Mono.Runtime") is not null && listener.Events.IsEmpty, "Mono's EventSource delivers no events to an EventListener.");

        EventWrittenEventArgs[] mine = [.. listener.Events.Where(e => e.Payload!.Any(p => p is string s && s.Contains("traced-", StringComparison.Ordinal)))];
        Assert.Contains(mine, e => e.EventName == "ProgramRegistered" && (string)e.Payload![1]! == "traced-right");
        Assert.Contains(mine, e => e.EventName == "ProgramDeparted" && (string)e.Payload![1]! == "traced-right");
        EventWrittenEventArgs decision = Assert.Single(mine, e => e.EventName == "Decision" && (string)e.Payload![2]! == "traced-left=1 traced-right=1");
        Assert.Equal("Arrival", decision.Payload![0]);
        Assert.Contains(mine, e => e.EventName == "Move" && (string)e.Payload![1]! == "traced-left" && (string)e.Payload[2]! == "traced-right");
        Assert.Contains(mine, e => e.EventName == "Move" && (string)e.Payload![1]! == "traced-right" && (string)e.Payload[2]! == "traced-left");
    }

    [Fact]
    public void Events_allocations_and_assignments_carry_the_registered_names_and_print_readably()
    {
        using var scheduler = Create(2);
        var seen = new List<RebalanceEvent>();
        scheduler.Rebalanced += (_, e) => seen.Add(e);
        using var sort = scheduler.Register("mergesort");
        using var fft = scheduler.Register("fft");

        Assert.Equal(["mergesort: 1 core", "fft: 1 core"], scheduler.CurrentAllocation.Select(a => a.ToString()));
        Assert.Equal(["mergesort", "fft"], scheduler.CurrentAllocation.Select(a => a.Name));
        Assert.All(scheduler.GetWorkerAssignments(), w => Assert.Matches(@"^worker \d \(cpu \d\): (mergesort|fft)", w.ToString()));
        RebalanceEvent arrival = seen[^1];
        Assert.Equal("mergesort", arrival.Moves.Single().From!.Value.Name);
        Assert.Matches(@"^\+\d+\.\d{3} s Arrival, equal: mergesort 2 -> 1, fft 0 -> 1; cpu \d: mergesort -> fft", arrival.ToString());
        Assert.DoesNotContain("P0", arrival.ToString(), StringComparison.Ordinal);
        Assert.True(arrival.Time > seen[0].Time || arrival.Time == seen[0].Time);
        // Time is the timestamp as a TimeSpan since the scheduler's creation (equal up to the tick conversion's rounding).
        TimeSpan between = scheduler.TimeProvider.GetElapsedTime(seen[0].Timestamp, arrival.Timestamp);
        Assert.InRange(arrival.Time - seen[0].Time, between - TimeSpan.FromTicks(2), between + TimeSpan.FromTicks(2));
        Assert.Equal("mergesort (P0)", sort.ToString());
    }

    [Fact]
    public void Skipped_interval_checks_are_counted_but_raised_only_when_asked_for()
    {
        foreach (bool raise in new[] { false, true })
        {
            using var scheduler = Create(2, raiseSkipped: raise);
            var seen = new ConcurrentQueue<RebalanceEvent>();
            scheduler.Rebalanced += (_, e) => seen.Enqueue(e);
            using var a = scheduler.Register("a");
            Assert.True(scheduler.Rebalance(RebalanceReason.Interval).Skipped);
            Assert.Equal(1, scheduler.SkippedDecisions);
            Assert.Equal(raise, seen.Any(e => e.Skipped));
            Assert.Single(seen, e => !e.Skipped);
        }
    }

    [Fact]
    public void An_observer_in_the_options_sees_the_first_arrival()
    {
        var seen = new List<RebalanceEvent>();
        using var scheduler = Create(2, observer: (_, e) => seen.Add(e));
        using var first = scheduler.Register("first");
        RebalanceEvent arrival = Assert.Single(seen);
        Assert.Equal(RebalanceReason.Arrival, arrival.Reason);
        Assert.Equal("first", arrival.After.Single().Id.Name);
    }

    [Fact]
    public void Handlers_run_outside_the_decision_lock_so_they_may_wait_for_another_thread_that_reads_the_scheduler()
    {
        using var scheduler = Create(2);
        var answered = new ConcurrentQueue<bool>();
        scheduler.Rebalanced += (_, e) =>
        {
            // Another thread takes the decision lock (CurrentAllocation, GetWorkerAssignments): under the lock, this
            // handler would wait for it for ever.
            Task<int> other = Task.Run(() => scheduler.CurrentAllocation.Count + scheduler.GetWorkerAssignments().Count);
            answered.Enqueue(other.Wait(TestSchedulers.Timeout));
        };

        using var a = scheduler.Register("a");
        using var b = scheduler.Register("b");
        scheduler.Rebalance();
        Assert.Equal([true, true, true], answered);
    }

    [Fact]
    public void A_decision_made_from_a_handler_is_raised_after_it_in_order()
    {
        using var scheduler = Create(2);
        var order = new List<RebalanceReason>();
        scheduler.Rebalanced += (_, e) =>
        {
            order.Add(e.Reason);
            if (e.Reason == RebalanceReason.Arrival)
            {
                scheduler.Rebalance(RebalanceReason.Manual);
            }
        };

        using var a = scheduler.Register("a");
        Assert.Equal([RebalanceReason.Arrival, RebalanceReason.Manual], order);
    }

    [Fact]
    public void A_handler_that_throws_is_logged_with_its_exception_and_the_decision_stands()
    {
        var logger = new ListLogger();
        using var scheduler = Create(2, logger: logger);
        scheduler.Rebalanced += (_, _) => throw new InvalidOperationException("subscriber bug");
        using var a = scheduler.Register("a");

        Assert.Equal(2, a.CurrentCores);
        (LogLevel level, EventId id, string message, Exception? exception) = Assert.Single(logger.Entries, e => e.Level >= LogLevel.Warning);
        Assert.Equal(LogLevel.Error, level);
        Assert.Equal("RebalancedHandlerFailed", id.Name);
        Assert.Contains("Arrival", message, StringComparison.Ordinal);
        Assert.Equal("subscriber bug", Assert.IsType<InvalidOperationException>(exception).Message);
    }

    [Fact]
    public void Prints_an_observation_a_person_can_read()
    {
        // The README's "Observing" example, run for real: its output is what the README shows.
        using var scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
        {
            Pin = false,
            WorkerCount = 4,
            OnRebalanced = (_, decision) => output.WriteLine(decision.ToString()),
        });
        using ProgramTaskScheduler sort = scheduler.Register("mergesort", speedup: 5.1);
        using ProgramTaskScheduler fft = scheduler.Register("fft", speedup: 3.2);
        Task.WaitAll([.. Enumerable.Range(0, 64).Select(_ => sort.Start(() => Thread.SpinWait(20_000)))], TestSchedulers.Timeout);
        scheduler.SetAllocation([new(sort, 3), new(fft, 1)]);
        output.WriteLine(string.Join("; ", scheduler.CurrentAllocation));
        foreach (WorkerAssignment worker in scheduler.GetWorkerAssignments())
        {
            output.WriteLine(worker.ToString());
        }

        Assert.Equal(3, sort.CurrentCores);
    }

    private sealed class TestMeterFactory : IMeterFactory
    {
        private readonly List<Meter> _meters = [];

        public Meter Create(MeterOptions options)
        {
            var meter = new Meter(options.Name, options.Version, options.Tags, scope: this);
            _meters.Add(meter);
            return meter;
        }

        public void Dispose()
        {
            foreach (Meter meter in _meters)
            {
                meter.Dispose();
            }
        }
    }

    /// <summary>Listens to the instruments of one factory's meters and keeps every measurement.</summary>
    private sealed class RecordingListener : IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly ConcurrentQueue<(string Name, double Value, string? Tag)> _measurements = new();

        public RecordingListener(IMeterFactory scope)
        {
            _listener.InstrumentPublished = (instrument, l) =>
            {
                if (ReferenceEquals(instrument.Meter.Scope, scope))
                {
                    l.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>((i, v, tags, _) => Add(i, v, tags));
            _listener.SetMeasurementEventCallback<int>((i, v, tags, _) => Add(i, v, tags));
            _listener.SetMeasurementEventCallback<double>((i, v, tags, _) => Add(i, v, tags));
            _listener.Start();
        }

        public IEnumerable<string> Names => _measurements.Select(m => m.Name).Distinct();

        public void Collect() => _listener.RecordObservableInstruments();

        /// <summary>The last value of an instrument for a program name or reason tag (null: any).</summary>
        public double Last(string name, string? tag) => _measurements.Last(m => m.Name == name && (tag is null || m.Tag == tag)).Value;

        public int Count(string name, string? tag) => _measurements.Count(m => m.Name == name && (tag is null || m.Tag == tag));

        public void Dispose() => _listener.Dispose();

        private void Add(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            string? tag = null;
            foreach (KeyValuePair<string, object?> t in tags)
            {
                if (t.Key is "divcon.program.name" || (t.Key is "divcon.rebalance.reason" && tag is null))
                {
                    tag = t.Value as string;
                }
            }

            // Decisions: only the applied ones (skipped=false) are asserted on by reason.
            foreach (KeyValuePair<string, object?> t in tags)
            {
                if (t.Key == "divcon.rebalance.skipped" && t.Value is true)
                {
                    tag += " skipped";
                }
            }

            _measurements.Enqueue((instrument.Name, value, tag));
        }
    }

    /// <summary>Listens to the DivCon-Multiprogram event source.</summary>
    private sealed class TraceListener : EventListener
    {
        public ConcurrentQueue<EventWrittenEventArgs> Events { get; } = new();

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "DivCon-Multiprogram")
            {
                EnableEvents(eventSource, EventLevel.Verbose);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData) => Events.Enqueue(eventData);
    }

    private sealed class ListLogger : ILogger
    {
        public ConcurrentQueue<(LogLevel Level, EventId Id, string Message, Exception? Exception)> Entries { get; } = new();

        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            Entries.Enqueue((logLevel, eventId, formatter(state, exception), exception));
    }
}
