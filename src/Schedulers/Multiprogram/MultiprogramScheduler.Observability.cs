using System.Collections.Concurrent;
using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Workers;
using Microsoft.Extensions.Logging;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// Observability: the <see cref="Rebalanced"/> event (delivered outside the decision lock, in decision order), the
/// counters behind the <c>DivCon.Schedulers</c> meter, the <c>DivCon-Multiprogram</c> event source, and the optional
/// <see cref="ILogger"/>.
/// </summary>
public sealed partial class MultiprogramScheduler
{
    private static readonly Action<ILogger, string, Exception?> s_handlerFailed =
        LoggerMessage.Define<string>(LogLevel.Error, new EventId(1, "RebalancedHandlerFailed"), "A Rebalanced handler threw; the decision stands: {Decision}");

    private static readonly Action<ILogger, Exception?> s_rebalancerFailed =
        LoggerMessage.Define(LogLevel.Error, new EventId(2, "RebalancerFailed"), "The rebalancer thread's decision failed; it goes on with the next interval");

    private static readonly Action<ILogger, string, Exception?> s_shutdownTimedOut =
        LoggerMessage.Define<string>(LogLevel.Warning, new EventId(3, "ShutdownTimedOut"), "{What}");

    private static readonly Action<ILogger, string, Exception?> s_lateResumption =
        LoggerMessage.Define<string>(LogLevel.Warning, new EventId(4, "LateResumption"), "An await of program {Program} resumed after the program closed; it runs on the .NET thread pool so that its method ends");

    private static readonly Action<ILogger, RebalanceEvent, Exception?> s_decision =
        LoggerMessage.Define<RebalanceEvent>(LogLevel.Debug, new EventId(5, "Decision"), "{Decision}");

    // Decisions made under the gate, waiting to be raised outside it (see DispatchEvents).
    private readonly ConcurrentQueue<RebalanceEvent> _undelivered = new();
    private readonly object _dispatchGate = new();

    // Decisions by reason (index 2 * reason) and skipped ones (2 * reason + 1); written under the gate.
    private readonly long[] _decisionsByReason = new long[2 * 5]; // per RebalanceReason (5 values), not skipped and skipped
    private long _moves;

    /// <summary>
    /// Raised for every decision, after it was applied, outside the decision lock. Skipped interval checks are raised
    /// only with <see cref="MultiprogramSchedulerOptions.RaiseSkippedDecisions"/>.
    /// </summary>
    /// <remarks>
    /// Handlers run one decision at a time, in decision order, on a thread that made a decision (the caller of
    /// <see cref="Register(string, double)"/>, <see cref="Rebalance"/> or <see cref="SetAllocation"/>, or the
    /// rebalancer thread); a call that makes a decision returns after its event was raised. Handlers may call the
    /// scheduler (a decision made from a handler is raised after the handler returns). A handler that throws is
    /// reported (the options' logger, the <c>DivCon-Multiprogram</c> event source, a trace warning) and the others
    /// still run. Subscribe before the first <c>Register</c> (or through
    /// <see cref="MultiprogramSchedulerOptions.OnRebalanced"/>) to see the arrivals.
    /// </remarks>
    public event EventHandler<RebalanceEvent>? Rebalanced;

    /// <summary>Workers moved by decisions so far.</summary>
    internal long Moves => Interlocked.Read(ref _moves); // Atomic 64-bit read on every platform.

    /// <summary>Parked standby workers now (racy).</summary>
    internal long ParkedStandbys => _pool.Workers.Count(w => w.IsStandby);

    /// <summary>Decisions made for one reason, skipped or applied.</summary>
    /// <param name="reason">The reason.</param>
    /// <param name="skipped">Whether to count the skipped ones.</param>
    /// <returns>The count.</returns>
    internal long DecisionsOf(RebalanceReason reason, bool skipped) =>
        Interlocked.Read(ref _decisionsByReason[(2 * (int)reason) + (skipped ? 1 : 0)]); // Atomic 64-bit read.

    /// <summary>CPUs whose serving worker is inside a task of <paramref name="queues"/> now (racy).</summary>
    /// <param name="queues">A program's queues.</param>
    /// <returns>The count.</returns>
    internal long CountRunning(WorkQueueSet queues)
    {
        int count = 0;
        foreach (CpuSlot cpu in _pool.Cpus)
        {
            Worker server = cpu.Server;
            count += ReferenceEquals(server.Queues, queues) && server.IsInTask ? 1 : 0;
        }

        return count;
    }

    private static void Count(ref long counter, long amount)
    {
        if (Environment.Is64BitProcess)
        {
            Volatile.Write(ref counter, counter + amount);
        }
        else
        {
            Interlocked.Add(ref counter, amount);
        }
    }

