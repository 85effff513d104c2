namespace DivCon.Harness.Schemes;

/// <summary>
/// Every scheme the CLI can run, by name (case-insensitive). Adding a scheme: write its class and add one line here.
/// </summary>
/// <remarks>
/// The "isolated" scheme (<see cref="IsolatedScheme"/>) is not listed: it is the single-program baseline every
/// experiment uses for C_SP, not a multiprogramming scheme.
/// </remarks>
public static class SchemeRegistry
{
    private static readonly SchemeDefinition[] s_schemes =
    [
        new(OversubscribedFreeScheme.SchemeName, "one unpinned work-stealing scheduler per program, a worker per CPU each", false, static (w, c) => new OversubscribedFreeScheme(w, c)),
        new(OversubscribedPinnedScheme.SchemeName, "one affinity scheduler per program, pinned to every CPU", false, static (w, c) => new OversubscribedPinnedScheme(w, c)),
        new(SharedScheme.SchemeName, "one affinity scheduler (a pinned worker per CPU) shared by all programs", false, static (w, c) => new SharedScheme(w, c)),
        new(DefaultScheme.SchemeName, "the .NET thread pool (TaskScheduler.Default) for all programs", false, static (w, c) => new DefaultScheme(w, c)),
        new(StaticScheme.SchemeName, "multiprogram scheduler, cores proportional to scalability, fixed at arrival", true, static (w, c) => new StaticScheme(w, c)),
        new(DynamicScheme.SchemeName, "multiprogram scheduler, proportional shares repartitioned by task availability every interval", true, static (w, c) => new DynamicScheme(w, c)),
        new(HillClimbingScheme.SchemeName, "multiprogram scheduler, hill climbing on ANTT predicted from speedup tables", true, static (w, c) => new HillClimbingScheme(w, c)),
    ];

    /// <summary>Every scheme, in a fixed order.</summary>
    public static IReadOnlyList<SchemeDefinition> Schemes => s_schemes;

    /// <summary>The scheme names, in registry order.</summary>
    public static IReadOnlyList<string> Names { get; } = Array.ConvertAll(s_schemes, static s => s.Name);

    /// <summary>Finds a scheme by name (case-insensitive).</summary>
    /// <param name="name">The name.</param>
    /// <param name="scheme">The scheme, when found.</param>
    /// <returns>Whether it was found.</returns>
    public static bool TryFind(string? name, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out SchemeDefinition? scheme)
    {
        scheme = s_schemes.FirstOrDefault(s => string.Equals(s.Name, name?.Trim(), StringComparison.OrdinalIgnoreCase));
        return scheme is not null;
    }

    /// <summary>Finds a scheme by name.</summary>
    /// <param name="name">The name.</param>
    /// <returns>The scheme.</returns>
    /// <exception cref="ArgumentException">Unknown name (the message lists the known ones).</exception>
    public static SchemeDefinition Find(string name) =>
        TryFind(name, out SchemeDefinition? scheme)
            ? scheme
            : throw new ArgumentException($"Unknown scheme '{name}'. Known: {string.Join(", ", Names)}.", nameof(name));
}
