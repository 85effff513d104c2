using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using DivCon.Harness.Machine;
using DivCon.Harness.Measurement;
using DivCon.Harness.Workload;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram.Profiles;
using DivCon.Schedulers.Multiprogram.Profiling;

namespace DivCon.Harness.Cli;

/// <summary>
/// Finds each workload program's scalability profile for the partitioning schemes and the oracle.
/// </summary>
/// <remarks>
/// <para><b>Where profiles come from.</b> The store file (a <see cref="ScalabilityProfileStore"/> JSON, by default
/// <c>&lt;out&gt;/profiles.json</c>, written by the <c>scalability</c> command) is looked up by program name and
/// problem size. A missing profile is, by <see cref="ProfileFallback"/>: measured quickly with
/// <see cref="QuickProfiler"/> and added to the store (so the next run reuses it; the <c>scalability</c> command
/// replaces it with a proper one; a quick profile is recognisable by its two core counts), or taken as speedup 1
/// with a warning.</para>
/// <para>Profiles are resolved before any scheme runs, on an idle machine, and their measurement is not part of
/// any scheme's timings (as in the thesis, profiling is a one-off cost).</para>
/// </remarks>
public sealed class ProfileResolver
{
    private readonly string _storePath;
    private readonly string? _referencePath;
    private readonly ProfileFallback _fallback;
    private readonly HarnessMachine _machine;
    private readonly int _workers;

    /// <summary>Creates a resolver.</summary>
    /// <param name="storePath">The profile store file (need not exist).</param>
    /// <param name="fallback">What to do for a program without a profile.</param>
    /// <param name="machine">The machine.</param>
    /// <param name="workers">The run's worker count.</param>
    /// <param name="referencePath">A store only read, for programs <paramref name="storePath"/> lacks (the committed
    /// reference profiles during an ad-hoc run); null for none.</param>
    public ProfileResolver(string storePath, ProfileFallback fallback, HarnessMachine machine, int workers, string? referencePath = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(storePath);
        ArgumentNullException.ThrowIfNull(machine);
        _storePath = storePath;
        _referencePath = referencePath;
        _fallback = fallback;
        _machine = machine;
        _workers = workers;
    }

    /// <summary>The profile of every member (null where none was found and the fallback is <see cref="ProfileFallback.Unit"/>).</summary>
    /// <param name="workload">The programs.</param>
    /// <param name="measureMissing">Whether the fallback applies; false looks profiles up only (for the oracle).</param>
    /// <param name="progress">Progress of quick measurements.</param>
    /// <param name="warn">Receives warnings (missing profiles, profiles measured with fewer cores).</param>
    /// <param name="cancellationToken">Cancels measurements.</param>
    /// <returns>Profile by member name.</returns>
    /// <exception cref="InvalidDataException">A store file exists but is not a valid store.</exception>
    /// <exception cref="IOException">The store cannot be written (checked before measuring).</exception>
    public async Task<IReadOnlyDictionary<string, ScalabilityProfile?>> ResolveAsync(
        IReadOnlyList<WorkloadProgram> workload, bool measureMissing, IProgressSink progress, Action<string> warn, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workload);
        ArgumentNullException.ThrowIfNull(progress);
        ArgumentNullException.ThrowIfNull(warn);
        ScalabilityProfileStore store = ScalabilityProfileFile.Load(_storePath);
        ScalabilityProfileStore? reference = _referencePath is not null && !SamePath(_referencePath, _storePath) ? ScalabilityProfileFile.Load(_referencePath) : null;
        bool Find(WorkloadProgram member, [NotNullWhen(true)] out ScalabilityProfile? found) =>
            store.TryGet(member.Program.Name, member.ProblemSizeKey, out found) || (reference?.TryGet(member.Program.Name, member.ProblemSizeKey, out found) ?? false);

        if (measureMissing && _fallback == ProfileFallback.Measure && workload.Any(m => !Find(m, out _)))
        {
            // Found now, not after minutes of measuring: a store that cannot be written.
            ScalabilityProfileFile.EnsureWritable(_storePath);
        }

