using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Reports;

public class MarkdownTests
{
    [Fact]
    public void Table_has_header_alignment_and_escaped_rows()
    {
        var table = new MarkdownTable(["Name", "Value"]);
        table.AddRow("a|b", "1");
        table.AddRow("line\nbreak", "2");
        var writer = new StringWriter { NewLine = "\n" };
        table.WriteTo(writer);

        string[] lines = writer.ToString().Split('\n');
        Assert.Equal("| Name | Value |", lines[0]);
        Assert.Equal("| :--- | ---: |", lines[1]);
        Assert.Equal("| a\\|b | 1 |", lines[2]);
        Assert.Equal("| line break | 2 |", lines[3]);
        Assert.Equal(2, table.RowCount);
    }

    [Fact]
    public void Bad_tables_are_rejected()
    {
        Assert.Throws<ArgumentException>(() => new MarkdownTable([]));
        Assert.Throws<ArgumentException>(() => new MarkdownTable(["a"], [ColumnAlignment.Left, ColumnAlignment.Right]));
        Assert.Throws<ArgumentException>(() => new MarkdownTable(["a", "b"]).AddRow("only one"));
    }

    [Fact]
    public void Multiprogram_summary_has_every_section_program_and_scheme()
    {
        var oracle = StaticPartitionOracle.Solve(
            [new SpeedupTable("quicksort", new Dictionary<int, double> { [1] = 1, [2] = 1.5 }),
             new SpeedupTable("mergesort", new Dictionary<int, double> { [1] = 1, [2] = 1.6 })], 2);
        var writer = new StringWriter { NewLine = "\n" };
        MultiprogramMarkdown.Write(writer, "Cyclic test", Samples.TwoSchemes(), Samples.Stamp, oracle);
        string text = writer.ToString();

        Assert.StartsWith("# Cyclic test\n", text, StringComparison.Ordinal);
        foreach (string heading in new[] { "## Normalized turnaround time", "## Normalized progress", "## System metrics", "## Times (seconds)", "## Run" })
        {
            Assert.Contains(heading, text, StringComparison.Ordinal);
        }

        Assert.Contains("| Program | shared | static \\| partition |", text, StringComparison.Ordinal);
        Assert.Contains("| quicksort | 2.000 ± ", text, StringComparison.Ordinal);   // NTT of quicksort under "shared"
        Assert.Contains("| mergesort | 1.500 ± 0.000 | 1.500 ± ", text, StringComparison.Ordinal);
        Assert.Contains("STP / oracle", text, StringComparison.Ordinal);
        Assert.Contains("| Commit | abc1234 |", text, StringComparison.Ordinal);
        Assert.Contains("`dotnet run --project src/Harness -- cyclic --scheme 'a b'`", text, StringComparison.Ordinal);
        Assert.Contains("99%", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Numbers_in_text()
    {
        Assert.Equal("1.235 ± 0.100", NumberText.WithInterval(1.23456, 0.1));
        Assert.Equal("1.235", NumberText.WithInterval(1.23456, double.NaN));
        Assert.Equal("–", NumberText.Fixed(double.NaN));
        Assert.Equal("12.5%", NumberText.Percent(0.125));
    }
}
