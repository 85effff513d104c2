using System.Globalization;
using System.Text;
using System.Xml.Linq;
using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports.Charts;

/// <summary>
/// Cores per program over time for a multiprogram scheme, as stacked step areas: each program's band is as
/// tall as its allocation, and the allocation holds until the next sample (a step, not a slope).
/// </summary>
/// <remarks>
/// Each program is one SVG <c>&lt;path class="area"&gt;</c> with <c>data-series</c>. The y axis runs from 0
/// to the machine's cores, so idle (unallocated) cores show as the gap at the top.
/// </remarks>
public sealed class AllocationChart : ISvgChart
{
    /// <summary>Creates the chart.</summary>
    /// <param name="title">Title.</param>
    /// <param name="programs">Program names (at least one), the order of every sample's values.</param>
    /// <param name="totalCores">Cores in the machine (positive).</param>
    /// <param name="samples">Allocations in time order (at least one); each sums to at most <paramref name="totalCores"/>.</param>
    /// <param name="end">When the last allocation stops (after the last sample).</param>
    /// <param name="width">Width in pixels.</param>
    /// <param name="height">Height in pixels.</param>
    /// <exception cref="ArgumentException">Bad or inconsistent input.</exception>
    public AllocationChart(
        string title, IReadOnlyList<string> programs, int totalCores, IReadOnlyList<AllocationSample> samples, TimeSpan end, int width = 900, int height = 540)
    {
        ChartValidation.Title(title, nameof(title));
        ChartValidation.Size(width, height);
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
            if (sample is null || sample.Cores is null || sample.Cores.Count != programs.Count)
            {
                throw new ArgumentException($"Sample {i} needs one core count per program ({programs.Count}).", nameof(samples));
            }

            if (sample.Time < TimeSpan.Zero || (i > 0 && sample.Time < samples[i - 1].Time))
            {
                throw new ArgumentException($"Sample {i} at {sample.Time} is out of time order.", nameof(samples));
            }

            if (sample.Cores.Any(c => c < 0) || sample.Cores.Sum() > totalCores)
            {
                throw new ArgumentException($"Sample {i} allocates [{string.Join(", ", sample.Cores)}]; counts must be non-negative and sum to at most {totalCores}.", nameof(samples));
            }
        }

        if (end <= samples[^1].Time)
        {
            throw new ArgumentException($"The end {end} must come after the last sample ({samples[^1].Time}).", nameof(end));
        }

        Title = title;
        Programs = programs;
        TotalCores = totalCores;
        Samples = samples;
        End = end;
        Width = width;
        Height = height;
    }

    /// <inheritdoc/>
    public string Title { get; }

    /// <summary>Program names.</summary>
    public IReadOnlyList<string> Programs { get; }

    /// <summary>Cores in the machine.</summary>
    public int TotalCores { get; }

    /// <summary>Allocations in time order.</summary>
    public IReadOnlyList<AllocationSample> Samples { get; }

    /// <summary>When the last allocation stops.</summary>
    public TimeSpan End { get; }

    /// <summary>Width in pixels.</summary>
    public int Width { get; }

    /// <summary>Height in pixels.</summary>
    public int Height { get; }

    /// <inheritdoc/>
    public XDocument Render(RunStamp? stamp)
    {
        var canvas = new SvgCanvas(Width, Height, Title, stamp);
        PlotArea area = canvas.Area;
        var x = new ChartAxis(AxisScale.Linear, Samples[0].Time.TotalSeconds, End.TotalSeconds, area.Left, area.Right, includeZero: true);
        var y = new ChartAxis(AxisScale.Linear, 0, TotalCores, area.Bottom, area.Top, includeZero: true);
        canvas.DrawXAxis(x, "Time (s)");
        canvas.DrawYAxis(y, "Cores");

        var group = new XElement(SvgCanvas.Svg + "g", new XAttribute("class", "areas"));
        for (int p = 0; p < Programs.Count; p++)
        {
            var upper = new List<(double X, double Y)>();
            var lower = new List<(double X, double Y)>();
            for (int i = 0; i < Samples.Count; i++)
            {
                double from = x.Map(Samples[i].Time.TotalSeconds);
                double to = x.Map((i + 1 < Samples.Count ? Samples[i + 1].Time : End).TotalSeconds);
                int below = Samples[i].Cores.Take(p).Sum();
                int above = below + Samples[i].Cores[p];
                upper.Add((from, y.Map(above)));
                upper.Add((to, y.Map(above)));
                lower.Add((from, y.Map(below)));
                lower.Add((to, y.Map(below)));
            }

            lower.Reverse();
            var path = new StringBuilder();
            foreach ((double px, double py) in upper.Concat(lower))
            {
                path.Append(path.Length == 0 ? "M" : " L").Append(SvgCanvas.N(px)).Append(',').Append(SvgCanvas.N(py));
            }

            path.Append(" Z");
            group.Add(new XElement(SvgCanvas.Svg + "path",
                new XAttribute("class", "area"),
                new XAttribute("data-series", Programs[p]),
                new XAttribute("d", path.ToString()),
                new XAttribute("fill", ChartPalette.Color(p)),
                new XAttribute("fill-opacity", "0.85"),
                new XAttribute("stroke", "#ffffff"),
                new XAttribute("stroke-width", "0.5"),
                new XElement(SvgCanvas.Svg + "title", string.Create(CultureInfo.InvariantCulture, $"{Programs[p]}"))));
        }

        canvas.Add(group);
        canvas.DrawLegend(Programs.Select((name, i) => (name, ChartPalette.Color(i))).ToArray(), lines: false);
        return canvas.ToDocument();
    }
}
