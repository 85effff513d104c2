using System.Globalization;
using System.Text.Json;
using System.Xml.Linq;
using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports.Charts;

/// <summary>
/// Shared drawing for every chart: the document skeleton (title, stamp in &lt;desc&gt; and &lt;metadata&gt;,
/// footer), axes with ticks and grid lines, legend, and element helpers. Elements carry <c>class</c>
/// attributes (series, bar, segment, area, error-bar, legend-item) so tests and stylesheets can find them.
/// </summary>
internal sealed class SvgCanvas
{
    public static readonly XNamespace Svg = "http://www.w3.org/2000/svg";
    private const double LegendWidth = 180;
    private readonly XElement _root;

    public SvgCanvas(int width, int height, string title, RunStamp? stamp)
    {
        if (width < 200 || height < 150)
        {
            throw new ArgumentOutOfRangeException(nameof(width), $"{width}x{height} is too small for a chart.");
        }

        Width = width;
        Height = height;
        Area = new PlotArea(80, 56, width - 80 - LegendWidth - 20, height - 56 - 110);
        _root = new XElement(Svg + "svg",
            new XAttribute("width", width),
            new XAttribute("height", height),
            new XAttribute("viewBox", $"0 0 {width} {height}"),
            new XAttribute("font-family", "DejaVu Sans, Arial, Helvetica, sans-serif"),
            new XAttribute("font-size", "12"),
            new XElement(Svg + "title", title));
        if (stamp is not null)
        {
            _root.Add(new XElement(Svg + "desc", string.Join("\n", stamp.ToPairs().Select(p => $"{p.Key}: {p.Value}"))));
            _root.Add(new XElement(Svg + "metadata", JsonSerializer.Serialize(stamp, JsonReport.Options)));
        }

        _root.Add(Rect(0, 0, width, height, "#ffffff", "background"));
        _root.Add(Text(width / 2.0, 30, title, "middle", "title", 17, bold: true));
        if (stamp is not null)
        {
            string command = stamp.CommandLine.Length > 140 ? stamp.CommandLine[..137] + "..." : stamp.CommandLine;
            _root.Add(Text(8, height - 22, stamp.ToShortLine(), "start", "stamp", 9, fill: "#666666"));
            _root.Add(Text(8, height - 9, "$ " + command, "start", "stamp", 9, fill: "#666666"));
        }
    }

    public int Width { get; }

    public int Height { get; }

    public PlotArea Area { get; }

    public void Add(XElement element) => _root.Add(element);

    public XDocument ToDocument() => new(new XDeclaration("1.0", "utf-8", null), _root);

    /// <summary>Draws a numeric axis along the bottom with ticks, labels, vertical grid lines and a title.</summary>
    public void DrawXAxis(ChartAxis axis, string label)
    {
        var group = new XElement(Svg + "g", new XAttribute("class", "x-axis"));
        foreach (double tick in axis.Ticks)
        {
            double x = axis.Map(tick);
            group.Add(Line(x, Area.Top, x, Area.Bottom, "#e5e5e5", 1, "grid"));
            group.Add(Line(x, Area.Bottom, x, Area.Bottom + 5, "#333333", 1, "tick"));
            group.Add(Text(x, Area.Bottom + 19, axis.Format(tick), "middle", "tick-label"));
        }

        group.Add(Line(Area.Left, Area.Bottom, Area.Right, Area.Bottom, "#333333", 1, "axis-line"));
        group.Add(Text(Area.Left + (Area.Width / 2), Area.Bottom + 44, label, "middle", "axis-title", 13));
        _root.Add(group);
    }

    /// <summary>Draws category labels centred under equal slots along the bottom.</summary>
    public void DrawCategoryAxis(IReadOnlyList<string> categories, string? label)
    {
        var group = new XElement(Svg + "g", new XAttribute("class", "x-axis"));
        double slot = Area.Width / categories.Count;
        // Rotate labels only when the longest would not fit its slot (about 7 px per character at 12 px).
        bool rotate = categories.Max(c => c.Length) * 7.0 > slot * 0.95;
        for (int i = 0; i < categories.Count; i++)
        {
            double x = Area.Left + ((i + 0.5) * slot);
            XElement text = Text(x, Area.Bottom + 18, categories[i], rotate ? "end" : "middle", "tick-label");
            if (rotate)
            {
                text.Add(new XAttribute("transform", $"rotate(-30 {N(x)} {N(Area.Bottom + 18)})"));
            }

            group.Add(text);
        }

        group.Add(Line(Area.Left, Area.Bottom, Area.Right, Area.Bottom, "#333333", 1, "axis-line"));
        if (!string.IsNullOrEmpty(label))
        {
            group.Add(Text(Area.Left + (Area.Width / 2), Area.Bottom + (rotate ? 62 : 44), label, "middle", "axis-title", 13));
        }

        _root.Add(group);
    }

