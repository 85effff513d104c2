using System.Diagnostics.CodeAnalysis;
using System.Text.Json;

namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>
/// Scalability profiles keyed by program name and problem size, kept in memory and saved to / loaded from a JSON
/// file, so that a workload measured once can be scheduled by scalability in later runs.
/// </summary>
/// <remarks>
/// <para>
/// File format: <c>{ "version": 1, "profiles": [ { "programName", "problemSize", "sequentialSeconds",
/// "parallelTimes": [ { "cores", "seconds", "speedup" } ], "machine", "measuredAt" } ] }</c>. The speedups are
/// derived data, written for people reading the file, and recomputed on load.
/// </para>
/// <para>
/// A missing file loads as an empty store. A file that is not valid JSON of that shape, or whose data breaks the
/// profile rules, throws <see cref="InvalidDataException"/> naming the file. Saving writes a temporary file beside
/// the target and renames it over the target, so a crash never leaves half a file. Keys compare ordinally.
/// Not thread-safe.
/// </para>
/// </remarks>
public sealed class ScalabilityProfileStore
{
    private readonly Dictionary<(string Program, string Size), ScalabilityProfile> _profiles = [];

    /// <summary>The stored profiles, in insertion order of their keys.</summary>
    public IReadOnlyCollection<ScalabilityProfile> Profiles => _profiles.Values;

    /// <summary>The number of stored profiles.</summary>
    public int Count => _profiles.Count;

    /// <summary>Loads a store from a file; a missing file gives an empty store.</summary>
    /// <param name="path">The file.</param>
    /// <returns>The store.</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    /// <exception cref="InvalidDataException">The file is not a valid profile store; the message names it.</exception>
    public static ScalabilityProfileStore Load(string path)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        var store = new ScalabilityProfileStore();
        if (!File.Exists(path))
        {
            return store;
        }

        ProfileStoreDocument? document;
        try
        {
            using var stream = File.OpenRead(path);
            document = JsonSerializer.Deserialize(stream, ProfileJsonContext.Default.ProfileStoreDocument);
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"Scalability profile store '{path}' is not valid JSON: {e.Message}", e);
        }

        if (document is null)
        {
            throw new InvalidDataException($"Scalability profile store '{path}' holds null instead of a store.");
        }

        if (document.Version != 1)
        {
            throw new InvalidDataException($"Scalability profile store '{path}' has version {document.Version}; only 1 is known.");
        }

        for (int i = 0; i < document.Profiles.Count; i++)
        {
            var d = document.Profiles[i];
            try
            {
                if (d is null)
                {
                    throw new ArgumentException("The profile is null.");
                }

                store.Set(ScalabilityProfile.FromTimings(
                    d.ProgramName!,
                    d.ProblemSize!,
                    ToTime(d.SequentialSeconds),
                    (d.ParallelTimes ?? []).Select(t => new CoreTiming(t.Cores, ToTime(t.Seconds))),
                    d.Machine ?? string.Empty,
                    d.MeasuredAt));
            }
            catch (ArgumentException e)
            {
                throw new InvalidDataException($"Scalability profile store '{path}', profile {i}: {e.Message}", e);
            }
        }

        return store;
    }

    /// <summary>Saves the store to a file, replacing it atomically.</summary>
    /// <param name="path">The file; its directory is created when missing.</param>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    public void Save(string path)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        var document = new ProfileStoreDocument
        {
            Profiles = [.. _profiles.Values.Select(p => new ProfileDocument
            {
                ProgramName = p.ProgramName,
                ProblemSize = p.ProblemSize,
                SequentialSeconds = p.SequentialTime.TotalSeconds,
                ParallelTimes = [.. p.ParallelTimes.Select(t => new TimingDocument
                {
                    Cores = t.Cores,
                    Seconds = t.Time.TotalSeconds,
                    Speedup = p.Speedups.SpeedupAt(t.Cores),
                })],
                Machine = p.Machine,
                MeasuredAt = p.MeasuredAt,
            })],
        };

        string full = Path.GetFullPath(path);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        string temporary = full + ".tmp";
        using (var stream = File.Create(temporary))
        {
            JsonSerializer.Serialize(stream, document, ProfileJsonContext.Default.ProfileStoreDocument);
        }

        File.Move(temporary, full, overwrite: true);
    }

    /// <summary>Adds a profile, replacing any with the same program name and problem size.</summary>
    /// <param name="profile">The profile.</param>
    /// <exception cref="ArgumentNullException"><paramref name="profile"/> is null.</exception>
    public void Set(ScalabilityProfile profile)
    {
        ArgumentNullException.ThrowIfNull(profile);
        _profiles[(profile.ProgramName, profile.ProblemSize)] = profile;
    }

    /// <summary>Looks a profile up.</summary>
    /// <param name="programName">The program's name.</param>
    /// <param name="problemSize">The problem size.</param>
    /// <param name="profile">The profile, when found.</param>
    /// <returns>Whether it was found.</returns>
    /// <exception cref="ArgumentNullException">A key is null.</exception>
    public bool TryGet(string programName, string problemSize, [MaybeNullWhen(false)] out ScalabilityProfile profile)
    {
        ArgumentNullException.ThrowIfNull(programName);
        ArgumentNullException.ThrowIfNull(problemSize);
        return _profiles.TryGetValue((programName, problemSize), out profile);
    }

    /// <summary>Removes a profile.</summary>
    /// <param name="programName">The program's name.</param>
    /// <param name="problemSize">The problem size.</param>
    /// <returns>Whether one was removed.</returns>
    public bool Remove(string programName, string problemSize)
    {
        ArgumentNullException.ThrowIfNull(programName);
        ArgumentNullException.ThrowIfNull(problemSize);
        return _profiles.Remove((programName, problemSize));
    }

    private static TimeSpan ToTime(double seconds) =>
        double.IsFinite(seconds) && Math.Abs(seconds) < TimeSpan.MaxValue.TotalSeconds
            ? TimeSpan.FromSeconds(seconds)
            : throw new ArgumentException($"Time {seconds} s is not a finite number of seconds.", nameof(seconds));
}