    /// <summary>Under the gate, after a decision was applied: counts it, tells the event source, queues the event.</summary>
    /// <param name="decision">The decision.</param>
    private void Publish(RebalanceEvent decision)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "Decisions run under the gate.");
        int index = (2 * (int)decision.Reason) + (decision.Skipped ? 1 : 0);
        if (Instrumentation.MetricsEnabled)
        {
            // Kept for the meter only, so not counted when it is absent. One writer (this method runs under the gate),
            // read lock-free by the meter with Interlocked.Read: a plain add published by Volatile.Write is a whole
            // 64-bit store in a 64-bit process (no lock prefix: this runs at every interval check); a 32-bit process
            // needs Interlocked to store 64 bits at once.
            Count(ref _decisionsByReason[index], 1);
            if (decision.Moves.Count > 0)
            {
                Count(ref _moves, decision.Moves.Count);
            }
        }

        if (Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled())
        {
            MultiprogramEventSource log = MultiprogramEventSource.Log;
            if (decision.Skipped)
            {
                if (log.IsEnabled(System.Diagnostics.Tracing.EventLevel.Verbose, MultiprogramEventSource.Keywords.Decisions))
                {
                    log.SkippedDecision(decision.Policy, decision.Explanation);
                }
            }
            else
            {
                log.Decision(
                    decision.Reason.ToString(),
                    decision.Policy,
                    string.Join(" ", decision.After.Select(a => $"{a.Id}={a.Cores}")),
                    decision.Moves.Count,
                    decision.Explanation);
            }
        }

        if (!decision.Skipped && _logger is { } logger && logger.IsEnabled(LogLevel.Debug))
        {
            s_decision(logger, decision, null);
        }

        if (!decision.Skipped || _raiseSkipped)
        {
            _undelivered.Enqueue(decision);
        }
    }

    /// <summary>
    /// Outside the gate, after a decision: raises every decision not raised yet, in order. Under its own lock, so that
    /// events are raised one at a time and, when this returns, every decision queued before the call has been raised
    /// (by this thread or by one that held the lock before).
    /// </summary>
    private void DispatchEvents()
    {
        if (_undelivered.IsEmpty)
        {
            return;
        }

        lock (_dispatchGate)
        {
            while (_undelivered.TryDequeue(out RebalanceEvent? decision))
            {
                Raise(decision);
                WriteToEventStreams(decision);
            }
        }
    }

    private void Raise(RebalanceEvent decision)
    {
        EventHandler<RebalanceEvent>? handlers = Rebalanced;
        if (handlers is null)
        {
            return;
        }

        foreach (EventHandler<RebalanceEvent> handler in handlers.GetInvocationList().Cast<EventHandler<RebalanceEvent>>())
        {
            try
            {
                handler(this, decision);
            }
#pragma warning disable CA1031 // A subscriber's failure must not break the rebalancer or the caller's decision.
            catch (Exception ex)
#pragma warning restore CA1031
            {
                ReportFailure("A Rebalanced handler threw", ex, logger => s_handlerFailed(logger, decision.ToString(), ex));
            }
        }
    }

    /// <summary>The rebalancer thread's decision threw (a failing policy): reported, the thread goes on.</summary>
    /// <param name="ex">The exception.</param>
    private void OnRebalancerFailure(Exception ex) =>
        ReportFailure("The rebalancer thread's decision failed", ex, logger => s_rebalancerFailed(logger, ex));

    /// <summary>A shutdown's wait timed out.</summary>
    /// <param name="what">The warning.</param>
    private void OnShutdownTimedOut(string what)
    {
        Trace.TraceWarning(what);
        if (_logger is { } logger)
        {
            s_shutdownTimedOut(logger, what, null);
        }

        if (Instrumentation.EventsEnabled)
        {
            MultiprogramEventSource.Log.Failure("Shutdown timed out", what);
        }
    }

    /// <summary>An await resumed after its program closed (see <see cref="TryResumeLate"/>).</summary>
    /// <param name="program">The program.</param>
    private void OnLateResumption(ProgramTaskScheduler program)
    {
        string name = program.Name;
        if (_logger is { } logger)
        {
            s_lateResumption(logger, name, null);
        }

        if (Instrumentation.EventsEnabled)
        {
            MultiprogramEventSource.Log.Failure("Late resumption", $"An await of program {name} resumed after the program closed");
        }
    }

    private void ReportFailure(string what, Exception ex, Action<ILogger> log)
    {
        Trace.TraceWarning($"MultiprogramScheduler: {what}: {ex.GetType().Name}: {ex.Message}");
        if (_logger is { } logger)
        {
            log(logger);
        }

        if (Instrumentation.EventsEnabled && MultiprogramEventSource.Log.IsEnabled())
        {
            MultiprogramEventSource.Log.Failure(what, $"{ex.GetType().Name}: {ex.Message}");
        }
    }
}
