using System.Collections.Concurrent;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Support;

internal sealed class RecordingProgressSink : IProgressSink
{
    public ConcurrentQueue<string> Events { get; } = new();

    public void BeginPhase(string phase, double total) => Events.Enqueue($"begin {phase} {total}");

    public void Report(string phase, double value, string? message = null) => Events.Enqueue($"report {value} {message}");

    public void EndPhase(string phase) => Events.Enqueue($"end {phase}");
}
