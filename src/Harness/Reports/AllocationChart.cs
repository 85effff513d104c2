using DivCon.Harness.Workload;
using OxyPlot;
using OxyPlot.Axes;
using OxyPlot.Series;

namespace DivCon.Harness.Reports;
/// <summary>
/// Cores owned by each program over time, as stacked step areas (one band per program): how a partitioning
/// scheme moved cores during a test.
/// </summary>
public sealed class AllocationChart : SvgChart
{
    /// <summary>The allocation chart of a trace, ending now.</summary>
    /// <param name="trace">The trace.</param>
    /// <param name="title">Chart title.</param>
    /// <param name="totalCores">Cores in the machine.</param>
    /// <returns>The chart.</returns>
    /// <exception cref="InvalidOperationException">Nothing was recorded.</exception>
    public static AllocationChart Of(AllocationTrace trace, string title, int totalCores)
    {
        ArgumentNullException.ThrowIfNull(trace);
        IReadOnlyList<AllocationSample> samples = trace.Samples();
        if (samples.Count == 0)
        {
            throw new InvalidOperationException("The trace is empty.");
        }

        TimeSpan end = trace.Elapsed;
        if (end <= samples[^1].Time)
        {
            end = samples[^1].Time + TimeSpan.FromMilliseconds(1);
        }

        return new AllocationChart(title, trace.Programs, totalCores, samples, end);
    }

    /// <summary>Creates the chart.</summary>
    /// <param name="title">Title.</param>
    /// <param name="programs">Program names, bottom band first.</param>
    /// <param name="totalCores">The y axis maximum (≥ 1).</param>
    /// <param name="samples">At least one sample, in time order, each with a non-negative count per program summing to at most <paramref name="totalCores"/>.</param>
    /// <param name="end">When the last sample's allocation ended (after the last sample).</param>
    /// <param name="width">Width in pixels.</param>
    /// <param name="height">Height in pixels.</param>
    /// <exception cref="ArgumentException">Empty inputs, bad samples, or an end not after the last sample.</exception>
    public AllocationChart(
        string title, IReadOnlyList<string> programs, int totalCores, IReadOnlyList<AllocationSample> samples, TimeSpan end, int width = 900, int height = 540)
        : base(title, width, height)
    {
        ArgumentNullException.ThrowIfNull(programs);
        ArgumentNullException.ThrowIfNull(samples);
        ArgumentOutOfRangeException.ThrowIfLessThan(totalCores, 1);
        if (programs.Count == 0 || samples.Count == 0)
        {
            throw new ArgumentException("An allocation chart needs at least one program and one sample.", programs.Count == 0 ? nameof(programs) : nameof(samples));
        }

        for (int i = 0; i < samples.Count; i++)
        {
            AllocationSample sample = samples[i];
            ChartStyle.RequireValues(sample?.Cores is not null && sample.Cores.Count == programs.Count,
                $"Sample {i} needs one core count per program ({programs.Count}).", nameof(samples));
            ChartStyle.RequireValues(sample!.Time >= TimeSpan.Zero && (i == 0 || sample.Time >= samples[i - 1].Time),
                $"Sample {i} at {sample.Time} is out of time order.", nameof(samples));
            ChartStyle.RequireValues(sample.Cores.All(c => c >= 0) && sample.Cores.Sum() <= totalCores,
                $"Sample {i} allocates [{string.Join(", ", sample.Cores)}]; counts must be non-negative and sum to at most {totalCores}.", nameof(samples));
        }

        if (end <= samples[^1].Time)
        {
            throw new ArgumentException($"The end {end} must come after the last sample ({samples[^1].Time}).", nameof(end));
        }

        Programs = programs;
        TotalCores = totalCores;
        Samples = samples;
        End = end;
    }

    /// <summary>Program names, bottom band first.</summary>
    public IReadOnlyList<string> Programs { get; }

    /// <summary>The y axis maximum.</summary>
    public int TotalCores { get; }

    /// <summary>The samples, in time order.</summary>
    public IReadOnlyList<AllocationSample> Samples { get; }

    /// <summary>When the last allocation ended.</summary>
    public TimeSpan End { get; }

    /// <inheritdoc/>
    public override PlotModel ToPlotModel()
    {
        PlotModel model = ChartStyle.Model(Title);
        Axis time = ChartStyle.ValueAxis(AxisPosition.Bottom, "Time (s)", AxisScale.Linear);
        time.Minimum = Math.Min(0, Samples[0].Time.TotalSeconds);
        time.Maximum = End.TotalSeconds;
        Axis cores = ChartStyle.ValueAxis(AxisPosition.Left, "Cores", AxisScale.Linear);
        cores.Minimum = 0;
        cores.Maximum = TotalCores;
        cores.MajorStep = Math.Max(1, Math.Ceiling(TotalCores / 10.0));
        model.Axes.Add(time);
        model.Axes.Add(cores);
        for (int p = 0; p < Programs.Count; p++)
        {
            OxyColor color = ChartStyle.Color(p);
            var band = new AreaSeries
            {
                Title = Programs[p],
                Color = OxyColors.White,
                Color2 = OxyColors.White,
                StrokeThickness = 0.5,
                Fill = OxyColor.FromAColor(217, color),
            };
            // Each sample holds from its time until the next sample (or the end): two points per sample on each
            // edge of the band, the lower edge being the bands below it.
            for (int i = 0; i < Samples.Count; i++)
            {
                double from = Samples[i].Time.TotalSeconds;
                double to = (i + 1 < Samples.Count ? Samples[i + 1].Time : End).TotalSeconds;
                int below = Samples[i].Cores.Take(p).Sum();
                int above = below + Samples[i].Cores[p];
                band.Points.Add(new DataPoint(from, above));
                band.Points.Add(new DataPoint(to, above));
                band.Points2.Add(new DataPoint(from, below));
                band.Points2.Add(new DataPoint(to, below));
            }

            model.Series.Add(band);
        }

        return model;
    }
}
