using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The multiprogram scheduler's instruments on the <c>DivCon.Schedulers</c> <see cref="Meter"/>
/// (<c>dotnet-counters monitor --counters DivCon.Schedulers</c>, OpenTelemetry, a <see cref="MeterListener"/>).
/// </summary>
/// <remarks>
/// <para>
/// Per program (tags <c>divcon.program.name</c> and <c>divcon.program.id</c>): <c>divcon.program.cores</c> (owned
/// workers), <c>divcon.program.tasks.executed</c>, <c>divcon.program.tasks.stolen</c>,
/// <c>divcon.program.queue.length</c> (queued, not started), <c>divcon.program.tasks.running</c>,
/// <c>divcon.program.runs.completed</c> (runs reported with <see cref="ProgramTaskScheduler.BeginRun"/> that ended).
/// Per process, summed over its schedulers: <c>divcon.multiprogram.moves</c>, <c>divcon.multiprogram.handovers</c>,
/// <c>divcon.multiprogram.decisions</c> (tags <c>divcon.rebalance.reason</c>, <c>divcon.rebalance.skipped</c>),
/// <c>divcon.multiprogram.standby.threads</c> (standbys parked now) and the histogram
/// <c>divcon.multiprogram.move.duration</c> (seconds from a decision to a worker serving the new owner; tag
/// <c>divcon.program.name</c> of the new owner).
/// </para>
/// <para>
/// Cost: every instrument but the histogram is observable, read from counters the scheduler keeps anyway, and only
/// when a listener collects; the histogram is recorded per arrived move, after one <see cref="Instrument.Enabled"/>
/// check. One set of instruments per meter: the shared static meter, or the one an <see cref="IMeterFactory"/> gives.
/// With <see cref="Instrumentation.IsSupported"/> off no scheduler asks for them, so this class (and its meter) is
/// never initialized.
/// </para>
/// </remarks>
internal sealed class MultiprogramMetrics
{
    /// <summary>The meter's name.</summary>
    public const string MeterName = "DivCon.Schedulers";

    private static readonly Meter s_shared = new(MeterName, typeof(MultiprogramMetrics).Assembly.GetName().Version?.ToString());
    private static readonly ConditionalWeakTable<Meter, MultiprogramMetrics> s_byMeter = new();
    private static readonly string[] s_reasons = ["interval", "arrival", "departure", "manual", "first-signal"]; // by RebalanceReason value

    private readonly object _gate = new();
    private MultiprogramScheduler[] _schedulers = [];

    // Totals of disposed schedulers, so that the process-wide counters never go down.
    private long _retiredMoves;
    private long _retiredHandovers;
    private readonly long[] _retiredDecisions = new long[s_reasons.Length * 2];

    private MultiprogramMetrics(Meter meter)
    {
        Meter = meter;
        meter.CreateObservableUpDownCounter("divcon.program.cores", () => PerProgram(static p => p.CurrentCores), "{core}", "Workers each program owns.");
        meter.CreateObservableCounter("divcon.program.tasks.executed", () => PerProgram(static p => p.Statistics.TasksExecuted), "{task}", "Tasks of each program taken from a queue and run.");
        meter.CreateObservableCounter("divcon.program.tasks.stolen", () => PerProgram(static p => p.Statistics.Steals), "{task}", "Tasks of each program stolen between its workers.");
        meter.CreateObservableUpDownCounter("divcon.program.queue.length", () => PerProgram(static p => p.AvailableTasks), "{task}", "Tasks of each program queued and not yet started.");
        meter.CreateObservableUpDownCounter("divcon.program.tasks.running", () => PerProgram(static p => p.Scheduler.CountRunning(p.Queues)), "{task}", "Tasks of each program running now on a serving worker.");
        meter.CreateObservableCounter("divcon.program.runs.completed", () => PerProgram(static p => p.CompletedRuns), "{run}", "Runs each program reported (BeginRun) that have ended.");
        meter.CreateObservableCounter("divcon.multiprogram.moves", () => Sum(static s => s.Moves) + Volatile.Read(ref _retiredMoves), "{move}", "Workers moved to another program by decisions.");
        meter.CreateObservableCounter("divcon.multiprogram.handovers", () => Sum(static s => s.Handovers) + Volatile.Read(ref _retiredHandovers), "{handover}", "Moves taken over by a CPU's standby worker.");
        meter.CreateObservableCounter("divcon.multiprogram.decisions", Decisions, "{decision}", "Rebalancing decisions by reason (skipped interval checks included).");
        meter.CreateObservableUpDownCounter("divcon.multiprogram.standby.threads", () => (int)Sum(static s => s.ParkedStandbys), "{thread}", "Standby worker threads parked now.");
        MoveDuration = meter.CreateHistogram<double>("divcon.multiprogram.move.duration", "s", "Time from a decision to a worker serving the new owner, per move.");
    }

