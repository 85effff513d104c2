using DivCon.Harness.Performance;

namespace DivCon.Harness.Experiments;

/// <summary>One program of the phases experiment: a run with the skeleton's observer feeding the given profile.</summary>
/// <param name="Program">Program name.</param>
/// <param name="RunObserved">Runs the program once, reporting every split/execute/merge into the profile.</param>
public sealed record PhaseCase(string Program, Func<PhaseProfile, CancellationToken, Task> RunObserved);
