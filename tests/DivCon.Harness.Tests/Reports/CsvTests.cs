using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Reports;

public class CsvTests
{
    [Theory]
    [InlineData("plain", "plain")]
    [InlineData("", "")]
    [InlineData(null, "")]
    [InlineData("a,b", "\"a,b\"")]
    [InlineData("say \"hi\"", "\"say \"\"hi\"\"\"")]
    [InlineData("two\nlines", "\"two\nlines\"")]
    [InlineData("cr\rhere", "\"cr\rhere\"")]
    public void Fields_are_quoted_exactly_when_needed(string? field, string expected) =>
        Assert.Equal(expected, Csv.Escape(field));

    [Fact]
    public void Tricky_fields_round_trip_through_a_strict_parser()
    {
        string[][] rows = [["a,b", "\"q\"", "line\r\nbreak"], ["", " spaced ", "ünïcødé"]];
        var writer = new StringWriter();
        Csv.Write(writer, ["x", "y", "z"], rows);

        List<List<string>> parsed = CsvParser.Parse(writer.ToString());
        Assert.Equal(3, parsed.Count);
        Assert.Equal(["x", "y", "z"], parsed[0]);
        Assert.Equal(rows[0], parsed[1]);
        Assert.Equal(rows[1], parsed[2]);
        Assert.EndsWith("\r\n", writer.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void Numbers_are_invariant_and_round_trip()
    {
        Assert.Equal("0.1", Csv.Number(0.1));
        Assert.Equal("1E-05", Csv.Number(1e-5));
        Assert.Equal(string.Empty, Csv.Number(double.NaN));
        double third = 1.0 / 3;
        Assert.Equal(third, double.Parse(Csv.Number(third), System.Globalization.CultureInfo.InvariantCulture));
    }

    [Fact]
    public void Bad_shapes_are_rejected()
    {
        var writer = new StringWriter();
        Assert.Throws<ArgumentException>(() => Csv.Write(writer, [], []));
        var ex = Assert.Throws<ArgumentException>(() => Csv.Write(writer, ["a", "b"], [["1", "2"], ["3"]]));
        Assert.Contains("Row 2 has 1 fields", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_records_csv_has_one_row_per_run_with_counted_flags()
    {
        var result = new CyclicTestResult(
            ["A", "B,comma"],
            [
                new RunRecord("A", 0, TimeSpan.FromSeconds(0), TimeSpan.FromSeconds(3), true),
                new RunRecord("B,comma", 0, TimeSpan.FromSeconds(0), TimeSpan.FromSeconds(5), true),
                new RunRecord("A", 1, TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(6.5), false),
            ],
            TimeSpan.FromSeconds(6),
            TimeSpan.FromSeconds(6.5));
        var writer = new StringWriter();
        RunRecordsCsv.Write(writer, [("shared", result), ("free", result)]);

        List<List<string>> rows = CsvParser.Parse(writer.ToString());
        Assert.Equal(RunRecordsCsv.Header, rows[0]);
        Assert.Equal(7, rows.Count);
        Assert.Equal(["shared", "B,comma", "0", "0", "5", "5", "true"], rows[2]);
        Assert.Equal(["shared", "A", "1", "3", "6.5", "3.5", "false"], rows[3]);
        Assert.Equal("free", rows[6][0]);
    }
}
