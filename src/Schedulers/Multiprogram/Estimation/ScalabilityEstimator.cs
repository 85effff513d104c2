using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Multiprogram.Estimation;

/// <summary>Settings of a <see cref="ScalabilityEstimator"/> (see README.md beside it for what each one trades).</summary>
internal sealed record ScalabilityEstimatorOptions
{
    /// <summary>
    /// How fast old observations fade: work observed this long ago counts half as much as work observed now. Long
    /// enough to cover one run of a program (its narrow top and wide middle), short enough to follow a new input.
    /// Default 2 s.
    /// </summary>
    public TimeSpan HalfLife { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>
    /// Half-life of the fast demand average (default 100 ms, one decision interval: it reaches 75% of a step change
    /// in two decisions however often the demand is sampled).
    /// </summary>
    public TimeSpan DemandHalfLife { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// How many core-seconds of observed work a prior (an offline profile) is worth; the estimate is the weighted
    /// mean of the prior's speedup and the observed one. Default 0.5 core-seconds: a profile steers the first
    /// decisions and is outweighed within a second or two of running on a few cores.
    /// </summary>
    public double PriorCoreSeconds { get; init; } = 0.5;

    /// <summary>
    /// How many core-seconds of observed work the linear guess (no offline profile) is worth; default 0.5, as a
    /// profile. Lighter guesses let the first samples decide a new program's curve (0.01: one core for one 10 ms
    /// sample outweighs it), but they also read a program that starts sequentially as flat until its wide phase has
    /// run a while; on the simulator's generated mixes none of 0.001-0.15 was near-best on more mixes than 0.5
    /// (policies README, "Early decision").
    /// </summary>
    public double GuessCoreSeconds { get; init; } = 0.5;

    /// <summary>
    /// The share of the windowed work below which a demand level counts as never seen (default 0.05): a fast demand
    /// outside the levels that carried 95% of the window's work, for <see cref="PhaseChangeAfter"/>, is a phase
    /// change, and the window is cut so that the new phase dominates at once.
    /// </summary>
    public double PhaseChangeTail { get; init; } = 0.05;

    /// <summary>How long the fast demand must stay outside the window to be a phase change (default 200 ms: two decisions).</summary>
    public TimeSpan PhaseChangeAfter { get; init; } = TimeSpan.FromMilliseconds(200);

    /// <summary>Observed core-seconds (undecayed) from which the estimate counts as settled (default 0.5).</summary>
    public double SettledCoreSeconds { get; init; } = 0.5;

    /// <summary>Checks the values: one out of range throws, naming it and its value.</summary>
    public void Validate()
    {
        if (HalfLife <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(HalfLife), HalfLife, "The half-life must be positive.");
        }

        if (DemandHalfLife <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(DemandHalfLife), DemandHalfLife, "The demand half-life must be positive.");
        }

        if (!double.IsFinite(PriorCoreSeconds) || PriorCoreSeconds < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(PriorCoreSeconds), PriorCoreSeconds, "The prior's weight must be a finite number >= 0.");
        }

        if (!double.IsFinite(GuessCoreSeconds) || GuessCoreSeconds < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(GuessCoreSeconds), GuessCoreSeconds, "The guess's weight must be a finite number >= 0.");
        }

        if (!(PhaseChangeTail >= 0 && PhaseChangeTail < 0.5))
        {
            throw new ArgumentOutOfRangeException(nameof(PhaseChangeTail), PhaseChangeTail, "The phase-change tail must be in [0, 0.5).");
        }

        if (PhaseChangeAfter < TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(PhaseChangeAfter), PhaseChangeAfter, "The phase-change delay must be at least 0.");
        }
        if (!double.IsFinite(SettledCoreSeconds) || SettledCoreSeconds < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(SettledCoreSeconds), SettledCoreSeconds, "Settled core-seconds must be a finite number >= 0.");
        }
    }
}

