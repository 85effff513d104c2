namespace DivCon.Harness.Workload;

/// <summary>
/// Wraps a scheme so that closing its session checks every program's last result (outside any timing): a scheme
/// that produced wrong answers fails the experiment instead of reporting fast numbers.
/// </summary>
/// <param name="inner">The scheme.</param>
/// <param name="workload">Its programs.</param>
public sealed class VerifyingScheme(IWorkloadScheme inner, IReadOnlyList<WorkloadProgram> workload) : IWorkloadScheme
{
    private readonly IWorkloadScheme _inner = inner ?? throw new ArgumentNullException(nameof(inner));
    private readonly IReadOnlyList<WorkloadProgram> _workload = workload ?? throw new ArgumentNullException(nameof(workload));

    /// <inheritdoc/>
    public string Name => _inner.Name;

    /// <inheritdoc/>
    public async ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken) =>
        new Session(await _inner.OpenAsync(cancellationToken).ConfigureAwait(false), _workload, _inner.Name);

    private sealed class Session(IWorkloadSession inner, IReadOnlyList<WorkloadProgram> workload, string scheme) : IWorkloadSession
    {
        public IReadOnlyList<WorkloadProgram> Programs => inner.Programs;

        public AllocationTrace? Allocations => inner.Allocations;

        public async ValueTask DisposeAsync()
        {
            await inner.DisposeAsync().ConfigureAwait(false);
            foreach (WorkloadProgram member in workload.Where(m => m.Program.HasResult && !m.Program.IsBusy))
            {
                var verification = member.Program.Verify();
                if (!verification.Succeeded)
                {
                    throw new InvalidOperationException($"Scheme '{scheme}': {member.Name} computed a wrong result: {verification.Message}");
                }
            }
        }
    }
}

/// <summary>Checks the last results of a workload after a sweep.</summary>
public static class Verification
{
    /// <summary>Verifies every program that has a result.</summary>
    /// <param name="workload">The programs.</param>
    /// <param name="experiment">Experiment name, for the message.</param>
    /// <exception cref="InvalidOperationException">A result is wrong.</exception>
    public static void VerifyAll(IReadOnlyList<WorkloadProgram> workload, string experiment)
    {
        ArgumentNullException.ThrowIfNull(workload);
        foreach (WorkloadProgram member in workload.Where(m => m.Program.HasResult))
        {
            var verification = member.Program.Verify();
            if (!verification.Succeeded)
            {
                throw new InvalidOperationException($"{experiment}: {member.Name} computed a wrong result: {verification.Message}");
            }
        }
    }
}
