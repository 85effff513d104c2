using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

public class SpeedupTableTests
{
    [Fact]
    public void Measured_points_are_returned_and_gaps_interpolated_linearly()
    {
        var table = new SpeedupTable("p", new Dictionary<int, double> { [2] = 1.8, [4] = 3.0, [8] = 5.0 });

        Assert.Equal(0.0, table.SpeedupAt(0));
        Assert.Equal(0.9, table.SpeedupAt(1), 12);   // between (0, 0) and (2, 1.8)
        Assert.Equal(1.8, table.SpeedupAt(2));
        Assert.Equal(2.4, table.SpeedupAt(3), 12);
        Assert.Equal(4.5, table.SpeedupAt(7), 12);
        Assert.Equal(8, table.MaxCores);
        Assert.Equal(3, table.Points.Count);
    }

    [Fact]
    public void Bad_tables_and_queries_are_rejected()
    {
        Assert.Throws<ArgumentException>(() => new SpeedupTable("p", new Dictionary<int, double>()));
        Assert.Throws<ArgumentException>(() => new SpeedupTable("p", new Dictionary<int, double> { [0] = 1 }));
        Assert.Throws<ArgumentException>(() => new SpeedupTable("p", new Dictionary<int, double> { [1] = -1 }));
        Assert.Throws<ArgumentException>(() => new SpeedupTable("p", new Dictionary<int, double> { [1] = double.NaN }));
        Assert.Throws<ArgumentException>(() => new SpeedupTable("", new Dictionary<int, double> { [1] = 1 }));
        var table = new SpeedupTable("p", new Dictionary<int, double> { [1] = 1, [2] = 2 });
        var ex = Assert.Throws<ArgumentOutOfRangeException>(() => table.SpeedupAt(3));
        Assert.Equal("cores", ex.ParamName);
        Assert.Throws<ArgumentOutOfRangeException>(() => table.SpeedupAt(-1));
    }
}