/// <summary>
/// Learns one program's scalability while it runs, from two counts the scheduler already has: the program's tasks
/// running now and its tasks queued now, sampled often (the mechanism samples every 10 ms and at each decision). No
/// profiling step, no probe, no clock inside: the caller passes the time since the previous observation. See README.md beside this file (signals, model, convergence,
/// failure modes).
/// </summary>
/// <remarks>
/// <para><b>Model.</b> A divide-and-conquer program's parallelism changes within a run (one task at the root, many in
/// the middle, few again in the last merges). Running + queued tasks is that parallelism as the scheduler sees it:
/// the <em>demand</em>. The estimator keeps, per demand level k (1..n), the core-seconds of work the program did while
/// its demand was k (running tasks x elapsed time, attributed to the level sampled at the end of the interval),
/// decayed with <see cref="ScalabilityEstimatorOptions.HalfLife"/>. Alone on c cores, work done at demand k proceeds
/// at min(k, c), so the program's speedup on c cores is
/// <c>S(c) = sum_k w_k / sum_k (w_k / min(k, c))</c> (a work-weighted harmonic mean; S(1) = 1, S concave and
/// non-decreasing). Demand is observable on any allocation, unlike throughput, so the curve for every core count comes
/// from running on the current one: nothing needs to be moved to measure it.</para>
/// <para><b>Prior.</b> An offline profile, when given, is blended in as if it were worth
/// <see cref="ScalabilityEstimatorOptions.PriorCoreSeconds"/> of observed work; without one, a program nobody has seen
/// is taken to scale linearly until it shows otherwise (it is given cores, not starved of them), a guess worth
/// <see cref="ScalabilityEstimatorOptions.GuessCoreSeconds"/>.</para>
/// <para><b>Phase changes.</b> When the fast demand average lies, for <see cref="ScalabilityEstimatorOptions.PhaseChangeAfter"/>,
/// outside the demand levels that carried all but <see cref="ScalabilityEstimatorOptions.PhaseChangeTail"/>
/// of the window's work, the window's weight is cut by 10x: the new phase dominates the next estimate.</para>
/// <para>Not thread-safe: one caller (the decision path, under the scheduler's decision lock; or the simulator).</para>
/// </remarks>
internal sealed class ScalabilityEstimator
{
    private const double PhaseCut = 0.1;
    private const double IdleEndsBusyPeriod = 1.0; // seconds with no task that end a busy period (ScalabilityEstimate.Age)
    private readonly ScalabilityEstimatorOptions _options;
    private readonly double[] _work; // [k]: decayed core-seconds done while the demand was k (k = 1..n; [0] unused)
    private readonly ScalabilityTable? _prior;
    private double _window;          // sum of _work
    private double _observed;        // undecayed core-seconds observed, for Settled
    private double _age;             // seconds of the current busy period (see Age)
    private double _idleFor;         // seconds with no task running or queued, up to now
    private double _progress = double.NaN; // time-weighted average of running / min(demand, n) while busy (see Progress)
    private double _demand = double.NaN;
    private double _outsideFor;      // seconds the fast demand has been outside the window
    private int _phaseChanges;
    private ScalabilityEstimate? _current; // built lazily: observations are frequent, reads are per decision

    /// <summary>Creates an estimator for one program.</summary>
    /// <param name="coreCount">The machine's cores (the largest demand level kept; at least 1).</param>
    /// <param name="prior">An offline profile to start from, or <see langword="null"/>.</param>
    /// <param name="options">Settings; <see langword="null"/>: the defaults.</param>
    public ScalabilityEstimator(int coreCount, ScalabilityTable? prior = null, ScalabilityEstimatorOptions? options = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(coreCount, 1);
        _options = options ?? new ScalabilityEstimatorOptions();
        _options.Validate();
        CoreCount = coreCount;
        _prior = prior;
        _work = new double[coreCount + 1];
    }

    /// <summary>The machine's cores.</summary>
    public int CoreCount { get; }

    /// <summary>The estimate after the last observation (before any: the prior, or linear). Built on first read, O(n^2).</summary>
    public ScalabilityEstimate Current => _current ??= Build();

    /// <summary>Records one interval of the program's life (O(n)); read <see cref="Current"/> for the estimate.</summary>
    /// <param name="elapsed">Time since the previous observation (zero is allowed: a decision right after a sample).</param>
    /// <param name="running">The program's tasks running now, on any worker; at least 0.</param>
    /// <param name="queued">The program's tasks queued and not started now; at least 0.</param>
    public void Observe(TimeSpan elapsed, int running, long queued)
    {
        if (elapsed < TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(elapsed), elapsed, "Elapsed time must be at least 0.");
        }

        ArgumentOutOfRangeException.ThrowIfNegative(running);
        ArgumentOutOfRangeException.ThrowIfNegative(queued);
        _current = null;
        double seconds = elapsed.TotalSeconds;
        long rawDemand = running + queued;
        if (rawDemand == 0)
        {
            // A second with nothing to run ends the busy period: the next task starts a young program again.
            _idleFor += seconds;
            if (_idleFor >= IdleEndsBusyPeriod)
            {
                _age = 0;
            }
        }
        else
        {
            _idleFor = 0;
            _age += seconds;
        }

