using DivCon.Harness.Cyclic;
using DivCon.Harness.Experiments;
using DivCon.Harness.Wiring;

namespace DivCon.Harness.Schemes;

/// <summary>
/// Base of the CLI's schemes: a workload of initialised programs bound, at each <see cref="OpenAsync"/>, to the
/// schedulers the scheme creates. A subclass only says which schedulers it makes and which program goes where.
/// </summary>
/// <remarks>
/// <para>Adding a scheme: one class deriving from this, implementing <see cref="Open"/>, and one line in
/// <see cref="SchemeRegistry"/>.</para>
/// <para>If <see cref="Open"/> throws after creating schedulers, it must dispose them (see
/// <see cref="OpenOwning"/>).</para>
/// </remarks>
public abstract class WorkloadScheme : IWorkloadScheme
{
    /// <summary>Creates the scheme.</summary>
    /// <param name="workload">The programs (at least one, names unique).</param>
    /// <param name="context">Machine, workers and profiles.</param>
    /// <exception cref="ArgumentException">The workload is empty or has duplicate names.</exception>
    protected WorkloadScheme(IReadOnlyList<WorkloadMember> workload, SchemeContext context)
    {
        ArgumentNullException.ThrowIfNull(workload);
        ArgumentNullException.ThrowIfNull(context);
        if (workload.Count == 0 || workload.Select(m => m.Name).Distinct(StringComparer.Ordinal).Count() != workload.Count)
        {
            throw new ArgumentException("A workload needs at least one program and unique names.", nameof(workload));
        }

        Workload = workload;
        Context = context;
    }

    /// <inheritdoc/>
    public abstract string Name { get; }

    /// <summary>The programs.</summary>
    protected IReadOnlyList<WorkloadMember> Workload { get; }

    /// <summary>Machine, workers and profiles.</summary>
    protected SchemeContext Context { get; }

    /// <inheritdoc/>
    public ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        return ValueTask.FromResult<IWorkloadSession>(Open());
    }

    /// <summary>Creates the schedulers and binds the programs.</summary>
    /// <returns>The session.</returns>
    protected abstract SchemeSession Open();

    /// <summary>A program that runs <paramref name="member"/> once on <paramref name="scheduler"/> per call.</summary>
    /// <param name="member">The program.</param>
    /// <param name="scheduler">Where its tasks go.</param>
    /// <returns>The bound program.</returns>
    protected static IWorkloadProgram Bind(WorkloadMember member, TaskScheduler scheduler)
    {
        ArgumentNullException.ThrowIfNull(member);
        ArgumentNullException.ThrowIfNull(scheduler);
        return new DelegateWorkloadProgram(member.Name, ct => member.Program.RunParallelAsync(scheduler, cancellationToken: ct));
    }

    /// <summary>
    /// Runs <paramref name="build"/> with a list to which it adds every scheduler it creates; if it throws, the
    /// schedulers created so far are disposed before the exception propagates.
    /// </summary>
    /// <param name="build">Creates the schedulers (adding each to the list) and returns the session.</param>
    /// <returns>The session.</returns>
    protected static SchemeSession OpenOwning(Func<List<IDisposable>, SchemeSession> build)
    {
        ArgumentNullException.ThrowIfNull(build);
        var owned = new List<IDisposable>();
        try
        {
            return build(owned);
        }
        catch
        {
            SchemeSession.DisposeAll(owned);
            throw;
        }
    }
}