        var result = new Dictionary<string, ScalabilityProfile?>(StringComparer.Ordinal);
        var measured = new List<ScalabilityProfile>();
        foreach (WorkloadProgram member in workload)
        {
            if (!Find(member, out ScalabilityProfile? profile) && measureMissing)
            {
                if (_fallback == ProfileFallback.Measure)
                {
                    const string Phase = "quick scalability profile";
                    progress.BeginPhase(Phase, 1);
                    profile = await QuickProfiler.MeasureAsync(member.Program, _machine, _workers, cancellationToken).ConfigureAwait(false);
                    progress.Report(Phase, 1, string.Create(CultureInfo.InvariantCulture, $"{member.Program.Name} (size {member.ProblemSizeKey}): {profile.Speedups}"));
                    progress.EndPhase(Phase);
                    store.Set(profile);
                    measured.Add(profile);
                }
                else
                {
                    warn($"No scalability profile for {member.Program.Name} size {member.ProblemSizeKey} in {_storePath}{(reference is null ? string.Empty : $" or {_referencePath}")}: assuming speedup 1 (run the scalability command to measure one).");
                }
            }

            if (profile is not null && profile.Speedups.MaxCores < _workers)
            {
                warn($"The profile of {member.Program.Name} stops at {profile.Speedups.MaxCores} cores; the run uses {_workers} (speedup taken as flat beyond).");
            }

            result[member.Name] = profile;
        }

        if (measured.Count > 0)
        {
            // Merged under the store's lock: profiles another run stored meanwhile are kept.
            ScalabilityProfileFile.Merge(_storePath, measured);
            warn($"Quick scalability profiles of {string.Join(", ", measured.Select(p => p.ProgramName))} stored in {Path.GetFullPath(_storePath)}.");
        }

        return result;
    }

    private static bool SamePath(string a, string b) => string.Equals(Path.GetFullPath(a), Path.GetFullPath(b), StringComparison.Ordinal);

    /// <summary>The oracle's speedup tables, one per member, or null unless every member has a profile.</summary>
    /// <param name="profiles">Profile by member name.</param>
    /// <returns>The tables, named by member.</returns>
    public static IReadOnlyList<SpeedupTable>? OracleTables(IReadOnlyDictionary<string, ScalabilityProfile?> profiles)
    {
        ArgumentNullException.ThrowIfNull(profiles);
        if (profiles.Count == 0 || profiles.Values.Any(p => p is null))
        {
            return null;
        }

        return profiles.Select(kv => new SpeedupTable(kv.Key, kv.Value!.Speedups.Points.ToDictionary(p => p.Cores, p => p.Speedup))).ToArray();
    }
}

/// <summary>What a partitioning scheme does for a program without a stored scalability profile.</summary>
public enum ProfileFallback
{
    /// <summary>Measure a quick profile (sequential, 1 core, all cores; one run each) and store it.</summary>
    Measure = 0,

    /// <summary>Assume speedup 1 (no scaling) and warn.</summary>
    Unit = 1,
}

/// <summary>
/// Measures a quick scalability profile when none is stored, with the schedulers' <see cref="ScalabilityProfiler"/>:
/// the mean of <see cref="Repetitions"/> runs (after a warm-up) on 1 and on all workers of the run, pinned, and a
/// sequential run. Good enough to split cores in proportion; the <c>scalability</c> command measures proper profiles
/// (every core count, more runs, the sequential baseline on a pinned core).
/// </summary>
public static class QuickProfiler
{
    /// <summary>Timed runs per configuration.</summary>
    public const int Repetitions = 2;

    /// <summary>Measures the profile of one program.</summary>
    /// <param name="program">The program (not running).</param>
    /// <param name="machine">The machine.</param>
    /// <param name="workers">The run's worker count.</param>
    /// <param name="cancellationToken">Cancels the measurement.</param>
    /// <returns>The profile, keyed by the program's name and size.</returns>
    public static Task<ScalabilityProfile> MeasureAsync(BenchmarkProgram program, HarnessMachine machine, int workers, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(program);
        ArgumentNullException.ThrowIfNull(machine);
        var profiler = new ScalabilityProfiler(machine.Topology.Subset(machine.CpusFor(workers)), Repetitions);
        return profiler.MeasureAsync(
            program.Name,
            Key(program),
            _ =>
            {
                program.RunSequential();
                return Task.CompletedTask;
            },
            async (scheduler, ct) =>
            {
                // ForceYielding, not false: the profiler disposes the scheduler after the last run, and a scheduler cannot
                // wait for its own worker, which is the thread that completes the run; a forced yield without the
                // captured context always continues on a thread-pool thread (Task.Yield would post to the worker's
                // own TaskScheduler.Current).
                await program.RunParallelAsync(scheduler, cancellationToken: ct).ConfigureAwait(ConfigureAwaitOptions.ForceYielding);
            },
            workers > 1 ? [1, workers] : [1],
            cancellationToken);
    }

    /// <summary>The store key of a program's size.</summary>
    /// <param name="program">The program.</param>
    /// <returns>Its problem size as invariant text.</returns>
    public static string Key(BenchmarkProgram program)
    {
        ArgumentNullException.ThrowIfNull(program);
        return program.ProblemSize.ToString(System.Globalization.CultureInfo.InvariantCulture);
    }
}
