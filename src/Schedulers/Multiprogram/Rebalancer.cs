using System.Collections.Concurrent;
using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The rebalancer's dedicated thread (never one of the pool's workers): every interval it asks the scheduler for an
/// <see cref="RebalanceReason.Interval"/> decision (which the decider may skip), and it performs the departures that
/// workers report when a closed program's last task finishes (workers never run a decision themselves).
/// </summary>
internal sealed class Rebalancer : IDisposable
{
    private readonly Action<ProgramTaskScheduler> _depart;
    private readonly Action _onInterval;
    private readonly TimeSpan _interval;
    private readonly Action? _onSample;
    private long _sampleTicks; // Stopwatch ticks between samples; 0: none. Written under the scheduler's gate, read by the thread.
    private readonly Action<Exception> _onError;
    private readonly Thread _thread;
    private readonly AutoResetEvent _signal = new(false);
    private readonly ConcurrentQueue<ProgramTaskScheduler> _departures = new();
    private int _stop;
    private int _decisionRequested;

    /// <summary>Creates the thread (not started).</summary>
    /// <param name="depart">Performs one departure (takes the decision lock).</param>
    /// <param name="onInterval">The periodic decision and lending sweep.</param>
    /// <param name="interval">The period; zero or infinite: departures only.</param>
    /// <param name="onError">Reports an exception of a decision on this thread (which goes on).</param>
    /// <param name="onSample">Samples the programs for the online estimators between decisions, or null.</param>
    /// <param name="sampleInterval">How often (only while decisions are periodic); zero or infinite: never.</param>
    public Rebalancer(Action<ProgramTaskScheduler> depart, Action onInterval, TimeSpan interval, Action<Exception> onError, Action? onSample = null, TimeSpan sampleInterval = default)
    {
        _onSample = onSample;
        _onError = onError;
        _depart = depart;
        _onInterval = onInterval;
        _interval = interval;
        _sampleTicks = TicksOf(sampleInterval); // after _interval and _onSample, which it reads
        _thread = new Thread(Run) { IsBackground = true, Name = "DivCon rebalancer" };
    }

    /// <summary>Whether interval decisions run at all.</summary>
    public bool IsPeriodic => IsPeriod(_interval);

    /// <summary>Whether a span is a period: positive and not infinite (zero and infinite mean "never").</summary>
    /// <param name="span">The span.</param>
    /// <returns>Whether it is one.</returns>
    internal static bool IsPeriod(TimeSpan span) => span > TimeSpan.Zero && span != Timeout.InfiniteTimeSpan;

    /// <summary>Whether samples are taken between decisions: both are periodic and samples come more often.</summary>
    /// <param name="interval">The decisions' period.</param>
    /// <param name="sampleInterval">The samples' period.</param>
    /// <returns>Whether there are samples between decisions.</returns>
    internal static bool SamplesBetween(TimeSpan interval, TimeSpan sampleInterval) =>
        IsPeriod(interval) && IsPeriod(sampleInterval) && sampleInterval < interval;

    public void Start() => _thread.Start();

    /// <summary>
    /// The decision asked for by <see cref="RequestDecision"/> (takes the decision lock on this thread); null: requests
    /// are ignored. Set once, before <see cref="Start"/>.
    /// </summary>
    public Action? OnRequest { get; set; }

    /// <summary>
    /// Any thread, lock-free: asks the rebalancer thread for one decision (<see cref="OnRequest"/>) as soon as it is
    /// free. Requests made before that decision starts are merged into it. Ignored once stopped.
    /// </summary>
    public void RequestDecision()
    {
        // Interlocked (a full fence): the flag is visible to the thread before the signal wakes it; the thread
        // clears it with an exchange before deciding, so a request made during a decision brings another one.
        Interlocked.Exchange(ref _decisionRequested, 1);
        if (Volatile.Read(ref _stop) != 0)
        {
            return;
        }

        try
        {
            _signal.Set();
        }
        catch (ObjectDisposedException)
        {
            // Stopped and disposed meanwhile: nothing decides any more.
        }
    }

    /// <summary>Any thread: asks the rebalancer thread to perform a program's departure.</summary>
    /// <param name="program">A closed program whose tasks have all finished.</param>
    public void RequestDeparture(ProgramTaskScheduler program)
    {
        _departures.Enqueue(program);
        // Full fence (Exchange in Stop, volatile read here): if the thread may have exited, perform it here.
        Interlocked.MemoryBarrier();
        if (Volatile.Read(ref _stop) != 0)
        {
            while (_departures.TryDequeue(out ProgramTaskScheduler? leaving))
            {
                _depart(leaving);
            }

            return;
        }

        try
        {
            _signal.Set();
        }
        catch (ObjectDisposedException)
        {
            // Stopped and disposed between our check and the signal: perform it here.
            while (_departures.TryDequeue(out ProgramTaskScheduler? leaving))
            {
                _depart(leaving);
            }
        }
    }

