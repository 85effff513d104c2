using DivCon.Harness.Workload;

namespace DivCon.Harness.Tests.Support;

/// <summary>A scheme whose programs take fixed times on a manual clock; optionally records one allocation.</summary>
internal sealed class FakeScheme(string name, ManualTimeProvider clock, IReadOnlyDictionary<string, double> seconds, IReadOnlyList<int>? allocation = null) : IWorkloadScheme
{
    public string Name { get; } = name;

    public int Opened { get; private set; }

    public int Disposed { get; private set; }

    public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken)
    {
        Opened++;
        WorkloadProgram[] programs = seconds.Select(p => FakeProgram.Fixed(p.Key, clock, p.Value).Program).ToArray();
        AllocationTrace? trace = null;
        if (allocation is not null)
        {
            trace = new AllocationTrace(programs.Select(p => p.Name).ToArray(), clock);
            trace.Record(allocation);
        }

        return ValueTask.FromResult<IWorkloadSession>(new Session(this, programs, trace));
    }

    private sealed class Session(FakeScheme owner, IReadOnlyList<WorkloadProgram> programs, AllocationTrace? trace) : IWorkloadSession
    {
        public IReadOnlyList<WorkloadProgram> Programs { get; } = programs;

        public AllocationTrace? Allocations { get; } = trace;

        public ValueTask DisposeAsync()
        {
            owner.Disposed++;
            return ValueTask.CompletedTask;
        }
    }
}
