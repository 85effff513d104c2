namespace DivCon.Simulator;

/// <summary>One program of a simulated workload: a name and the task graph every run of it replays.</summary>
/// <param name="Name">The program's name (unique in a workload; symmetric instances are named <c>program#i</c>).</param>
/// <param name="Graph">The task graph of one run.</param>
/// <remarks>
/// By default a program is there for the whole cyclic test (first run at 0, restarted until the time limit). A
/// generated mix (<see cref="Workloads.MixGenerator"/>) may set <see cref="Arrival"/>, <see cref="MaxRuns"/> and
/// <see cref="LeaveAt"/>: the program arrives late and departs early. Partitioning schemes register it at its
/// arrival and unregister it at its departure (an <c>Arrival</c> and a <c>Departure</c> decision).
/// </remarks>
public sealed record SimulatedProgram(string Name, TaskGraph Graph)
{
    /// <summary>When the program arrives and starts its first run (default 0; not negative).</summary>
    public TimeSpan Arrival { get; init; }

    /// <summary>The program departs after this many runs (null: no run limit; else at least 1).</summary>
    public int? MaxRuns { get; init; }

    /// <summary>The program starts no run at or after this time and departs when its run in flight ends (null: only the test's limit; else after <see cref="Arrival"/>).</summary>
    public TimeSpan? LeaveAt { get; init; }

    /// <summary>Whether the program is there from 0 to the limit (no arrival, run limit or leaving time): the cyclic protocol's program.</summary>
    public bool IsCyclic => Arrival == TimeSpan.Zero && MaxRuns is null && LeaveAt is null;
}
