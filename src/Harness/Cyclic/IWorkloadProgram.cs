namespace DivCon.Harness.Cyclic;

/// <summary>
/// One program of a workload, ready to run: already initialised and bound to whatever scheduler its scheme
/// gave it, so that each call only runs it once more.
/// </summary>
/// <remarks>
/// <see cref="RunOnceAsync"/> should start the work and return promptly (a task that completes when the run
/// has finished): the <see cref="CyclicRunner"/> starts all programs from one thread, one after the other,
/// and a program that computes synchronously before returning delays the start of the others. Reruns must
/// not need re-initialisation (DivCon's programs are non-destructive), so the time measured is the run alone.
/// </remarks>
public interface IWorkloadProgram
{
    /// <summary>Program name, unique within a workload; used in every report.</summary>
    string Name { get; }

    /// <summary>Runs the program once and completes when the run has finished.</summary>
    /// <param name="cancellationToken">Cancels the run.</param>
    /// <returns>A task that completes when the run is done.</returns>
    Task RunOnceAsync(CancellationToken cancellationToken);
}
