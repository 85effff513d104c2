using DivCon.Skeletons;

namespace DivCon.Harness.Experiments;

/// <summary>One program of the phases experiment.</summary>
/// <param name="Program">Program name.</param>
/// <param name="RunObserved">Runs the program once on the given number of workers (one of the experiment's
/// <see cref="PhasesExperiment.WorkerCounts"/>), reporting every split/execute/merge to the observer.</param>
public sealed record PhaseCase(string Program, Func<int, IDivideAndConquerObserver, CancellationToken, Task> RunObserved);
