using System.Globalization;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Experiments;

/// <summary>
/// Runs a parameter sweep on the <see cref="TimingLoop"/>: each configuration a few unrecorded warm-up times, then a
/// number of recorded times, one configuration after another, each summarised by <see cref="SampleSummary"/>. The mechanism behind the granularity sweep (time against
/// granularity per program) and the scalability sweep (time, hence speedup, against cores per program and
/// allocation strategy).
/// </summary>
/// <remarks>The thesis repeated every such test at least 10 times; that is the default here.</remarks>
public sealed class SweepRunner
{
    /// <summary>Recorded runs per configuration by default.</summary>
    public const int DefaultRepetitions = 10;

    private readonly TimingLoop _loop;

    /// <summary>Creates a runner.</summary>
    /// <param name="repetitions">Recorded runs per configuration (≥ 1).</param>
    /// <param name="warmupRuns">Unrecorded runs before them (≥ 0).</param>
    /// <param name="confidenceLevel">Confidence level of the summaries.</param>
    /// <param name="timeProvider">The clock; system clock when null.</param>
    /// <param name="progress">Progress sink; none when null.</param>
    public SweepRunner(int repetitions = DefaultRepetitions, int warmupRuns = 1, double confidenceLevel = SampleSummary.DefaultConfidenceLevel, TimeProvider? timeProvider = null, IProgressSink? progress = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(repetitions, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(warmupRuns);
        StudentT.ValidateConfidenceLevel(confidenceLevel);
        _loop = new TimingLoop(repetitions, warmupRuns, timeProvider, progress);
        ConfidenceLevel = confidenceLevel;
    }

    /// <summary>Recorded runs per configuration.</summary>
    public int Repetitions => _loop.Repetitions;

    /// <summary>Unrecorded runs per configuration.</summary>
    public int WarmupRuns => _loop.WarmupRuns;

    /// <summary>Confidence level of the summaries.</summary>
    public double ConfidenceLevel { get; }

    /// <summary>Called after every finished case with the points measured so far (e.g. to write them, so that a sweep
    /// that fails or is cancelled later keeps them); null for none.</summary>
    public Action<SweepResult>? CaseCompleted { get; init; }

    /// <summary>Runs every configuration.</summary>
    /// <param name="name">Sweep name.</param>
    /// <param name="cases">Configurations (at least one; (series, X) pairs unique).</param>
    /// <param name="cancellationToken">Cancels the sweep.</param>
    /// <returns>The measurements.</returns>
    /// <exception cref="ArgumentException">No cases, a duplicate (series, X), or a non-finite X.</exception>
    public async Task<SweepResult> RunAsync(string name, IReadOnlyList<SweepCase> cases, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(cases);
        if (cases.Count == 0)
        {
            throw new ArgumentException("A sweep needs at least one case.", nameof(cases));
        }

        var seen = new HashSet<(string, double)>();
        foreach (SweepCase c in cases)
        {
            if (c is null || !double.IsFinite(c.X) || !seen.Add((c.Series, c.X)))
            {
                throw new ArgumentException($"Bad or duplicate case ({c?.Series}, {c?.X}).", nameof(cases));
            }
        }

        var points = new List<SweepMeasurement>(cases.Count);
        await _loop.RunAsync(
            name,
            cases,
            static (c, ct) => c.RunOnce(ct),
            static (c, elapsed, _) => string.Create(CultureInfo.InvariantCulture, $"{c.Series} @ {c.X:G6}: {elapsed:0.####} s"),
            (c, seconds) =>
            {
                points.Add(new SweepMeasurement(c.Series, c.X, seconds, SampleSummary.Of(seconds, ConfidenceLevel)));
                CaseCompleted?.Invoke(new SweepResult(name, points.ToArray()));
            },
            cancellationToken).ConfigureAwait(false);
        return new SweepResult(name, points);
    }
}
