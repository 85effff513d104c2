namespace DivCon.Harness.Measurement;

/// <summary>Repeated timings of one program, in seconds (e.g. its isolated runs: the C_SP sample).</summary>
/// <param name="Program">Program name.</param>
/// <param name="Seconds">Run durations in run order.</param>
public sealed record ProgramTimings(string Program, IReadOnlyList<double> Seconds);

/// <summary>One finished run of one program in a cyclic test.</summary>
/// <param name="Program">Program name.</param>
/// <param name="RunIndex">0-based index of this run among the program's runs (counted or not).</param>
/// <param name="Start">When the run started, measured from the start of the test.</param>
/// <param name="End">When the run finished, measured from the start of the test.</param>
/// <param name="Counted">False when the run ended after the time limit, so its timing is discarded.</param>
public sealed record RunRecord(string Program, int RunIndex, TimeSpan Start, TimeSpan End, bool Counted)
{
    /// <summary>The run's duration, <c>End - Start</c>.</summary>
    public TimeSpan Duration => End - Start;
}

/// <summary>One core moved by a decision of a partitioning scheme.</summary>
/// <param name="DecidedAt">When the decision was recorded, since the trace started.</param>
/// <param name="Label">What moved (e.g. "cpu 1: quicksort -> strassen"); may be empty.</param>
/// <param name="Latency">Decision to a worker serving the new owner; null when it had not arrived (or was superseded).</param>
public sealed record MoveSample(TimeSpan DecidedAt, string Label, TimeSpan? Latency);
