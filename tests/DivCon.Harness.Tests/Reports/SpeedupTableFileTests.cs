using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Reports;

public class SpeedupTableFileTests
{
    [Fact]
    public void Tables_round_trip_through_stamped_json()
    {
        SpeedupTable[] tables =
        [
            new("quicksort", new Dictionary<int, double> { [1] = 1, [2] = 1.9, [4] = 3.4 }),
            new("pi", new Dictionary<int, double> { [1] = 1, [4] = 3.98 }),
        ];
        using var stream = new MemoryStream();
        SpeedupTableFile.Write(stream, Samples.Stamp, tables);

        IReadOnlyList<SpeedupTable> read = SpeedupTableFile.Parse(System.Text.Encoding.UTF8.GetString(stream.ToArray()));
        Assert.Equal(["quicksort", "pi"], read.Select(t => t.Program));
        Assert.Equal(3.4, read[0].SpeedupAt(4));
        Assert.Equal(tables[1].SpeedupAt(3), read[1].SpeedupAt(3), 12);
    }

    [Theory]
    [InlineData("{}")]
    [InlineData("not json")]
    [InlineData("{\"data\": [{\"program\": \"p\", \"speedups\": {\"x\": 1}}]}")]
    [InlineData("{\"data\": [{\"speedups\": {\"1\": 1}}]}")]
    public void Malformed_documents_are_rejected(string json) =>
        Assert.Throws<FormatException>(() => SpeedupTableFile.Parse(json));

    [Fact]
    public void Invalid_tables_are_rejected() =>
        Assert.Throws<ArgumentException>(() => SpeedupTableFile.Parse("{\"data\": [{\"program\": \"p\", \"speedups\": {\"1\": -1}}]}"));
}
