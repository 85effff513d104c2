using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Tests.Multiprogram;

public class ScalabilityTableTests
{
    [Fact]
    public void Interpolates_linearly_from_the_implicit_origin_points()
    {
        var table = new ScalabilityTable([new(4, 3.5), new(16, 10)]);
        Assert.Equal(0, table.SpeedupAt(0));
        Assert.Equal(1, table.SpeedupAt(1));
        Assert.Equal(1 + (2.5 / 3), table.SpeedupAt(2), 12);
        Assert.Equal(3.5, table.SpeedupAt(4));
        Assert.Equal(6.75, table.SpeedupAt(10), 12);
        Assert.Equal(10, table.SpeedupAt(16));
        Assert.Equal(10, table.SpeedupAt(64)); // flat past the last point
    }

    [Fact]
    public void A_measured_one_core_point_overrides_the_implicit_one()
    {
        var table = new ScalabilityTable([new(1, 0.8), new(3, 2.0)]);
        Assert.Equal(0.8, table.SpeedupAt(1));
        Assert.Equal(1.4, table.SpeedupAt(2), 12);
    }

    [Fact]
    public void Whole_machine_table_is_a_line_through_one_and_the_speedup()
    {
        var table = ScalabilityTable.FromWholeMachine(64, 23);
        Assert.Equal(1, table.SpeedupAt(1));
        Assert.Equal(23, table.SpeedupAt(64));
        Assert.Equal(1 + (22.0 * 31 / 63), table.SpeedupAt(32), 12);
    }

    [Fact]
    public void Rejects_bad_points()
    {
        Assert.Throws<ArgumentException>(() => new ScalabilityTable([]));
        Assert.Throws<ArgumentException>(() => new ScalabilityTable([new(0, 1)]));
        Assert.Throws<ArgumentException>(() => new ScalabilityTable([new(4, 2), new(2, 1.5)]));
        Assert.Throws<ArgumentException>(() => new ScalabilityTable([new(2, 1.5), new(2, 1.6)]));
        Assert.Throws<ArgumentException>(() => new ScalabilityTable([new(2, double.NaN)]));
        var e = Assert.Throws<ArgumentException>(() => new ScalabilityTable([new(2, -1)]));
        Assert.Equal("points", e.ParamName);
        Assert.Contains("-1", e.Message, StringComparison.Ordinal);
        Assert.Equal("cores", Assert.Throws<ArgumentOutOfRangeException>(() => new ScalabilityTable([new(2, 1)]).SpeedupAt(-1)).ParamName);
    }

    [Fact]
    public void Equality_is_by_value()
    {
        Assert.Equal(new ScalabilityTable([new(4, 3)]), new ScalabilityTable([new(4, 3)]));
        Assert.NotEqual(new ScalabilityTable([new(4, 3)]), new ScalabilityTable([new(4, 3.1)]));
    }
}
