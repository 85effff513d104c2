namespace DivCon.Harness.Workload;

/// <summary>How the <c>processes</c> experiment runs each program of a mix.</summary>
public enum ProcessMode
{
    /// <summary>Each program in its own process on its default scheduler (the .NET thread pool), each believing it owns every CPU.</summary>
    Independent,

    /// <summary>Each program in its own process on a multiprogram scheduler joined to one machine domain.</summary>
    Joined,

    /// <summary>Every program in this process on one multiprogram scheduler (the cyclic test's dynamic scheme).</summary>
    OneProcess,

    /// <summary>As <see cref="Joined"/>, lending idle CPUs across the processes at task grain (the domain's guests).</summary>
    JoinedGuests,

    /// <summary>
    /// As <see cref="Joined"/>, each process sampling its estimator at the in-process interval (10 ms) instead of the
    /// domain's longer one (<see cref="DivCon.Schedulers.Multiprogram.MachineDomainOptions.EstimatorSampleInterval"/>).
    /// </summary>
    JoinedLocalSampling,
}

/// <summary>The command-line names of <see cref="ProcessMode"/>.</summary>
public static class ProcessModes
{
    /// <summary>The default modes' names, in the default order.</summary>
    public static IReadOnlyList<string> Names { get; } = ["independent", "joined", "one-process"];

    /// <summary>Every mode's name (the defaults, then the opt-in ones), indexed by <see cref="ProcessMode"/>.</summary>
    public static IReadOnlyList<string> All { get; } = ["independent", "joined", "one-process", "joined-guests", "joined-local-sampling"];

    /// <summary>The mode of a name.</summary>
    /// <param name="name">A name of <see cref="Names"/> (any case).</param>
    /// <returns>The mode.</returns>
    /// <exception cref="ArgumentException">Unknown name.</exception>
    public static ProcessMode Parse(string name) => name?.Trim().ToUpperInvariant() switch
    {
        "INDEPENDENT" => ProcessMode.Independent,
        "JOINED" => ProcessMode.Joined,
        "ONE-PROCESS" => ProcessMode.OneProcess,
        "JOINED-GUESTS" => ProcessMode.JoinedGuests,
        "JOINED-LOCAL-SAMPLING" => ProcessMode.JoinedLocalSampling,
        _ => throw new ArgumentException($"Unknown mode '{name}'. Known: {string.Join(", ", All)}.", nameof(name)),
    };

    /// <summary>The name of a mode.</summary>
    /// <param name="mode">The mode.</param>
    /// <returns>Its name.</returns>
    public static string NameOf(ProcessMode mode) => All[(int)mode];

    /// <summary>Whether the mode's children join a machine domain.</summary>
    /// <param name="mode">The mode.</param>
    /// <returns>Whether they do.</returns>
    public static bool IsJoined(ProcessMode mode) => mode is ProcessMode.Joined or ProcessMode.JoinedGuests or ProcessMode.JoinedLocalSampling;
}
