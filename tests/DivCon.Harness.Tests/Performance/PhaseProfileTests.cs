using DivCon.Harness.Performance;

namespace DivCon.Harness.Tests.Performance;

public class PhaseProfileTests
{
    private static TimeSpan Ms(double ms) => TimeSpan.FromMilliseconds(ms);

    [Fact]
    public void Observations_accumulate_per_level_and_phase()
    {
        var profile = new PhaseProfile();
        profile.Add(DcPhase.Split, 0, Ms(5));
        profile.Add(DcPhase.Split, 1, Ms(2));
        profile.Add(DcPhase.Split, 1, Ms(3));
        profile.Add(DcPhase.Execute, 2, Ms(10));
        profile.Add(DcPhase.Execute, 2, Ms(12));
        profile.Add(DcPhase.Merge, 1, Ms(1));
        profile.Add(DcPhase.Merge, 0, Ms(4));

        IReadOnlyList<PhaseLevelTimes> levels = profile.Levels();
        Assert.Equal([0, 1, 2], levels.Select(l => l.Level));
        Assert.Equal(new PhaseLevelTimes(0, Ms(5), TimeSpan.Zero, Ms(4), 2), levels[0]);
        Assert.Equal(new PhaseLevelTimes(1, Ms(5), TimeSpan.Zero, Ms(1), 3), levels[1]);
        Assert.Equal(new PhaseLevelTimes(2, TimeSpan.Zero, Ms(22), TimeSpan.Zero, 2), levels[2]);
        Assert.Equal(Ms(22), profile.TotalExecute);
    }

    [Fact]
    public void Concurrent_adds_are_all_counted()
    {
        var profile = new PhaseProfile();
        Parallel.For(0, 10_000, i => profile.Add(DcPhase.Execute, i % 3, TimeSpan.FromTicks(1)));

        Assert.Equal(10_000, profile.Levels().Sum(l => l.Count));
        Assert.Equal(TimeSpan.FromTicks(10_000), profile.TotalExecute);
    }

    [Fact]
    public void Bad_observations_are_rejected()
    {
        var profile = new PhaseProfile();
        Assert.Throws<ArgumentOutOfRangeException>(() => profile.Add(DcPhase.Split, -1, Ms(1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => profile.Add(DcPhase.Split, 0, Ms(-1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => profile.Add((DcPhase)7, 0, Ms(1)));
    }
}