        int level = (int)Math.Clamp(rawDemand, 1, CoreCount);

        // Progress: the share of its alone speed the program ran at. Alone it would run min(demand, n) tasks at a time;
        // here it runs `running` of them (on its own or lent workers). Averaged over busy time with the window's
        // half-life; an interval with nothing to do says nothing about it.
        if (rawDemand > 0 && seconds > 0)
        {
            double share = Math.Min(1.0, running / (double)Math.Min(rawDemand, CoreCount));
            double w = 1 - Math.Pow(0.5, seconds / _options.HalfLife.TotalSeconds);
            _progress = double.IsNaN(_progress) ? share : _progress + (w * (share - _progress));
        }

        // Fast demand: a time-weighted exponential average of the sampled demand (capped at n: more is "all of them").
        double sample = Math.Min(rawDemand, CoreCount);
        double weight = 1 - Math.Pow(0.5, seconds / _options.DemandHalfLife.TotalSeconds);
        _demand = double.IsNaN(_demand) ? sample : _demand + (weight * (sample - _demand));

        // Phase change: the fast demand outside the levels that carried the window's work for long enough.
        if (_window > 0 && _options.PhaseChangeTail > 0 && running > 0 && IsOutsideWindow(_demand))
        {
            _outsideFor += seconds;
            if (_outsideFor >= _options.PhaseChangeAfter.TotalSeconds && seconds > 0)
            {
                Scale(PhaseCut);
                _outsideFor = 0;
                _phaseChanges++;
            }
        }
        else
        {
            _outsideFor = 0;
        }

        if (seconds > 0)
        {
            Scale(Math.Pow(0.5, seconds / _options.HalfLife.TotalSeconds));
            double done = running * seconds;
            if (done > 0)
            {
                _work[level] += done;
                _window += done;
                _observed += done;
            }
        }
    }

    private void Scale(double factor)
    {
        for (int k = 1; k < _work.Length; k++)
        {
            _work[k] *= factor;
        }

        _window *= factor;
    }

    /// <summary>Whether <paramref name="demand"/> lies in a tail of the window's work-by-demand distribution.</summary>
    private bool IsOutsideWindow(double demand)
    {
        double tail = _options.PhaseChangeTail * _window;
        double below = 0;
        int d = (int)Math.Clamp(Math.Round(demand), 1, CoreCount);
        for (int k = 1; k < d; k++)
        {
            below += _work[k];
        }

        double above = 0;
        for (int k = d + 1; k <= CoreCount; k++)
        {
            above += _work[k];
        }

        // Outside: (almost) all the work was done at higher demand, or (almost) all at lower demand.
        return _window - below < tail || _window - above < tail;
    }

    private ScalabilityEstimate Build()
    {
        int n = CoreCount;
        var speedup = new double[n + 1];
        double priorWeight = _prior is null ? _options.GuessCoreSeconds : _options.PriorCoreSeconds;
        double observedWeight = _window;
        for (int c = 1; c <= n; c++)
        {
            double observed = c;
            if (_window > 0)
            {
                double time = 0;
                for (int k = 1; k <= n; k++)
                {
                    if (_work[k] > 0)
                    {
                        time += _work[k] / Math.Min(k, c);
                    }
                }

                observed = time > 0 ? Math.Clamp(_window / time, 1, c) : c;
            }

            double prior = _prior?.SpeedupAt(c) ?? c;
            speedup[c] = _window > 0
                ? ((prior * priorWeight) + (observed * observedWeight)) / (priorWeight + observedWeight)
                : prior;
        }

        // Keep the curve non-decreasing (a prior table may dip); cores never make the model slower.
        for (int c = 2; c <= n; c++)
        {
            speedup[c] = Math.Max(speedup[c], speedup[c - 1]);
        }

        return new ScalabilityEstimate(
            speedup,
            double.IsNaN(_demand) ? 0 : _demand,
            _observed,
            _observed >= _options.SettledCoreSeconds,
            _phaseChanges)
        {
            Age = TimeSpan.FromSeconds(_age),
            Progress = double.IsNaN(_progress) ? 1 : _progress,
            WorkByDemand = _window > 0 ? (double[])_work.Clone() : null,
        };
    }
}

