using System.Globalization;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Harness.Workload;

/// <summary>
/// The harness's one program wrapper: a program of a workload under the name it reports with (e.g. "quicksort", or
/// "quicksort#2" in a symmetric test), unbound as the workload builder makes it, or bound by a scheme to the
/// scheduler its tasks go to (<see cref="On"/>), ready to run once more at each <see cref="RunOnceAsync"/>.
/// </summary>
/// <remarks>
/// <para>A catalog program is built once and shared by every scheme of an experiment: programs never change their
/// input, so reruns need no re-initialisation and the time measured is the run alone. Its runs go straight to the
/// skeleton through <see cref="BenchmarkProgram.RunParallelAsync"/>, which keeps an instance to one run at a time
/// (the instance owns one result buffer that every run writes and verification reads).</para>
/// <para>A synthetic program (a name and a "run once" delegate) stands for work that is not a catalog program: test
/// doubles, or a configuration of a sweep.</para>
/// <para><see cref="RunOnceAsync"/> should start the work and return promptly: the cyclic runner starts all programs
/// from one thread, one after the other.</para>
/// </remarks>
public sealed class WorkloadProgram
{
    private readonly BenchmarkProgram? _program;
    private readonly Func<CancellationToken, Task>? _runOnce;

    /// <summary>A catalog program, not yet bound to a scheduler.</summary>
    /// <param name="name">The report name, unique within the workload (non-empty).</param>
    /// <param name="program">The initialised program.</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty or white space.</exception>
    public WorkloadProgram(string name, BenchmarkProgram program)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(program);
        Name = name;
        _program = program;
    }

    /// <summary>A synthetic program: each run is one call of <paramref name="runOnce"/>; always ready to run.</summary>
    /// <param name="name">The report name (non-empty).</param>
    /// <param name="runOnce">Runs the program once.</param>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty or white space.</exception>
    public WorkloadProgram(string name, Func<CancellationToken, Task> runOnce)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(runOnce);
        Name = name;
        _runOnce = runOnce;
    }

    private WorkloadProgram(WorkloadProgram unbound, TaskScheduler scheduler)
    {
        Name = unbound.Name;
        _program = unbound._program;
        _runOnce = unbound._runOnce;
        Scheduler = scheduler;
    }

    /// <summary>Program name, unique within a workload; used in every report.</summary>
    public string Name { get; }

    /// <summary>Whether this wraps a catalog program (false: a synthetic one).</summary>
    public bool IsCatalogProgram => _program is not null;

    /// <summary>The catalog program.</summary>
    /// <exception cref="InvalidOperationException">This is a synthetic program.</exception>
    public BenchmarkProgram Program => _program ?? throw new InvalidOperationException($"'{Name}' is a synthetic program, not a catalog program.");

    /// <summary>The scheduler a scheme bound this program to; null while unbound.</summary>
    public TaskScheduler? Scheduler { get; }

    /// <summary>The key under which scalability profiles are stored: the program's problem size, invariant text.</summary>
    /// <exception cref="InvalidOperationException">This is a synthetic program.</exception>
    public string ProblemSizeKey => Program.ProblemSize.ToString(CultureInfo.InvariantCulture);

    /// <summary>The same program with its runs going to <paramref name="scheduler"/>.</summary>
    /// <param name="scheduler">Where its tasks go.</param>
    /// <returns>The bound program.</returns>
    public WorkloadProgram On(TaskScheduler scheduler)
    {
        ArgumentNullException.ThrowIfNull(scheduler);
        return new WorkloadProgram(this, scheduler);
    }

    /// <summary>Runs the program once and completes when the run has finished.</summary>
    /// <param name="cancellationToken">Cancels the run.</param>
    /// <returns>A task that completes when the run is done.</returns>
    /// <exception cref="InvalidOperationException">A catalog program not bound to a scheduler, or one already running.</exception>
    public Task RunOnceAsync(CancellationToken cancellationToken)
    {
        if (_runOnce is not null)
        {
            return _runOnce(cancellationToken);
        }

        TaskScheduler scheduler = Scheduler ?? throw new InvalidOperationException($"'{Name}' is not bound to a scheduler: a scheme binds it with On(scheduler).");
        if (scheduler is not ProgramTaskScheduler program)
        {
            return Program.RunParallelAsync(scheduler, cancellationToken: cancellationToken);
        }

        // On a multiprogram scheduler each run is reported (the default policy's "long runs first" reads them); the
        // run ends when its task does, before anyone awaiting the returned task resumes.
        ProgramRun run = program.BeginRun();
        Task running;
        try
        {
            running = Program.RunParallelAsync(scheduler, cancellationToken: cancellationToken);
        }
        catch
        {
            run.Dispose();
            throw;
        }

        return running.ContinueWith(
            static (finished, state) =>
            {
                ((ProgramRun)state!).Dispose();
                return finished;
            },
            run,
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously | TaskContinuationOptions.DenyChildAttach,
            TaskScheduler.Default).Unwrap();
    }

    /// <inheritdoc/>
    public override string ToString() => Name;
}
