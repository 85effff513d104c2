namespace DivCon.Harness.Workload;

/// <summary>One core moved by a decision of a partitioning scheme.</summary>
/// <param name="DecidedAt">When the decision was recorded, since the trace started.</param>
/// <param name="Label">What moved (e.g. "cpu 1: quicksort -> strassen"); may be empty.</param>
/// <param name="Latency">Decision to a worker serving the new owner; null when it had not arrived (or was superseded).</param>
public sealed record MoveSample(TimeSpan DecidedAt, string Label, TimeSpan? Latency);