    /// <summary>Draws a numeric axis on the left with ticks, labels, horizontal grid lines and a rotated title.</summary>
    public void DrawYAxis(ChartAxis axis, string label)
    {
        var group = new XElement(Svg + "g", new XAttribute("class", "y-axis"));
        foreach (double tick in axis.Ticks)
        {
            double y = axis.Map(tick);
            group.Add(Line(Area.Left, y, Area.Right, y, "#e5e5e5", 1, "grid"));
            group.Add(Line(Area.Left - 5, y, Area.Left, y, "#333333", 1, "tick"));
            group.Add(Text(Area.Left - 8, y + 4, axis.Format(tick), "end", "tick-label"));
        }

        group.Add(Line(Area.Left, Area.Top, Area.Left, Area.Bottom, "#333333", 1, "axis-line"));
        double cx = 22, cy = Area.Top + (Area.Height / 2);
        XElement title = Text(cx, cy, label, "middle", "axis-title", 13);
        title.Add(new XAttribute("transform", $"rotate(-90 {N(cx)} {N(cy)})"));
        group.Add(title);
        _root.Add(group);
    }

    /// <summary>Draws the legend to the right of the plot: a swatch (box or line) and the name per entry.</summary>
    public void DrawLegend(IReadOnlyList<(string Name, string Color)> entries, bool lines)
    {
        var group = new XElement(Svg + "g", new XAttribute("class", "legend"));
        double x = Area.Right + 18, y = Area.Top + 4;
        for (int i = 0; i < entries.Count; i++)
        {
            var item = new XElement(Svg + "g", new XAttribute("class", "legend-item"));
            double rowY = y + (i * 20);
            item.Add(lines
                ? Line(x, rowY + 6, x + 22, rowY + 6, entries[i].Color, 2.5, "swatch")
                : Rect(x, rowY, 14, 12, entries[i].Color, "swatch"));
            item.Add(Text(x + 28, rowY + 11, entries[i].Name, "start", "legend-label"));
            group.Add(item);
        }

        _root.Add(group);
    }

    /// <summary>A vertical error bar from <paramref name="low"/> to <paramref name="high"/> (pixels) with caps.</summary>
    public static XElement ErrorBar(double x, double low, double high, double capHalfWidth)
    {
        var group = new XElement(Svg + "g", new XAttribute("class", "error-bar"));
        group.Add(Line(x, low, x, high, "#222222", 1.2, "whisker"));
        group.Add(Line(x - capHalfWidth, low, x + capHalfWidth, low, "#222222", 1.2, "cap"));
        group.Add(Line(x - capHalfWidth, high, x + capHalfWidth, high, "#222222", 1.2, "cap"));
        return group;
    }

    public static XElement Line(double x1, double y1, double x2, double y2, string stroke, double width, string cssClass) =>
        new(Svg + "line",
            new XAttribute("class", cssClass),
            new XAttribute("x1", N(x1)), new XAttribute("y1", N(y1)),
            new XAttribute("x2", N(x2)), new XAttribute("y2", N(y2)),
            new XAttribute("stroke", stroke), new XAttribute("stroke-width", N(width)));

    public static XElement Rect(double x, double y, double width, double height, string fill, string cssClass) =>
        new(Svg + "rect",
            new XAttribute("class", cssClass),
            new XAttribute("x", N(x)), new XAttribute("y", N(y)),
            new XAttribute("width", N(Math.Max(0, width))), new XAttribute("height", N(Math.Max(0, height))),
            new XAttribute("fill", fill));

    public static XElement Text(double x, double y, string content, string anchor, string cssClass, double size = 12, bool bold = false, string fill = "#222222")
    {
        var text = new XElement(Svg + "text",
            new XAttribute("class", cssClass),
            new XAttribute("x", N(x)), new XAttribute("y", N(y)),
            new XAttribute("text-anchor", anchor),
            new XAttribute("font-size", N(size)),
            new XAttribute("fill", fill),
            content);
        if (bold)
        {
            text.Add(new XAttribute("font-weight", "bold"));
        }

        return text;
    }

    /// <summary>A coordinate as SVG text: invariant culture, two decimals at most.</summary>
    public static string N(double value) => Math.Round(value, 2).ToString("0.##", CultureInfo.InvariantCulture);
}
