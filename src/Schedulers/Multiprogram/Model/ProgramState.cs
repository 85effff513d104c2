using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>What an allocation policy knows about one program at the moment of a decision.</summary>
/// <remarks>
/// Validated on construction, so a policy never sees a negative count or a speedup that is not a positive
/// finite number. The properties are get-only, so a <c>with</c> expression cannot bypass the checks.
/// </remarks>
public sealed record ProgramState
{
    /// <summary>Creates the state of one program.</summary>
    /// <param name="id">The program.</param>
    /// <param name="speedup">
    /// Its speedup when run alone on the whole machine (sequential time / parallel time); positive and finite.
    /// </param>
    /// <param name="availableTasks">Tasks queued and not yet started (the live count); at least 0.</param>
    /// <param name="currentCores">Cores the program holds now; at least 0.</param>
    /// <param name="table">Optional speedup by core count, used by policies that search over core counts.</param>
    /// <param name="servingWorkers">
    /// Workers actually running the program's tasks now (owned or lent; a worker moves only between tasks, so this
    /// lags <paramref name="currentCores"/>); at least 0. <see langword="null"/>: not measured, taken as
    /// <paramref name="currentCores"/>.
    /// </param>
    /// <param name="runningTasks">
    /// Tasks of the program running now on the CPUs it holds (a CPU's serving worker inside one of the program's
    /// tasks); at least 0. 0 when not measured.
    /// </param>
    /// <exception cref="ArgumentOutOfRangeException">A number is out of range; the message names it and its value.</exception>
    public ProgramState(ProgramId id, double speedup, int availableTasks, int currentCores, ScalabilityTable? table = null, int? servingWorkers = null, int runningTasks = 0)
    {
        if (!double.IsFinite(speedup) || speedup <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(speedup), speedup, $"Speedup of {id} must be a positive finite number.");
        }

        ArgumentOutOfRangeException.ThrowIfNegative(availableTasks);
        ArgumentOutOfRangeException.ThrowIfNegative(currentCores);
        if (servingWorkers is < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(servingWorkers), servingWorkers, $"Serving workers of {id} must be at least 0.");
        }

        if (runningTasks < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(runningTasks), runningTasks, $"Running tasks of {id} must be at least 0.");
        }

        Id = id;
        RunningTasks = runningTasks;
        ServingWorkers = servingWorkers ?? currentCores;
        Speedup = speedup;
        AvailableTasks = availableTasks;
        CurrentCores = currentCores;
        Table = table;
    }

    /// <summary>The program.</summary>
    public ProgramId Id { get; }

    /// <summary>Speedup on the whole machine when run alone (positive, finite).</summary>
    public double Speedup { get; }

    /// <summary>Tasks queued and not yet started.</summary>
    public int AvailableTasks { get; }

    /// <summary>Cores the program holds now.</summary>
    public int CurrentCores { get; }

    /// <summary>
    /// Workers running the program's tasks now (owned or lent), as measured; equals <see cref="CurrentCores"/> when
    /// not measured. Differs from it while workers finish a task of the program they are leaving.
    /// </summary>
    public int ServingWorkers { get; }

    /// <summary>
    /// Tasks of the program running now on the CPUs it holds (a serving worker inside one of its tasks); 0 when not
    /// measured. With <see cref="AvailableTasks"/> it tells whether the program is using its cores: a program whose
    /// queues are momentarily empty while its only core runs its task is still busy.
    /// </summary>
    public int RunningTasks { get; }

    /// <summary>Speedup by core count, when measured; <see langword="null"/> when only <see cref="Speedup"/> is known.</summary>
    public ScalabilityTable? Table { get; }

    /// <summary>
    /// What the mechanism has learned of the program while it runs (<see cref="ScalabilityEstimator"/>): its speedup
    /// curve and demand; <see langword="null"/> when not estimated (a snapshot built by hand). Policies that use it
    /// fall back on <see cref="Table"/> and <see cref="Speedup"/> without it.
    /// </summary>
    public ScalabilityEstimate? Estimate { get; init; }

    /// <summary>
    /// How long the program expects to stay, in all, from its registration, when it says so
    /// (<see cref="ProgramTaskScheduler.ExpectedLifetime"/>); <see langword="null"/>: unknown. The default policy weighs
    /// youth by it instead of by the age it observes (<see cref="Policies.LearnedScalabilityPolicy"/>, "Youth"). The
    /// machine domain's wire does not carry it.
    /// </summary>
    public TimeSpan? ExpectedLifetime { get; init; }

    /// <summary>
    /// The stated lifetime as the policies believe it: <see cref="ExpectedLifetime"/>, or the estimate's age once the
    /// program has been busy longer than it said it would stay (a lifetime it has outlived is no longer believed, so an
    /// underestimate, or a program that claims to be short to be served first, gains only until then);
    /// <see langword="null"/> when none is stated.
    /// </summary>
    internal TimeSpan? BelievedLifetime =>
        ExpectedLifetime is { } stated && Estimate is { } estimate && estimate.Age > stated ? estimate.Age : ExpectedLifetime;

    /// <summary>
    /// The program's runs so far, where they are known: the simulator knows every run; the scheduler knows those a
    /// program reports (<see cref="ProgramTaskScheduler.BeginRun"/>) and leaves it <see langword="null"/> for a program
    /// that reports none. The machine domain's wire does not carry it: a process joined to a domain runs on the
    /// coordinator's grants, which carry no burst roles. Used only by "long runs first"
    /// (<see cref="Policies.BurstPriority.WithLongRunsFirst"/>).
    /// </summary>
    internal RunHistory? Runs { get; init; }
}

/// <summary>A program's runs at a decision: how many have completed, their total time, and how long the current one has run.</summary>
/// <param name="Completed">Completed runs, at least 0.</param>
/// <param name="CompletedTime">The completed runs' total duration.</param>
/// <param name="CurrentRunAge">How long the current run has run; <see langword="null"/> between runs.</param>
internal readonly record struct RunHistory(int Completed, TimeSpan CompletedTime, TimeSpan? CurrentRunAge)
{
    /// <summary>The completed runs' mean duration; <see langword="null"/> before the first completes.</summary>
    public TimeSpan? MeanRun => Completed > 0 ? TimeSpan.FromTicks(CompletedTime.Ticks / Completed) : null;
}