    /// <summary>Stops the thread and waits for it (bounded).</summary>
    /// <param name="timeout">How long to wait.</param>
    /// <returns>Whether the thread exited.</returns>
    public bool Stop(TimeSpan timeout)
    {
        // Interlocked: the flag is visible to the thread before the signal wakes it.
        Interlocked.Exchange(ref _stop, 1);
        _signal.Set();
        return Thread.CurrentThread == _thread || _thread.Join(timeout);
    }

    public void Dispose() => _signal.Dispose();

    /// <summary>
    /// How often samples are taken between decisions: zero when none are (no sampling callback, decisions not periodic,
    /// or an interval that is zero, infinite or not below the decisions'). Any thread may change it; the thread takes
    /// the new interval at its next wake-up, and a shorter one shortens the wait already under way from then on.
    /// </summary>
    public TimeSpan SampleInterval
    {
        get => TimeSpan.FromSeconds((double)Volatile.Read(ref _sampleTicks) / Stopwatch.Frequency);
        set => Volatile.Write(ref _sampleTicks, TicksOf(value)); // Release: read by the thread at its next wake-up.
    }

    /// <summary>The sampling period in stopwatch ticks, or 0 when no samples are taken between decisions.</summary>
    private long TicksOf(TimeSpan sampleInterval) =>
        _onSample is not null && SamplesBetween(_interval, sampleInterval) ? (long)(sampleInterval.TotalSeconds * Stopwatch.Frequency) : 0;

    private void Run()
    {
        long next = Stopwatch.GetTimestamp() + (IsPeriodic ? (long)(_interval.TotalSeconds * Stopwatch.Frequency) : 0);
        long sampleTicks = Volatile.Read(ref _sampleTicks);
        long nextSample = Stopwatch.GetTimestamp() + sampleTicks;
        while (Volatile.Read(ref _stop) == 0) // Acquire: pairs with Stop's interlocked store.
        {
            long ticks = Volatile.Read(ref _sampleTicks); // Acquire: pairs with the setter.
            if (ticks != sampleTicks)
            {
                // A changed interval: the next sample comes no later than one new interval from now.
                long now = Stopwatch.GetTimestamp();
                nextSample = sampleTicks == 0 ? now + ticks : Math.Min(nextSample, now + ticks);
                sampleTicks = ticks;
            }

            TimeSpan wait = Timeout.InfiniteTimeSpan;
            if (IsPeriodic)
            {
                long due = sampleTicks > 0 ? Math.Min(next, nextSample) : next;
                long left = due - Stopwatch.GetTimestamp();
                // Whole milliseconds, rounded up: a wait handle truncates a TimeSpan to milliseconds, so a wait for
                // 0.9 ms returns at once and the thread would spin until the deadline (up to 1 ms per period: 10% of a
                // CPU at 10 ms sampling). Waking up to 1 ms late is harmless for samples and decisions.
                wait = left > 0 ? TimeSpan.FromMilliseconds(Math.Ceiling(left * 1000.0 / Stopwatch.Frequency)) : TimeSpan.Zero;
            }

            _signal.WaitOne(wait);
            while (_departures.TryDequeue(out ProgramTaskScheduler? program))
            {
                Guarded(() => _depart(program), program.CompleteDeparture, _onError);
            }

            if (OnRequest is { } onRequest && Volatile.Read(ref _decisionRequested) != 0 && Volatile.Read(ref _stop) == 0
                && Interlocked.Exchange(ref _decisionRequested, 0) != 0)
            {
                Guarded(onRequest, null, _onError);
            }

            if (IsPeriodic && Stopwatch.GetTimestamp() >= next && Volatile.Read(ref _stop) == 0)
            {
                Guarded(_onInterval, null, _onError);
                next = Stopwatch.GetTimestamp() + (long)(_interval.TotalSeconds * Stopwatch.Frequency);
                nextSample = Stopwatch.GetTimestamp() + sampleTicks; // a decision samples too
            }
            else if (sampleTicks > 0 && Stopwatch.GetTimestamp() >= nextSample && Volatile.Read(ref _stop) == 0)
            {
                Guarded(_onSample!, null, _onError);
                nextSample = Stopwatch.GetTimestamp() + sampleTicks;
            }
        }

        // Departures reported while stopping are still performed, so that every program's Completion completes.
        while (_departures.TryDequeue(out ProgramTaskScheduler? program))
        {
            Guarded(() => _depart(program), program.CompleteDeparture, _onError);
        }
    }

    private static void Guarded(Action action, Action? always, Action<Exception> onError)
    {
        try
        {
            action();
        }
#pragma warning disable CA1031 // A failing policy or event handler must not kill the rebalancer thread (and the process).
        catch (Exception ex)
#pragma warning restore CA1031
        {
            Trace.TraceError($"DivCon rebalancer: {ex}");
            try
            {
                onError(ex);
            }
#pragma warning disable CA1031 // A failing logger must not kill the rebalancer thread either.
            catch (Exception)
#pragma warning restore CA1031
            {
            }
        }
        finally
        {
            always?.Invoke();
        }
    }
}
