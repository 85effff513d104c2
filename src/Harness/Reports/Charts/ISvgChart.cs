using System.Xml.Linq;
using DivCon.Harness.Machine;
using OxyPlot;

namespace DivCon.Harness.Reports.Charts;

/// <summary>A chart that renders itself as a standalone SVG document.</summary>
public interface ISvgChart
{
    /// <summary>The chart's title (also the SVG &lt;title&gt;).</summary>
    string Title { get; }

    /// <summary>Renders the chart.</summary>
    /// <param name="stamp">The run's stamp, written into &lt;desc&gt;, &lt;metadata&gt; and a footer; none when null.</param>
    /// <returns>The SVG document.</returns>
    XDocument Render(RunStamp? stamp);
}

/// <summary>
/// A chart described by its data and drawn by OxyPlot: subclasses validate their data and build a
/// <see cref="PlotModel"/>; <see cref="SvgFile"/> exports it and adds the stamp.
/// </summary>
public abstract class SvgChart : ISvgChart
{
    /// <summary>Validates the title and size.</summary>
    /// <param name="title">Title (not blank).</param>
    /// <param name="width">Width in pixels (at least 200).</param>
    /// <param name="height">Height in pixels (at least 150).</param>
    /// <exception cref="ArgumentException">A blank title.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A size too small for a chart.</exception>
    protected SvgChart(string title, int width, int height)
    {
        if (string.IsNullOrWhiteSpace(title))
        {
            throw new ArgumentException("A chart needs a title.", nameof(title));
        }

        if (width < 200 || height < 150)
        {
            throw new ArgumentOutOfRangeException(width < 200 ? nameof(width) : nameof(height), $"{width}x{height} is too small for a chart (at least 200x150).");
        }

        Title = title;
        Width = width;
        Height = height;
    }

    /// <inheritdoc/>
    public string Title { get; }

    /// <summary>Width in pixels.</summary>
    public int Width { get; }

    /// <summary>Height in pixels.</summary>
    public int Height { get; }

    /// <summary>Builds a fresh OxyPlot model of the chart (a model renders once, so every call builds a new one).</summary>
    /// <returns>The model.</returns>
    public abstract PlotModel ToPlotModel();

    /// <inheritdoc/>
    public XDocument Render(RunStamp? stamp) => SvgFile.Render(ToPlotModel(), Width, Height, stamp);
}
