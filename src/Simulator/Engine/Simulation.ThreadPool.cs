namespace DivCon.Simulator.Engine;

/// <summary>
/// The .NET thread-pool model of the <c>default</c> scheme: the pool's thread-count goal and the rules that change it
/// (see README.md beside the project, "The .NET thread pool").
/// </summary>
/// <remarks>
/// <para><b>Goal.</b> The pool lets at most <see cref="_poolGoal"/> threads process work: an idle thread is woken (or a
/// thread created) for queued work only while fewer are busy (<see cref="WakeIdle"/>), and a busy thread that finishes
/// a task while more than the goal are busy stops there (<see cref="RetirePoolThread"/>). The goal starts at the
/// minimum (a thread per core plus <see cref="SimulationOptions.ThreadPoolExtraThreads"/>).</para>
/// <para><b>Hill climbing's wave.</b> Every sample (an interval drawn uniformly from
/// <see cref="SimulationOptions.ThreadPoolSampleIntervalLow"/>..<see cref="SimulationOptions.ThreadPoolSampleIntervalHigh"/>
/// whenever the goal changes), the goal is the control setting plus the wave magnitude during the second half of
/// every four samples. The control setting is the minimum plus the starvation injections: with the CPUs busy the
/// runtime refuses every upward climbing move, and downward moves end at the minimum, so the model keeps it there.</para>
/// <para><b>Gate.</b> Every <see cref="SimulationOptions.ThreadPoolGateInterval"/> the gate injects a thread (goal and
/// control setting + 1) when work is queued while the goal's threads are busy and no thread has entered the dispatch
/// loop (woken or created) for the starvation delay.</para>
/// <para>Invariants: <c>_poolMinimum &lt;= _poolControl &lt;= _poolGoal &lt;= ThreadPoolMaxThreads</c>; busy pool threads
/// exceed the goal only until each of the excess threads reaches its task boundary.</para>
/// </remarks>
internal sealed partial class Simulation
{
    // The runtime's gate thread uses the longer, per-thread starvation delay once CPU utilization reaches 80%.
    private const double PoolBusyUtilization = 0.8;

    private readonly int _poolMinimum;
    private int _poolControl;
    private int _poolGoal;
    private long _poolSamples;
    private long _poolSampleNs;

    // When a worker last entered the dispatch loop (woken from idle or created): the gate's progress mark.
    private long _poolLastDispatch;

    // The busy-core area (ns x busy threads, at most the core count) for the gate's CPU utilization, and the area and
    // time at the previous gate tick.
    private double _poolBusyArea;
    private long _poolBusyAt;
    private double _poolAreaAtGate;
    private long _poolGateAt;
    private long _injectionCount;

    /// <summary>Schedules the gate's first tick and hill climbing's first sample (as configured).</summary>
    private void StartPoolControl()
    {
        if (_options.ThreadPoolStarvationInjection)
        {
            Schedule(SimulationOptions.Nanoseconds(_options.ThreadPoolGateInterval), GateEvent, 0, 0);
        }

        if (_options.ThreadPoolWaveMagnitude > 0)
        {
            _poolSampleNs = DrawSampleInterval();
            Schedule(_now + _poolSampleNs, WaveEvent, 0, 0);
        }
    }

    /// <summary>A hill-climbing sample interval, whole milliseconds drawn uniformly (the runtime redraws it at every change of the goal).</summary>
    private long DrawSampleInterval()
    {
        int low = (int)_options.ThreadPoolSampleIntervalLow.TotalMilliseconds;
        int high = (int)_options.ThreadPoolSampleIntervalHigh.TotalMilliseconds;
        return _random.Next(low, high + 1) * 1_000_000L;
    }

    /// <summary>Adds the busy-core area since the last change (busy threads beyond the core count use no more CPU).</summary>
    private void AccumulatePoolBusy()
    {
        _poolBusyArea += Math.Min(_busyThreads, _cores) * (double)(_now - _poolBusyAt);
        _poolBusyAt = _now;
    }

