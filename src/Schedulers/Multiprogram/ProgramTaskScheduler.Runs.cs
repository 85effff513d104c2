using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The program's runs as it reports them (<see cref="BeginRun"/>): the only signal of the allocation snapshot that the
/// scheduler cannot see in its tasks, because a run's boundaries are the program's to say (the next run's root is often
/// queued from inside the last task of the previous one, so no idle moment separates them).
/// </summary>
public sealed partial class ProgramTaskScheduler
{
    // Every field below under _runsGate. Runs begin and end a few times a second at most, so a lock costs nothing
    // that matters, and it keeps the three counts consistent with each other for the snapshot.
    private readonly object _runsGate = new();
    private readonly List<ProgramRun> _runsInProgress = [];
    private int _runsCompleted;
    private long _completedRunTicks;

    /// <summary>
    /// Marks the start of one of the program's runs (a unit of work it repeats: a job, a request, a frame) and returns
    /// the handle whose <see cref="ProgramRun.Dispose"/> marks its end. Optional: a program that reports its runs lets
    /// the default policy tell a run that has lasted far longer than the other programs' typical runs, and give it the
    /// others' workers first (the policies README, "Long runs first"); a program that never calls it is allocated on
    /// its tasks alone. Runs may overlap; the oldest one under way is the program's current run, so a run that is never
    /// disposed stays the current run for good and looks ever longer to the policy: end every run, faulted or not
    /// (<c>using</c> does).
    /// </summary>
    /// <example>
    /// <code>
    /// using (program.BeginRun())
    /// {
    ///     await skeleton.RunAsync(problem, DivideAndConquerOptions.Default with { Scheduler = program });
    /// }
    /// </code>
    /// </example>
    /// <returns>The run; dispose it when the run has ended (disposing twice counts once).</returns>
    public ProgramRun BeginRun()
    {
        var run = new ProgramRun(this, _owner.TimeProvider.GetTimestamp());
        lock (_runsGate)
        {
            _runsInProgress.Add(run);
        }

        return run;
    }

    // The stated lifetime in ticks, -1 when none; written by the program, read by each decision's snapshot. A single
    // long written and read with Volatile: a decision sees the old or the new value, either of which is valid.
    private long _expectedLifetimeTicks = -1;

    /// <summary>
    /// How long the program expects to stay registered, in all, from its registration (a job that knows it will run
    /// for about a minute, or for three runs of about 10 ms); <see langword="null"/> (the default): unknown. Optional,
    /// and settable at any time. The default policy favours young programs, because a program's normalised turnaround
    /// is averaged over its own lifetime, so a short one gains much from extra cores while the long ones beside it lose
    /// a small share of theirs; without this it takes the time the program has been busy as its guess, which cannot tell
    /// a short program from a long one started at the same moment. A stated lifetime replaces that guess, and a program
    /// that states less than 10 s keeps its workers rather than yield them to other programs' wide phases (the policies
    /// README, "Stated lifetimes"). Only its order of magnitude matters, and lifetimes past 10 s count alike. A process
    /// joined to a machine domain does not pass it on.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is zero or negative.</exception>
    public TimeSpan? ExpectedLifetime
    {
        get
        {
            long ticks = Volatile.Read(ref _expectedLifetimeTicks);
            return ticks < 0 ? null : TimeSpan.FromTicks(ticks);
        }

        set
        {
            if (value is { } lifetime && lifetime <= TimeSpan.Zero)
            {
                throw new ArgumentOutOfRangeException(nameof(value), lifetime, "An expected lifetime must be positive (null: unknown).");
            }

            Volatile.Write(ref _expectedLifetimeTicks, value?.Ticks ?? -1);
        }
    }

    /// <summary>The runs reported with <see cref="BeginRun"/> that have ended.</summary>
    public int CompletedRuns
    {
        get
        {
            lock (_runsGate)
            {
                return _runsCompleted;
            }
        }
    }

    /// <summary>The runs reported with <see cref="BeginRun"/> that have not ended yet.</summary>
    public int RunsInProgress
    {
        get
        {
            lock (_runsGate)
            {
                return _runsInProgress.Count;
            }
        }
    }

    /// <summary>Called once per run by <see cref="ProgramRun.Dispose"/>: the run leaves the runs under way and its
    /// duration joins the completed ones.</summary>
    internal void EndRun(ProgramRun run)
    {
        long end = _owner.TimeProvider.GetTimestamp();
        lock (_runsGate)
        {
            if (_runsInProgress.Remove(run))
            {
                _runsCompleted++;
                _completedRunTicks += Math.Max(0, _owner.TimeProvider.GetElapsedTime(run.StartedAt, end).Ticks);
            }
        }
    }

    /// <summary>
    /// The runs as the policy reads them at <paramref name="now"/>: how many completed and in what total time, and how
    /// long the oldest run under way has lasted; <see langword="null"/> for a program that has never reported a run.
    /// </summary>
    /// <param name="now">The scheduler's clock now.</param>
    internal RunHistory? RunsAt(long now)
    {
        lock (_runsGate)
        {
            // A run that began is under way or completed: a program with neither never reported one.
            if (_runsCompleted == 0 && _runsInProgress.Count == 0)
            {
                return null;
            }

            TimeSpan? age = null;
            foreach (ProgramRun run in _runsInProgress)
            {
                TimeSpan lasted = _owner.TimeProvider.GetElapsedTime(run.StartedAt, now);
                lasted = lasted < TimeSpan.Zero ? TimeSpan.Zero : lasted;
                age = age is { } oldest && oldest >= lasted ? oldest : lasted;
            }

            return new RunHistory(_runsCompleted, TimeSpan.FromTicks(_completedRunTicks), age);
        }
    }
}

/// <summary>
/// One run of a program, from <see cref="ProgramTaskScheduler.BeginRun"/> to <see cref="Dispose"/>. Disposing ends
/// the run (from any thread; a second call does nothing).
/// </summary>
public sealed class ProgramRun : IDisposable
{
    private readonly ProgramTaskScheduler _program;
    private int _ended;

    internal ProgramRun(ProgramTaskScheduler program, long startedAt)
    {
        _program = program;
        StartedAt = startedAt;
    }

    /// <summary>When the run began, on the scheduler's clock (<see cref="MultiprogramScheduler.TimeProvider"/>).</summary>
    internal long StartedAt { get; }

    /// <summary>Whether <see cref="Dispose"/> has ended the run.</summary>
    public bool IsEnded => Volatile.Read(ref _ended) != 0;

    /// <summary>Ends the run: its duration counts among the program's completed runs.</summary>
    public void Dispose()
    {
        // Interlocked: two threads disposing the same run count it once.
        if (Interlocked.Exchange(ref _ended, 1) == 0)
        {
            _program.EndRun(this);
        }
    }
}
