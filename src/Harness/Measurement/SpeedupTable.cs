using System.Collections.ObjectModel;
using System.Globalization;

namespace DivCon.Harness.Measurement;
/// <summary>
/// A program's measured scalability: speedup over its sequential time at some core counts, with linear
/// interpolation between measured points.
/// </summary>
/// <remarks>
/// Zero cores give zero speedup, which is also the anchor for interpolating below the smallest measured
/// count. Asking beyond the largest measured count is an error (extrapolating a speedup curve is a guess).
/// </remarks>
public sealed class SpeedupTable
{
    private readonly int[] _cores;
    private readonly double[] _speedups;

    /// <summary>Creates a table.</summary>
    /// <param name="program">Program name.</param>
    /// <param name="speedupByCores">Measured speedup per core count: at least one point, counts ≥ 1, speedups positive and finite.</param>
    /// <exception cref="ArgumentException">The table is empty or holds a bad point.</exception>
    public SpeedupTable(string program, IReadOnlyDictionary<int, double> speedupByCores)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(program);
        ArgumentNullException.ThrowIfNull(speedupByCores);
        if (speedupByCores.Count == 0)
        {
            throw new ArgumentException($"The speedup table of '{program}' is empty.", nameof(speedupByCores));
        }

        foreach ((int cores, double speedup) in speedupByCores)
        {
            if (cores < 1 || !(speedup > 0) || double.IsInfinity(speedup))
            {
                throw new ArgumentException(
                    string.Create(CultureInfo.InvariantCulture, $"Bad point ({cores} cores, speedup {speedup}) in the table of '{program}': cores must be ≥ 1 and speedups positive and finite."),
                    nameof(speedupByCores));
            }
        }

        Program = program;
        _cores = speedupByCores.Keys.Order().ToArray();
        _speedups = _cores.Select(c => speedupByCores[c]).ToArray();
        Points = new ReadOnlyDictionary<int, double>(_cores.Zip(_speedups).ToDictionary(p => p.First, p => p.Second));
    }

    /// <summary>Program name.</summary>
    public string Program { get; }

    /// <summary>The measured points.</summary>
    public IReadOnlyDictionary<int, double> Points { get; }

    /// <summary>The largest measured core count.</summary>
    public int MaxCores => _cores[^1];

    /// <summary>Speedup at <paramref name="cores"/>: measured, or interpolated between the neighbouring points.</summary>
    /// <param name="cores">Core count, from 0 to <see cref="MaxCores"/>.</param>
    /// <returns>The speedup (0 at 0 cores).</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="cores"/> is negative or beyond <see cref="MaxCores"/>.</exception>
    public double SpeedupAt(int cores)
    {
        if (cores < 0 || cores > MaxCores)
        {
            throw new ArgumentOutOfRangeException(nameof(cores), cores, $"The table of '{Program}' covers 0 to {MaxCores} cores.");
        }

        int index = Array.BinarySearch(_cores, cores);
        if (index >= 0)
        {
            return _speedups[index];
        }

        int upper = ~index;
        (int lowCores, double lowSpeedup) = upper == 0 ? (0, 0.0) : (_cores[upper - 1], _speedups[upper - 1]);
        double fraction = (double)(cores - lowCores) / (_cores[upper] - lowCores);
        return lowSpeedup + (fraction * (_speedups[upper] - lowSpeedup));
    }
}
