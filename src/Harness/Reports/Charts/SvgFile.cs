using System.Text;
using System.Xml;
using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports.Charts;

/// <summary>Saves charts as UTF-8 SVG files.</summary>
public static class SvgFile
{
    /// <summary>Renders <paramref name="chart"/> and writes it to <paramref name="path"/>.</summary>
    /// <param name="chart">The chart.</param>
    /// <param name="path">Destination file.</param>
    /// <param name="stamp">The run's stamp (null for none).</param>
    public static void Save(ISvgChart chart, string path, RunStamp? stamp)
    {
        ArgumentNullException.ThrowIfNull(chart);
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        var settings = new XmlWriterSettings { Indent = true, Encoding = new UTF8Encoding(false) };
        using var writer = XmlWriter.Create(path, settings);
        chart.Render(stamp).Save(writer);
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
}
