using DivCon.Harness.Performance;

namespace DivCon.Harness.Tests.Performance;

public class PhaseProfileAddManyTests
{
    [Fact]
    public void Adds_an_aggregated_cell_as_that_many_invocations()
    {
        var profile = new PhaseProfile();
        profile.AddMany(DcPhase.Execute, 3, TimeSpan.FromMilliseconds(80), 8);
        profile.Add(DcPhase.Split, 3, TimeSpan.FromMilliseconds(2));
        PhaseLevelTimes level = Assert.Single(profile.Levels());
        Assert.Equal(3, level.Level);
        Assert.Equal(TimeSpan.FromMilliseconds(80), level.Execute);
        Assert.Equal(TimeSpan.FromMilliseconds(2), level.Split);
        Assert.Equal(9, level.Count);
    }

    [Fact]
    public void Rejects_bad_cells()
    {
        var profile = new PhaseProfile();
        Assert.Throws<ArgumentOutOfRangeException>(() => profile.AddMany(DcPhase.Merge, -1, TimeSpan.Zero, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => profile.AddMany(DcPhase.Merge, 0, TimeSpan.FromTicks(-1), 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => profile.AddMany(DcPhase.Merge, 0, TimeSpan.Zero, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => profile.AddMany((DcPhase)7, 0, TimeSpan.Zero, 1));
        Assert.Empty(profile.Levels());
    }
}
