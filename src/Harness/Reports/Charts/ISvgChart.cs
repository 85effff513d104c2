using System.Xml.Linq;
using DivCon.Harness.Machine;

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
