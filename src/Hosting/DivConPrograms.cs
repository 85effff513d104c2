using System.Diagnostics.CodeAnalysis;
using DivCon.Schedulers.Multiprogram;
using Microsoft.Extensions.Options;

namespace DivCon.Hosting;

/// <summary>
/// The host's multiprogram scheduler and its programs by name: inject it and take a program's
/// <see cref="ProgramTaskScheduler"/> (its <c>Run</c>, <c>RunAsync</c>, <c>ForAsync</c>, <c>Factory</c>, or a
/// skeleton's <c>Scheduler</c> option).
/// </summary>
/// <remarks>
/// The scheduler is created with the options at the first use: normally when the host starts (its hosted service
/// asks first), or earlier if another service starting before it asks. The host's stop drains it (every accepted
/// task runs, within the host's shutdown timeout) and the container's disposal ends it (bounded by
/// <see cref="MultiprogramScheduler.DefaultShutdownTimeout"/>); no worker thread outlives either when the tasks end
/// in time.
/// </remarks>
public sealed class DivConPrograms : IDisposable
{
    private readonly IOptions<DivConMultiprogramOptions> _options;
    private readonly object _gate = new();
    private MultiprogramScheduler? _scheduler;
    private Dictionary<string, ProgramTaskScheduler> _programs = new(StringComparer.Ordinal);
    private string[] _names = [];
    private bool _disposed;

    /// <summary>Creates the registry (the dependency-injection container does).</summary>
    /// <param name="options">The validated options.</param>
    public DivConPrograms(IOptions<DivConMultiprogramOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options;
    }

    /// <summary>The multiprogram scheduler (created at the first use; see the remarks).</summary>
    /// <exception cref="Microsoft.Extensions.Options.OptionsValidationException">The options are not valid.</exception>
    /// <exception cref="InvalidOperationException">The scheduler could not be created on this machine (the inner
    /// exception says why, for example CPUs the process may not use, or pinning on an unsupported system).</exception>
    /// <exception cref="ObjectDisposedException">The host has been disposed.</exception>
    public MultiprogramScheduler Scheduler => EnsureStarted();

    /// <summary>The names of the programs registered from the options, in registration (ordinal) order.</summary>
    public IReadOnlyList<string> Names
    {
        get
        {
            EnsureStarted();
            return _names;
        }
    }

    /// <summary>The program registered under <paramref name="name"/>.</summary>
    /// <param name="name">Its name, as in the options (ordinal).</param>
    /// <returns>Its task scheduler.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="KeyNotFoundException">No program has that name (the message lists the names).</exception>
    public ProgramTaskScheduler Get(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (TryGet(name, out ProgramTaskScheduler? program))
        {
            return program;
        }

        string known = _names.Length == 0 ? "none is configured" : "configured: " + string.Join(", ", _names);
        throw new KeyNotFoundException($"No DivCon program is named '{name}' ({known}). Add it under Programs in the options.");
    }

    /// <summary>The program registered under <paramref name="name"/>, if any.</summary>
    /// <param name="name">Its name.</param>
    /// <param name="program">The program, or null.</param>
    /// <returns>Whether there is one.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    public bool TryGet(string name, [NotNullWhen(true)] out ProgramTaskScheduler? program)
    {
        ArgumentNullException.ThrowIfNull(name);
        EnsureStarted();
        return _programs.TryGetValue(name, out program);
    }

    /// <summary>
    /// Closes every program and stops the scheduler, waiting up to <see cref="MultiprogramScheduler.DefaultShutdownTimeout"/>
    /// (the host's stop has normally drained it already). Never throws; a second call does nothing.
    /// </summary>
    public void Dispose()
    {
        MultiprogramScheduler? scheduler;
        lock (_gate)
        {
            scheduler = _scheduler;
            _disposed = true;
        }

        scheduler?.Dispose();
    }

    /// <summary>Closes every program and completes when all have drained and the workers have exited, or when
    /// <paramref name="cancellationToken"/> is cancelled (the drain goes on).</summary>
    /// <param name="cancellationToken">Ends the wait.</param>
    /// <returns>The wait; nothing to wait for when the scheduler was never created.</returns>
    internal Task ShutdownAsync(CancellationToken cancellationToken)
    {
        MultiprogramScheduler? scheduler;
        lock (_gate)
        {
            scheduler = _scheduler;
        }

        return scheduler is null ? Task.CompletedTask : scheduler.ShutdownAsync(cancellationToken);
    }

    private MultiprogramScheduler EnsureStarted()
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (_scheduler is { } started)
            {
                return started;
            }

            DivConMultiprogramOptions options = _options.Value; // Validated here too (OptionsValidationException).
            MultiprogramScheduler scheduler;
            try
            {
                scheduler = new MultiprogramScheduler(new MultiprogramSchedulerOptions
                {
                    WorkerCount = options.WorkerCount,
                    Pin = options.Pin,
                    CpuIds = options.CpuIds.Count > 0 ? [.. options.CpuIds] : null,
                    Policy = DivConPolicies.Create(options.Policy),
                    RebalanceInterval = options.RebalanceInterval,
                    EnableLending = options.EnableLending,
                    MoveHandoverThreshold = options.MoveHandoverThreshold,
                    HistoryCapacity = options.HistoryCapacity,
                });
            }
            catch (Exception e) when (e is ArgumentException or PlatformNotSupportedException or DivCon.Schedulers.Platform.ThreadAffinityException)
            {
                throw new InvalidOperationException($"The DivCon multiprogram scheduler could not start with these options: {e.Message}", e);
            }

            var programs = new Dictionary<string, ProgramTaskScheduler>(StringComparer.Ordinal);
            try
            {
                foreach (KeyValuePair<string, DivConProgramOptions> program in options.Programs.OrderBy(p => p.Key, StringComparer.Ordinal))
                {
                    programs.Add(program.Key, scheduler.Register(program.Key, program.Value.Speedup));
                }
            }
            catch
            {
                scheduler.Dispose();
                throw;
            }

            _programs = programs;
            _names = [.. programs.Keys];
            _scheduler = scheduler;
            return scheduler;
        }
    }
}