/// <summary>What a <see cref="ScalabilityEstimator"/> believes about a program after an observation.</summary>
public sealed class ScalabilityEstimate
{
    private readonly double[] _speedup; // [c] for c = 0..n; [0] = 0

    internal ScalabilityEstimate(double[] speedup, double demand, double observedCoreSeconds, bool settled, int phaseChanges)
    {
        _speedup = speedup;
        Demand = demand;
        ObservedCoreSeconds = observedCoreSeconds;
        IsSettled = settled;
        PhaseChanges = phaseChanges;
    }

    // [k] for k = 1..n: the window's decayed core-seconds done at demand k ([0] unused); null before any work.
    internal double[]? WorkByDemand { get; init; }

    /// <summary>
    /// How bursty the program is beside <paramref name="cores"/> home cores: the share of its time, run alone on the
    /// whole machine, spent with more than <paramref name="cores"/> tasks available (its wide phases). From the
    /// window's observed work only (the prior does not count): 0 for a program that never had more than
    /// <paramref name="cores"/> tasks, 1 for one that always had, and 1 before any work is observed.
    /// </summary>
    /// <param name="cores">Home cores, 0 to <see cref="CoreCount"/>.</param>
    /// <returns>The share, in [0, 1].</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="cores"/> is outside [0, <see cref="CoreCount"/>].</exception>
    public double BurstShare(int cores)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(cores);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(cores, CoreCount);
        if (WorkByDemand is not { } work)
        {
            return 1;
        }

        // Alone on n cores, the work done at demand k (k <= n) runs k tasks at a time: it takes work[k] / k.
        double wide = 0, all = 0;
        for (int k = 1; k < work.Length; k++)
        {
            if (work[k] > 0)
            {
                double time = work[k] / k;
                all += time;
                if (k > cores)
                {
                    wide += time;
                }
            }
        }

        return all > 0 ? wide / all : 1;
    }

    /// <summary>The largest core count of the estimate (the machine's cores).</summary>
    public int CoreCount => _speedup.Length - 1;

    /// <summary>The fast average of the program's demand (running + queued tasks, at most the core count).</summary>
    public double Demand { get; }

    /// <summary>Core-seconds of work observed so far (not decayed).</summary>
    public double ObservedCoreSeconds { get; }

    /// <summary>
    /// How long the program has been busy: the observed time with a task running or queued since it last had none for
    /// a whole second (or since registration). A program restarted in a loop stays old; a service that idles between
    /// jobs is young at each job.
    /// </summary>
    public TimeSpan Age { get; internal init; }

    /// <summary>
    /// The share of its alone speed the program has recently run at, in [0, 1] (1 before any busy observation): the
    /// time-weighted average, over busy intervals and with the window's half-life, of its running tasks divided by
    /// the tasks it would run alone (its demand, at most the core count). Low means slowed down most by the others.
    /// </summary>
    public double Progress { get; internal init; } = 1;

    /// <summary>Whether enough work has been observed for the estimate to stand on its own.</summary>
    public bool IsSettled { get; }

    /// <summary>Phase changes detected so far.</summary>
    public int PhaseChanges { get; }

    /// <summary>The estimated speedup on <paramref name="cores"/> cores alone (0 for 0; the last value past the core count).</summary>
    /// <param name="cores">At least 0.</param>
    /// <returns>The speedup.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="cores"/> is negative.</exception>
    public double SpeedupAt(int cores)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(cores);
        return _speedup[Math.Min(cores, _speedup.Length - 1)];
    }

    /// <summary>The estimated efficiency on <paramref name="cores"/> cores: speedup / cores.</summary>
    /// <param name="cores">At least 1.</param>
    /// <returns>The efficiency, in (0, 1].</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="cores"/> is below 1.</exception>
    public double EfficiencyAt(int cores)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(cores, 1);
        return SpeedupAt(cores) / cores;
    }

    /// <summary>The estimate as a scalability table (a point per core count).</summary>
    /// <returns>The table.</returns>
    public ScalabilityTable ToTable() =>
        new(Enumerable.Range(1, CoreCount).Select(c => new ScalabilityPoint(c, _speedup[c])));

    /// <inheritdoc />
    public override string ToString() =>
        FormattableString.Invariant($"demand {Demand:0.#}, speedup {SpeedupAt(CoreCount):0.##} on {CoreCount} cores, {ObservedCoreSeconds:0.##} core-s observed{(IsSettled ? "" : " (unsettled)")}");
}
