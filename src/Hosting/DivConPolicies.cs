using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Hosting;

/// <summary>The allocation policies <see cref="DivConMultiprogramOptions.Policy"/> can name.</summary>
public static class DivConPolicies
{
    /// <summary><see cref="LearnedScalabilityPolicy"/>: cores go where they pay, by scalability learned while running (the default).</summary>
    public const string Learned = "learned-scalability";

    /// <summary><see cref="TaskAvailabilityPolicy"/>: proportional shares capped by the tasks each program has queued.</summary>
    public const string TaskAvailability = "task-availability";

    /// <summary><see cref="EqualSharePolicy"/>: the same number of cores for every program.</summary>
    public const string Equal = "equal";

    /// <summary><see cref="ProportionalPolicy"/>: cores in proportion to the programs' speedups.</summary>
    public const string Proportional = "proportional";

    /// <summary><see cref="HillClimbingPolicy"/> minimising the average normalised turnaround time.</summary>
    public const string HillClimbingAntt = "hill-climbing-antt";

    /// <summary><see cref="HillClimbingPolicy"/> maximising the system throughput.</summary>
    public const string HillClimbingStp = "hill-climbing-stp";

    /// <summary>Every name, in the order above.</summary>
    public static IReadOnlyList<string> Names { get; } = [Learned, TaskAvailability, Equal, Proportional, HillClimbingAntt, HillClimbingStp];

    /// <summary>Creates the policy a name stands for.</summary>
    /// <param name="name">One of <see cref="Names"/> (case-insensitive).</param>
    /// <returns>A new policy.</returns>
    /// <exception cref="ArgumentException"><paramref name="name"/> names no policy (the message lists the names).</exception>
    public static IAllocationPolicy Create(string name) => name?.ToUpperInvariant() switch
    {
        "LEARNED-SCALABILITY" => new LearnedScalabilityPolicy(),
        "TASK-AVAILABILITY" => new TaskAvailabilityPolicy(),
        "EQUAL" => new EqualSharePolicy(),
        "PROPORTIONAL" => new ProportionalPolicy(),
        "HILL-CLIMBING-ANTT" => new HillClimbingPolicy(HillClimbingObjective.MinimizeAntt),
        "HILL-CLIMBING-STP" => new HillClimbingPolicy(HillClimbingObjective.MaximizeStp),
        _ => throw new ArgumentException($"Unknown policy '{name}'; use one of: {string.Join(", ", Names)}.", nameof(name)),
    };
}