    /// <summary>
    /// The end of a hill-climbing sample: the goal follows the square wave (control setting, plus the magnitude in
    /// the second half of every four samples).
    /// </summary>
    private void OnWaveSample()
    {
        _poolSamples++;
        int goal = _poolControl + (_options.ThreadPoolWaveMagnitude * (int)((_poolSamples / 2) % 2));
        goal = Math.Clamp(goal, _poolMinimum, _options.ThreadPoolMaxThreads);
        if (goal != _poolGoal)
        {
            _poolSampleNs = DrawSampleInterval();
            SetPoolGoal(goal);
        }

        Schedule(_now + _poolSampleNs, WaveEvent, 0, 0);
    }

    /// <summary>
    /// The pool's gate: reads the CPU utilization since its last tick and injects a thread when work is queued while
    /// the goal's threads are busy and no worker has entered the dispatch loop for longer than the starvation delay:
    /// the goal times the per-thread delay while the CPUs are at least 80% busy, else one gate interval.
    /// </summary>
    private void OnGateTick()
    {
        AccumulatePoolBusy();
        double span = _now - _poolGateAt;
        double utilization = span > 0 ? (_poolBusyArea - _poolAreaAtGate) / (span * _cores) : 0;
        _poolAreaAtGate = _poolBusyArea;
        _poolGateAt = _now;
        long gate = SimulationOptions.Nanoseconds(_options.ThreadPoolGateInterval);
        long delay = utilization < PoolBusyUtilization
            ? gate
            : _poolGoal * SimulationOptions.Nanoseconds(_options.ThreadPoolStarvationDelayPerThread);
        if (_sets[0].Queued > 0 && _busyThreads >= _poolGoal && _now - _poolLastDispatch > delay && _busyThreads < _options.ThreadPoolMaxThreads)
        {
            // Starvation: the goal becomes the busy threads + 1, and the control setting moves with it.
            int goal = _busyThreads + 1;
            _poolControl = Math.Min(_options.ThreadPoolMaxThreads, _poolControl + (goal - _poolGoal));
            _injectionCount++;
            SetPoolGoal(goal);
        }

        Schedule(_now + gate, GateEvent, 0, 0);
    }

    /// <summary>A new goal; a higher one releases idle threads (or creates threads) for queued work at once.</summary>
    private void SetPoolGoal(int goal)
    {
        bool raised = goal > _poolGoal;
        _poolGoal = goal;
        if (raised)
        {
            WakeIdle(_sets[0]);
        }
    }

    /// <summary>A new pool thread (same CPU group, its own deque slot), idle until <see cref="WakeIdle"/> releases it.</summary>
    /// <returns>Its index.</returns>
    private int AddPoolThread()
    {
        var set = _sets[0];
        int index = _threads.Length;
        int slot = set.AddSlot();
        System.Diagnostics.Debug.Assert(slot == index, "Pool threads and deque slots are numbered alike.");
        var t = new SimThread(index, core: index % _cores, group: 0, slot: slot, home: 0);
        Array.Resize(ref _threads, index + 1);
        _threads[index] = t;
        // Creating and starting the thread is charged as the wake that releases it.
        MakeIdle(t);
        return index;
    }

    /// <summary>
    /// A pool thread stopped by a lower goal at its task boundary: its local queue goes to the global queue (newest
    /// first, as the runtime pops it), and it waits idle.
    /// </summary>
    private void RetirePoolThread(SimThread t)
    {
        var set = _sets[0];
        var deque = set.Deques[t.Slot];
        if (deque.Count > 0)
        {
            while (deque.Count > 0)
            {
                set.Global.PushBottom(deque.PopBottom());
            }

            set.NonEmpty.Remove(t.Slot);
        }

        MakeIdle(t);
    }
}