    /// <summary>The meter the instruments belong to.</summary>
    public Meter Meter { get; }

    /// <summary>Recorded by the workers as moves arrive.</summary>
    public Histogram<double> MoveDuration { get; }

    /// <summary>The instruments of the shared meter, or of the meter <paramref name="factory"/> creates.</summary>
    /// <param name="factory">A host's meter factory, or null.</param>
    /// <returns>The instruments (one set per meter).</returns>
    public static MultiprogramMetrics For(IMeterFactory? factory)
    {
        Meter meter = factory?.Create(new MeterOptions(MeterName)) ?? s_shared;
        lock (s_byMeter)
        {
            if (!s_byMeter.TryGetValue(meter, out MultiprogramMetrics? metrics))
            {
                metrics = new MultiprogramMetrics(meter);
                s_byMeter.Add(meter, metrics);
            }

            return metrics;
        }
    }

    /// <summary>Starts observing a scheduler.</summary>
    /// <param name="scheduler">A scheduler that has started.</param>
    public void Add(MultiprogramScheduler scheduler)
    {
        lock (_gate)
        {
            Volatile.Write(ref _schedulers, [.. _schedulers, scheduler]); // Release: a fully built array for callbacks.
        }
    }

    /// <summary>Stops observing a scheduler, keeping its totals in the process-wide counters.</summary>
    /// <param name="scheduler">A scheduler that is shutting down.</param>
    public void Remove(MultiprogramScheduler scheduler)
    {
        lock (_gate)
        {
            if (!_schedulers.Contains(scheduler))
            {
                return;
            }

            Volatile.Write(ref _schedulers, [.. _schedulers.Where(s => s != scheduler)]); // Release: see Add.
            Interlocked.Add(ref _retiredMoves, scheduler.Moves); // Interlocked: read by collection callbacks.
            Interlocked.Add(ref _retiredHandovers, scheduler.Handovers);
            for (int i = 0; i < _retiredDecisions.Length; i++)
            {
                Interlocked.Add(ref _retiredDecisions[i], scheduler.DecisionsOf((RebalanceReason)(i / 2), skipped: i % 2 == 1));
            }
        }
    }

    /// <summary>The tags of one program's measurements.</summary>
    /// <param name="program">The program.</param>
    /// <returns>Its name and number.</returns>
    private static KeyValuePair<string, object?>[] TagsOf(ProgramTaskScheduler program) =>
        [new("divcon.program.name", program.Name), new("divcon.program.id", program.ProgramId.Value)];

    private IEnumerable<Measurement<long>> PerProgram(Func<ProgramTaskScheduler, long> read)
    {
        foreach (MultiprogramScheduler scheduler in Volatile.Read(ref _schedulers)) // Acquire: see Add.
        {
            foreach (ProgramTaskScheduler program in scheduler.Programs)
            {
                yield return new Measurement<long>(read(program), TagsOf(program));
            }
        }
    }

    private long Sum(Func<MultiprogramScheduler, long> read)
    {
        long sum = 0;
        foreach (MultiprogramScheduler scheduler in Volatile.Read(ref _schedulers)) // Acquire: see Add.
        {
            sum += read(scheduler);
        }

        return sum;
    }

    private IEnumerable<Measurement<long>> Decisions()
    {
        MultiprogramScheduler[] schedulers = Volatile.Read(ref _schedulers); // Acquire: see Add.
        for (int i = 0; i < _retiredDecisions.Length; i++)
        {
            var reason = (RebalanceReason)(i / 2);
            bool skipped = i % 2 == 1;
            if (skipped && reason != RebalanceReason.Interval)
            {
                continue; // Only interval checks are ever skipped.
            }

            long count = Volatile.Read(ref _retiredDecisions[i]);
            foreach (MultiprogramScheduler scheduler in schedulers)
            {
                count += scheduler.DecisionsOf(reason, skipped);
            }

            yield return new Measurement<long>(count, new KeyValuePair<string, object?>("divcon.rebalance.reason", s_reasons[i / 2]), new KeyValuePair<string, object?>("divcon.rebalance.skipped", skipped));
        }
    }
}
