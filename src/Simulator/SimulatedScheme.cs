namespace DivCon.Simulator;

/// <summary>
/// The scheduling schemes the simulator models; their names (<see cref="SimulatedSchemes.Name"/>) are those of the
/// harness's real schemes, so simulated and measured results line up.
/// </summary>
public enum SimulatedScheme
{
    /// <summary>One work-stealing scheduler per program with a thread per core, threads free to run on any core (OS time sharing).</summary>
    OversubscribedFree = 0,

    /// <summary>As <see cref="OversubscribedFree"/>, but thread i of every program is pinned to core i.</summary>
    OversubscribedPinned = 1,

    /// <summary>One work-stealing scheduler (a pinned worker per core) shared by all programs.</summary>
    Shared = 2,

    /// <summary>
    /// The .NET thread pool for all programs: a shared work-stealing pool of unpinned threads whose number follows the
    /// pool's thread-count goal (hill climbing's wave, starvation injection), where a program's next run starts on the
    /// thread that finished its previous one.
    /// </summary>
    Default = 3,

    /// <summary>Partitioning: cores in proportion to speedup, decided at arrival (<c>ProportionalPolicy</c>).</summary>
    Static = 4,

    /// <summary>
    /// Partitioning, the default policy: homes follow the scalability each program shows while it runs
    /// (<c>LearnedScalabilityPolicy</c> over <c>ScalabilityEstimator</c>), with no profile.
    /// </summary>
    Dynamic = 5,

    /// <summary>Partitioning: hill climbing on predicted ANTT every interval (<c>HillClimbingPolicy</c>).</summary>
    HillClimbing = 6,

    /// <summary>Partitioning: repartitioned by task availability every interval (<c>TaskAvailabilityPolicy</c>, the thesis's dynamic policy).</summary>
    TaskAvailability = 7,
}

/// <summary>Names and properties of <see cref="SimulatedScheme"/> values.</summary>
public static class SimulatedSchemes
{
    private static readonly string[] s_names =
        ["oversubscribed-free", "oversubscribed-pinned", "shared", "default", "static", "dynamic", "hill-climbing", "task-availability"];

    /// <summary>Every scheme, in the harness's registry order.</summary>
    public static IReadOnlyList<SimulatedScheme> All { get; } = Enum.GetValues<SimulatedScheme>();

    /// <summary>The scheme's name as the harness spells it (e.g. <c>oversubscribed-free</c>).</summary>
    /// <param name="scheme">The scheme.</param>
    /// <returns>The name.</returns>
    /// <exception cref="ArgumentOutOfRangeException">The value is not defined.</exception>
    public static string Name(this SimulatedScheme scheme) =>
        (uint)scheme < (uint)s_names.Length
            ? s_names[(int)scheme]
            : throw new ArgumentOutOfRangeException(nameof(scheme), scheme, "Not a defined SimulatedScheme.");

    /// <summary>Whether the scheme partitions the cores among programs (multiprogram scheduler with a policy).</summary>
    /// <param name="scheme">The scheme.</param>
    /// <returns>True for static, dynamic, hill-climbing and task-availability.</returns>
    public static bool Partitions(this SimulatedScheme scheme) => scheme >= SimulatedScheme.Static;

    /// <summary>Finds a scheme by its name (case-insensitive).</summary>
    /// <param name="name">The name.</param>
    /// <returns>The scheme.</returns>
    /// <exception cref="ArgumentException">Unknown name; the message lists the known ones.</exception>
    public static SimulatedScheme Parse(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        int index = Array.FindIndex(s_names, n => string.Equals(n, name.Trim(), StringComparison.OrdinalIgnoreCase));
        return index >= 0
            ? (SimulatedScheme)index
            : throw new ArgumentException($"Unknown scheme '{name}'. Known: {string.Join(", ", s_names)}.", nameof(name));
    }
}
