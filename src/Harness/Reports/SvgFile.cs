using System.Text;
using System.Text.Json;
using System.Xml;
using System.Xml.Linq;
using DivCon.Harness.Machine;
using OxyPlot;

namespace DivCon.Harness.Reports;

/// <summary>
/// Exports OxyPlot models as standalone SVG files, stamped with the run: the stamp's pairs in &lt;desc&gt;,
/// the stamp as JSON in &lt;metadata&gt;, and a two-line footer (short stamp line and the command).
/// </summary>
/// <remarks>
/// Text is measured by OxyPlot's PDF render context, which carries the metrics of the PDF standard fonts in the
/// library itself: exporting needs no installed font and no native library.
/// </remarks>
public static class SvgFile
{
    /// <summary>The SVG namespace.</summary>
    public static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    private const double FooterHeight = 36;
    private const int MaxCommandLength = 140;

    /// <summary>Renders a model into an SVG document of the given size, with the stamp when one is given.</summary>
    /// <param name="model">A model not rendered before.</param>
    /// <param name="width">Width in pixels.</param>
    /// <param name="height">Height in pixels, footer included.</param>
    /// <param name="stamp">The run's stamp, or null for none.</param>
    /// <returns>The document; its root &lt;title&gt; is the model's title.</returns>
    public static XDocument Render(PlotModel model, int width, int height, RunStamp? stamp)
    {
        ArgumentNullException.ThrowIfNull(model);
        ArgumentOutOfRangeException.ThrowIfLessThan(width, 200);
        ArgumentOutOfRangeException.ThrowIfLessThan(height, 150);
        string[] footer = stamp is null ? [] : [stamp.ToShortLine(), "$ " + Shorten(stamp.CommandLine)];
        using var stream = new MemoryStream();
        var measurer = new WideTextMeasurer(new PdfRenderContext(width, height, model.Background));
        using (var context = new SvgRenderContext(stream, width, height, isDocument: false, measurer, model.Background, useVerticalTextAlignmentWorkaround: true))
        {
            IPlotModel plot = model;
            plot.Update(true);
            plot.Render(context, new OxyRect(0, 0, width, footer.Length == 0 ? height : height - FooterHeight));

            // OxyPlot catches a failure while updating or rendering and draws its stack trace into the plot:
            // turn that back into an exception rather than save it as a chart.
            if (model.GetLastPlotException() is { } failure)
            {
                throw new InvalidOperationException($"OxyPlot could not draw '{model.Title}': {failure.Message}", failure);
            }

            for (int i = 0; i < footer.Length; i++)
            {
                context.DrawText(new ScreenPoint(8, height - FooterHeight + 14 + (i * 13)), footer[i], OxyColor.FromRgb(0x66, 0x66, 0x66),
                    ChartStyle.Font, 9, FontWeights.Normal, 0, HorizontalAlignment.Left, VerticalAlignment.Bottom, null);
            }

            context.Complete();
            context.Flush();
        }

        stream.Position = 0;
        XDocument document = XDocument.Load(stream);
        XElement root = document.Root ?? throw new InvalidOperationException("OxyPlot wrote no SVG root.");
        var head = new List<XElement> { new(Svg + "title", model.Title ?? string.Empty) };
        if (stamp is not null)
        {
            head.Add(new XElement(Svg + "desc", string.Join("\n", stamp.ToPairs().Select(p => $"{p.Key}: {p.Value}"))));
            head.Add(new XElement(Svg + "metadata", JsonSerializer.Serialize(stamp, JsonReport.Options)));
            foreach (XElement text in root.Descendants(Svg + "text").Where(t => footer.Contains(t.Value, StringComparer.Ordinal)))
            {
                text.SetAttributeValue("class", "stamp");
            }
        }

        root.AddFirst(head);
        return new XDocument(new XDeclaration("1.0", "utf-8", null), root);
    }

    /// <summary>Renders <paramref name="chart"/> and writes it to <paramref name="path"/>.</summary>
    /// <param name="chart">The chart.</param>
    /// <param name="path">Destination file.</param>
    /// <param name="stamp">The run's stamp (null for none).</param>
    public static void Save(ISvgChart chart, string path, RunStamp? stamp)
    {
        ArgumentNullException.ThrowIfNull(chart);
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        XDocument document = chart.Render(stamp); // before the file is opened: a chart that fails leaves no empty file
        var settings = new XmlWriterSettings { Indent = true, Encoding = new UTF8Encoding(false) };
        using var writer = XmlWriter.Create(path, settings);
        document.Save(writer);
    }

    /// <summary>Renders <paramref name="chart"/> into a results folder, stamped with the folder's stamp.</summary>
    /// <param name="folder">The experiment's folder.</param>
    /// <param name="fileName">A plain file name ending in .svg.</param>
    /// <param name="chart">The chart.</param>
    /// <returns>The file's full path.</returns>
    public static string Save(ResultsFolder folder, string fileName, ISvgChart chart)
    {
        ArgumentNullException.ThrowIfNull(folder);
        string path = folder.PathOf(fileName);
        Save(chart, path, folder.Stamp);
        return path;
    }

    private static string Shorten(string command) => command.Length > MaxCommandLength ? command[..(MaxCommandLength - 3)] + "..." : command;

    /// <summary>
    /// Measures text with the PDF standard-font metrics OxyPlot carries, widened by a margin: a viewer without the
    /// named font draws a fallback (often DejaVu Sans, up to a quarter wider than Helvetica), and OxyPlot clips a
    /// legend to the measured width. Measures only; drawing goes to the SVG context.
    /// </summary>
    private sealed class WideTextMeasurer(PdfRenderContext metrics) : RenderContextBase
    {
        private const double WidthMargin = 1.3;

        public override OxySize MeasureText(string text, string fontFamily, double fontSize, double fontWeight)
        {
            OxySize size = metrics.MeasureText(text, fontFamily, fontSize, fontWeight);
            return new OxySize(size.Width * WidthMargin, size.Height);
        }

        public override void DrawLine(IList<ScreenPoint> points, OxyColor stroke, double thickness, EdgeRenderingMode edgeRenderingMode, double[]? dashArray, LineJoin lineJoin) =>
            throw new NotSupportedException("This context only measures text.");

        public override void DrawPolygon(IList<ScreenPoint> points, OxyColor fill, OxyColor stroke, double thickness, EdgeRenderingMode edgeRenderingMode, double[]? dashArray, LineJoin lineJoin) =>
            throw new NotSupportedException("This context only measures text.");

        public override void DrawText(ScreenPoint p, string text, OxyColor fill, string fontFamily, double fontSize, double fontWeight, double rotation, HorizontalAlignment halign, VerticalAlignment valign, OxySize? maxSize) =>
            throw new NotSupportedException("This context only measures text.");

        public override int ClipCount => 0;

        public override void PushClip(OxyRect clippingRectangle) => throw new NotSupportedException("This context only measures text.");

        public override void PopClip() => throw new NotSupportedException("This context only measures text.");
    }
}

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
