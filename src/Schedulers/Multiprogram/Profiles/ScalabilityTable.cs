using System.Collections.ObjectModel;

namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>
/// A program's speedup by core count (Sasaki et al.'s scalability table), with linear interpolation between the
/// measured points.
/// </summary>
/// <remarks>
/// <para>
/// Conventions: speedup(0) = 0; speedup(1) = 1 unless 1 core was measured (a measured one-core speedup below 1
/// shows the overhead of the parallel version, and is kept). Between measured core counts the speedup is
/// interpolated linearly; past the largest measured count it stays at the last measured value (no extrapolation,
/// so an unmeasured region is never assumed to scale).
/// </para>
/// <para>Example: points (4, 3.5) and (16, 10): SpeedupAt(2) = 1 + (3.5 - 1) / 3 = 1.83; SpeedupAt(10) = 6.75.</para>
/// <para>Equality is by value (same points).</para>
/// </remarks>
public sealed class ScalabilityTable : IEquatable<ScalabilityTable>
{
    private readonly ScalabilityPoint[] _points;

    /// <summary>Creates a table from measured points.</summary>
    /// <param name="points">At least one point; core counts at least 1 and strictly ascending; speedups positive and finite.</param>
    /// <exception cref="ArgumentNullException"><paramref name="points"/> is null.</exception>
    /// <exception cref="ArgumentException">The points break a rule above; the message names the offending point.</exception>
    public ScalabilityTable(IEnumerable<ScalabilityPoint> points)
    {
        ArgumentNullException.ThrowIfNull(points);
        _points = [.. points];
        if (_points.Length == 0)
        {
            throw new ArgumentException("A scalability table needs at least one point.", nameof(points));
        }

        for (int i = 0; i < _points.Length; i++)
        {
            var p = _points[i];
            if (p.Cores < 1)
            {
                throw new ArgumentException($"Core count {p.Cores} at index {i} is below 1.", nameof(points));
            }

            if (i > 0 && p.Cores <= _points[i - 1].Cores)
            {
                throw new ArgumentException(
                    $"Core counts must ascend strictly: {p.Cores} follows {_points[i - 1].Cores} at index {i}.", nameof(points));
            }

            if (!double.IsFinite(p.Speedup) || p.Speedup <= 0)
            {
                throw new ArgumentException(
                    $"Speedup {p.Speedup} at {p.Cores} cores is not a positive finite number.", nameof(points));
            }
        }

        Points = new ReadOnlyCollection<ScalabilityPoint>(_points);
    }

    /// <summary>The measured points, ascending by core count.</summary>
    public IReadOnlyList<ScalabilityPoint> Points { get; }

    /// <summary>The largest measured core count.</summary>
    public int MaxCores => _points[^1].Cores;

    /// <summary>
    /// The table a whole-machine speedup alone implies: speedup 1 on one core, <paramref name="speedup"/> on
    /// <paramref name="cores"/>, linear in between.
    /// </summary>
    /// <param name="cores">The machine's cores (at least 1).</param>
    /// <param name="speedup">Speedup on all of them (positive, finite).</param>
    /// <returns>The table.</returns>
    public static ScalabilityTable FromWholeMachine(int cores, double speedup)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(cores, 1);
        return new ScalabilityTable([new ScalabilityPoint(cores, speedup)]);
    }

    /// <summary>The speedup on <paramref name="cores"/> cores (interpolated; see the remarks on the type).</summary>
    /// <param name="cores">At least 0.</param>
    /// <returns>The speedup; 0 for 0 cores.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="cores"/> is negative.</exception>
    public double SpeedupAt(int cores)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(cores);
        if (cores == 0)
        {
            return 0;
        }

        // Lower neighbour: the implicit (1, 1) point, or the last measured point below `cores`.
        int lowCores = 1;
        double lowSpeedup = 1;
        for (int i = 0; i < _points.Length; i++)
        {
            var p = _points[i];
            if (p.Cores == cores)
            {
                return p.Speedup;
            }

            if (p.Cores > cores)
            {
                if (i == 0 && cores == 1)
                {
                    return 1;
                }

                double t = (double)(cores - lowCores) / (p.Cores - lowCores);
                return lowSpeedup + (t * (p.Speedup - lowSpeedup));
            }

            lowCores = p.Cores;
            lowSpeedup = p.Speedup;
        }

        return _points[^1].Speedup;
    }

    /// <inheritdoc />
    public bool Equals(ScalabilityTable? other) =>
        other is not null && (ReferenceEquals(this, other) || _points.AsSpan().SequenceEqual(other._points));

    /// <inheritdoc />
    public override bool Equals(object? obj) => Equals(obj as ScalabilityTable);

    /// <inheritdoc />
    public override int GetHashCode()
    {
        var hash = default(HashCode);
        foreach (var p in _points)
        {
            hash.Add(p);
        }

        return hash.ToHashCode();
    }

    /// <inheritdoc />
    public override string ToString() => string.Join(", ", _points.Select(p => $"{p.Cores}:{p.Speedup:0.###}"));
}

/// <summary>One measured point of a scalability table.</summary>
/// <param name="Cores">Core count (at least 1).</param>
/// <param name="Speedup">Speedup on that many cores (positive, finite).</param>
public readonly record struct ScalabilityPoint(int Cores, double Speedup);
