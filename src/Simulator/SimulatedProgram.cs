namespace DivCon.Simulator;

/// <summary>One program of a simulated workload: a name and the task graph every run of it replays.</summary>
/// <param name="Name">The program's name (unique in a workload; symmetric instances are named <c>program#i</c>).</param>
/// <param name="Graph">The task graph of one run.</param>
public sealed record SimulatedProgram(string Name, TaskGraph Graph);
