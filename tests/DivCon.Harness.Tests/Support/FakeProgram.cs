using DivCon.Harness.Workload;

namespace DivCon.Harness.Tests.Support;

/// <summary>A program whose every run takes a fixed (or scripted) time on a manual clock; counts its runs.</summary>
internal sealed class FakeProgram(string name, ManualTimeProvider clock, params TimeSpan[] durations)
{
    private int _runs;

    public string Name { get; } = name;

    public int Runs => _runs;

    /// <summary>The synthetic workload program whose runs this fake times and counts.</summary>
    public WorkloadProgram Program => new(Name, RunOnceAsync);

    public static implicit operator WorkloadProgram(FakeProgram fake) => fake.ToWorkloadProgram();

    public static FakeProgram Fixed(string name, ManualTimeProvider clock, double seconds) =>
        new(name, clock, TimeSpan.FromSeconds(seconds));

    public WorkloadProgram ToWorkloadProgram() => Program;

    private Task RunOnceAsync(CancellationToken cancellationToken)
    {
        int index = _runs++;
        return clock.WaitAsync(durations[Math.Min(index, durations.Length - 1)]);
    }
}
