using System.Globalization;

namespace DivCon.Simulator;

/// <summary>
/// The memory-bandwidth / work-inflation knob: a task that starts while many cores are busy takes longer than its
/// recorded duration, because the cores compete for memory bandwidth and shared caches. Off by default.
/// </summary>
/// <remarks>
/// <para>Model (deliberately simple, one line): a task's recorded duration d becomes
/// <c>d x (1 + Alpha x max(0, b - Knee) / max(1, cores - Knee))</c>, where b is the number of busy cores (capped
/// at the core count) when the task starts. So inflation is 0 up to <see cref="Knee"/> busy cores and grows linearly
/// to <see cref="Alpha"/> (a fraction) with the whole machine busy. The factor is fixed when the task starts.</para>
/// <para>Why this shape: work-time inflation measured for parallel programs grows with the number of cores sharing
/// the memory system, and a memory-bound program stops scaling once the bandwidth is saturated; a knee plus a linear
/// rise captures both with two numbers. It is applied to every program alike; per-program sensitivity (a sort is
/// more memory-bound than Monte Carlo pi) is not modelled.</para>
/// </remarks>
/// <param name="Alpha">Extra work at full machine, as a fraction (0 = off; 0.3 = 30% longer tasks).</param>
/// <param name="Knee">Busy cores up to which there is no inflation.</param>
public sealed record WorkInflation(double Alpha, int Knee)
{
    /// <summary>No inflation (the default).</summary>
    public static WorkInflation None { get; } = new(0, 0);

    /// <summary>Whether the knob is off.</summary>
    public bool IsOff => Alpha == 0;

    /// <summary>Checks the values.</summary>
    /// <exception cref="ArgumentOutOfRangeException">Alpha is negative or not finite, or the knee is negative.</exception>
    public void Validate()
    {
        if (!double.IsFinite(Alpha) || Alpha < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(Alpha), Alpha, "Work inflation alpha must be a finite number >= 0.");
        }

        ArgumentOutOfRangeException.ThrowIfNegative(Knee, nameof(Knee));
    }

    /// <summary>The factor for a task starting with <paramref name="busyCores"/> of <paramref name="cores"/> busy.</summary>
    /// <param name="busyCores">Busy cores (capped at <paramref name="cores"/>).</param>
    /// <param name="cores">The machine's cores.</param>
    /// <returns>At least 1.</returns>
    public double Factor(int busyCores, int cores) =>
        IsOff ? 1.0 : 1.0 + (Alpha * Math.Max(0, Math.Min(busyCores, cores) - Knee) / Math.Max(1, cores - Knee));

    /// <inheritdoc/>
    public override string ToString() => IsOff ? "off" : string.Create(CultureInfo.InvariantCulture, $"alpha {Alpha}, knee {Knee}");
}
