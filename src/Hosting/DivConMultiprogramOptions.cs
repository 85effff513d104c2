using DivCon.Schedulers.Multiprogram;

namespace DivCon.Hosting;

/// <summary>
/// The multiprogram scheduler of a host, as bound from configuration (by default the section
/// <see cref="SectionName"/>) or set in code: its workers, policy and rebalancing, and the programs to register by
/// name. Checked when the host starts; a bad value stops the start with an <c>OptionsValidationException</c> naming
/// the setting and the value.
/// </summary>
/// <example>
/// <code>
/// "DivCon": {
///   "Multiprogram": {
///     "WorkerCount": 4, "Pin": false, "Policy": "equal", "RebalanceInterval": "00:00:00.050",
///     "Programs": { "orders": { "Speedup": 3.5 }, "reports": { "Speedup": 1.8 } }
///   }
/// }
/// </code>
/// </example>
public sealed class DivConMultiprogramOptions
{
    /// <summary>The configuration section the parameterless binding reads: <c>DivCon:Multiprogram</c>.</summary>
    public const string SectionName = "DivCon:Multiprogram";

    /// <summary>How many workers; null = one per CPU the process may use (or per id of <see cref="CpuIds"/>).</summary>
    public int? WorkerCount { get; set; }

    /// <summary>Whether each worker is pinned to its CPU (default <see langword="true"/>; Linux and Windows only).</summary>
    public bool Pin { get; set; } = true;

    /// <summary>The CPUs to pin one worker each to, in worker order (pinned only); empty = the first CPUs.</summary>
    public IList<int> CpuIds { get; } = [];

    /// <summary>
    /// The allocation policy by name: <c>learned-scalability</c> (default), <c>task-availability</c>, <c>equal</c>, <c>proportional</c>,
    /// <c>hill-climbing-antt</c> or <c>hill-climbing-stp</c> (case-insensitive).
    /// </summary>
    public string Policy { get; set; } = DivConPolicies.Learned;

    /// <summary>The period of the interval rebalance (default 100 ms); zero or <c>-00:00:00.001</c> (infinite): none.</summary>
    public TimeSpan RebalanceInterval { get; set; } = MultiprogramSchedulerOptions.DefaultRebalanceInterval;

    /// <summary>Whether idle workers serve other programs with queued tasks (default <see langword="true"/>).</summary>
    public bool EnableLending { get; set; } = true;

    /// <summary>How long a task must have run before a moved CPU is handed to its standby worker (default 1 ms;
    /// infinite: no standby threads).</summary>
    public TimeSpan MoveHandoverThreshold { get; set; } = MultiprogramSchedulerOptions.DefaultMoveHandoverThreshold;

    /// <summary>How many decisions the scheduler's history keeps (default 10,000).</summary>
    public int HistoryCapacity { get; set; } = 10_000;

    /// <summary>
    /// The programs registered when the scheduler starts, by name (ordinal; registered in ordinal order of their
    /// names). Get them from <see cref="DivConPrograms"/>.
    /// </summary>
    public IDictionary<string, DivConProgramOptions> Programs { get; } = new Dictionary<string, DivConProgramOptions>(StringComparer.Ordinal);

    /// <summary>Adds (or replaces) a program to register at start.</summary>
    /// <param name="name">Its name (not empty).</param>
    /// <param name="speedup">Its whole-machine speedup (1 = unknown: equal weight); checked at start.</param>
    /// <returns>These options.</returns>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null, empty or white space.</exception>
    public DivConMultiprogramOptions AddProgram(string name, double speedup)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        Programs[name] = new DivConProgramOptions { Speedup = speedup };
        return this;
    }
}
