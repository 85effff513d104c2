namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// Which machine-wide arbitration domain a <see cref="MultiprogramScheduler"/> joins: processes that join the same
/// domain share the machine's CPUs, each applying its share with its own workers (see
/// <see cref="MultiprogramSchedulerOptions.MachineDomain"/>).
/// </summary>
/// <remarks>
/// Joining is best effort: when the domain cannot be reached (no coordinator, a version mismatch, not permitted),
/// the scheduler runs exactly as without a domain, its local policy deciding on all its own CPUs, and says so in a
/// trace line. The environment variable <c>DIVCON_DOMAIN</c> turns joining on without code changes
/// (<see cref="FromEnvironment()"/>).
/// </remarks>
public sealed record MachineDomainOptions
{
    /// <summary>The environment variable read by <see cref="FromEnvironment()"/>: <c>DIVCON_DOMAIN</c>.</summary>
    public const string EnvironmentVariable = "DIVCON_DOMAIN";

    /// <summary>The name of the domain joined when none is given: <c>default</c>.</summary>
    public const string DefaultName = "default";

    /// <summary>
    /// The domain's name (default <see cref="DefaultName"/>): processes with the same name and
    /// <see cref="Directory"/> share CPUs. Letters, digits, '-', '_' and '.' only (not '.' or '..').
    /// </summary>
    /// <exception cref="ArgumentException">The name is empty or has other characters (on init).</exception>
    public string Name
    {
        get;
        init => field = IsValidName(value)
            ? value
            : throw new ArgumentException($"Domain name '{value}' must be 1-64 letters, digits, '-', '_' or '.'.", nameof(Name));
    } = DefaultName;

    /// <summary>
    /// The directory holding the domain's rendezvous (null: a per-user default chosen by the domain client, for
    /// example under <c>XDG_RUNTIME_DIR</c>). Containers on one node join through a shared volume mounted here.
    /// </summary>
    public string? Directory { get; init; }

    /// <summary>
    /// The operating system group whose members may join besides the domain's own user (null: the user only).
    /// </summary>
    public string? AllowedGroup { get; init; }

    /// <summary>
    /// Whether CPUs are lent across the domain's processes at task grain (default false): while the process holding a
    /// CPU has nothing to run there, a process with queued tasks runs them on it, one task at a time, and leaves at
    /// its next task boundary once the holder has work again. Processes say whether they are idle on each CPU in a
    /// small file in the domain's directory; only processes with this option on lend and borrow. Linux, .NET 8 or
    /// later; elsewhere it does nothing.
    /// </summary>
    public bool Guests { get; init; }

    /// <summary>
    /// How often a joined process's estimator samples its programs between decisions (default 25 ms), in place of
    /// <see cref="MultiprogramSchedulerOptions.EstimatorSampleInterval"/> when that is shorter; the shorter local
    /// interval still applies while an early decision waits for a new program's first samples
    /// (<see cref="Policies.LearnedScalabilityPolicy.DecidesEarly"/>). Every joined process samples on its own
    /// thread, so n processes wake n threads per interval where one process holding the same programs wakes one; on a
    /// loaded machine each wake-up preempts a worker. Each sample also reports to the domain which programs became
    /// busy or idle, so a longer interval delays that report by as much. <see cref="TimeSpan.Zero"/> or
    /// <see cref="Timeout.InfiniteTimeSpan"/>: only at decisions.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The interval is negative and not infinite (on init).</exception>
    public TimeSpan EstimatorSampleInterval
    {
        get;
        init => field = value >= TimeSpan.Zero || value == Timeout.InfiniteTimeSpan
            ? value
            : throw new ArgumentOutOfRangeException(nameof(EstimatorSampleInterval), value, "EstimatorSampleInterval must be positive, zero or infinite.");
    } = DefaultEstimatorSampleInterval;

    /// <summary>The default <see cref="EstimatorSampleInterval"/>: 25 ms.</summary>
    public static readonly TimeSpan DefaultEstimatorSampleInterval = TimeSpan.FromMilliseconds(25);

    /// <summary>
    /// The domain named by <c>DIVCON_DOMAIN</c>: unset, empty, <c>0</c>, <c>false</c> or <c>off</c>: none (null);
    /// <c>1</c>, <c>true</c> or <c>on</c>: the default domain; an absolute path: the default name in that directory;
    /// anything else: a domain of that name.
    /// </summary>
    /// <returns>The domain to join, or null.</returns>
    /// <exception cref="ArgumentException">The variable names an invalid domain (the message names the variable and value).</exception>
    public static MachineDomainOptions? FromEnvironment() => Parse(Environment.GetEnvironmentVariable(EnvironmentVariable));

    /// <summary>Parses a value of <c>DIVCON_DOMAIN</c> (see <see cref="FromEnvironment()"/>).</summary>
    /// <param name="value">The value; null = unset.</param>
    /// <returns>The domain to join, or null.</returns>
    /// <exception cref="ArgumentException">The value names an invalid domain.</exception>
    public static MachineDomainOptions? Parse(string? value)
    {
        string text = value?.Trim() ?? string.Empty;
        switch (text.ToUpperInvariant())
        {
            case "":
            case "0":
            case "FALSE":
            case "OFF":
                return null;
            case "1":
            case "TRUE":
            case "ON":
                return new MachineDomainOptions();
        }

        if (Path.IsPathRooted(text))
        {
            return new MachineDomainOptions { Directory = text };
        }

        return IsValidName(text)
            ? new MachineDomainOptions { Name = text }
            : throw new ArgumentException(
                $"{EnvironmentVariable}='{value}' is neither 0/1, an absolute directory nor a domain name (1-64 letters, digits, '-', '_' or '.').",
                nameof(value));
    }

    /// <inheritdoc />
    public override string ToString() =>
        (Directory is null ? $"domain {Name}" : $"domain {Name} in {Directory}") + (Guests ? " with guests" : string.Empty);

    private static bool IsValidName(string? name) =>
        name is { Length: > 0 and <= 64 } && name is not "." and not ".."
        && name.All(c => c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '-' or '_' or '.');
}
