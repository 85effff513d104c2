using System.Diagnostics.CodeAnalysis;
using System.Text.Json;

namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>
/// Scalability profiles keyed by program name and problem size, kept in memory and read from / written to JSON, so
/// that a workload measured once can be scheduled by scalability in later runs. No file I/O here: files (atomic
/// replacement, locking, merging) are <c>Profiling.ScalabilityProfileFile</c>'s.
/// </summary>
/// <remarks>
/// <para>
/// File format: <c>{ "version": 1, "profiles": [ { "programName", "problemSize", "sequentialSeconds",
/// "parallelTimes": [ { "cores", "seconds", "speedup" } ], "machine", "measuredAt" } ] }</c>. The speedups are
/// derived data, written for people reading the file, and recomputed on load.
/// </para>
/// <para>
/// JSON that is not of that shape (including a null list or a null entry), or whose data breaks the profile rules,
/// throws <see cref="InvalidDataException"/> naming its source. Keys compare ordinally. Not thread-safe.
/// </para>
/// </remarks>
public sealed class ScalabilityProfileStore
{
    private readonly Dictionary<(string Program, string Size), ScalabilityProfile> _profiles = [];

    /// <summary>The stored profiles, in insertion order of their keys.</summary>
    public IReadOnlyCollection<ScalabilityProfile> Profiles => _profiles.Values;

    /// <summary>The number of stored profiles.</summary>
    public int Count => _profiles.Count;

    /// <summary>Reads a store from its JSON form (see the remarks for the format).</summary>
    /// <param name="utf8Json">The JSON, UTF-8.</param>
    /// <param name="source">What the JSON is (a file name), for messages.</param>
    /// <returns>The store.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="InvalidDataException">The JSON is not a valid profile store; the message names
    /// <paramref name="source"/> and, where it can, the profile and timing at fault.</exception>
    public static ScalabilityProfileStore Read(Stream utf8Json, string source)
    {
        ArgumentNullException.ThrowIfNull(utf8Json);
        ArgumentNullException.ThrowIfNull(source);
        ProfileStoreDocument? document;
        try
        {
            document = JsonSerializer.Deserialize(utf8Json, ProfileJsonContext.Default.ProfileStoreDocument);
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"Scalability profile store '{source}' is not valid JSON: {e.Message}", e);
        }

        if (document is null)
        {
            throw new InvalidDataException($"Scalability profile store '{source}' holds null instead of a store.");
        }

        if (document.Version != 1)
        {
            throw new InvalidDataException($"Scalability profile store '{source}' has version {document.Version}; only 1 is known.");
        }

        // The serializer leaves a JSON null where the document says null, whatever the property's initial value.
        if (document.Profiles is null)
        {
            throw new InvalidDataException($"Scalability profile store '{source}': \"profiles\" is null; it must be a list (possibly empty).");
        }

        var store = new ScalabilityProfileStore();
        for (int i = 0; i < document.Profiles.Count; i++)
        {
            var d = document.Profiles[i];
            try
            {
                if (d is null)
                {
                    throw new ArgumentException("The profile is null.");
                }

                if (d.ParallelTimes is null)
                {
                    throw new ArgumentException("\"parallelTimes\" is null; it must list at least one timing.");
                }

                int nullTiming = d.ParallelTimes.FindIndex(t => t is null);
                if (nullTiming >= 0)
                {
                    throw new ArgumentException($"Timing {nullTiming} of \"parallelTimes\" is null.");
                }

                store.Set(ScalabilityProfile.FromTimings(
                    d.ProgramName!,
                    d.ProblemSize!,
                    ToTime(d.SequentialSeconds),
                    d.ParallelTimes.Select(t => new CoreTiming(t.Cores, ToTime(t.Seconds))),
                    d.Machine ?? string.Empty,
                    d.MeasuredAt));
            }
            catch (ArgumentException e)
            {
                throw new InvalidDataException($"Scalability profile store '{source}', profile {i}: {e.Message}", e);
            }
        }

        return store;
    }

    /// <summary>Writes the store's JSON form.</summary>
    /// <param name="utf8Json">Where to write (UTF-8).</param>
    /// <exception cref="ArgumentNullException"><paramref name="utf8Json"/> is null.</exception>
    public void Write(Stream utf8Json)
    {
        ArgumentNullException.ThrowIfNull(utf8Json);
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
        JsonSerializer.Serialize(utf8Json, document, ProfileJsonContext.Default.ProfileStoreDocument);
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
