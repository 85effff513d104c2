using DivCon.Harness.Cyclic;

namespace DivCon.Harness.Tests.Support;

/// <summary>A program whose every run takes a fixed (or scripted) time on a manual clock.</summary>
internal sealed class FakeProgram(string name, ManualTimeProvider clock, params TimeSpan[] durations) : IWorkloadProgram
{
    private int _runs;

    public string Name { get; } = name;

    public int Runs => _runs;

    public Task RunOnceAsync(CancellationToken cancellationToken)
    {
        int index = _runs++;
        return clock.WaitAsync(durations[Math.Min(index, durations.Length - 1)]);
    }

    public static FakeProgram Fixed(string name, ManualTimeProvider clock, double seconds) =>
        new(name, clock, TimeSpan.FromSeconds(seconds));
}
