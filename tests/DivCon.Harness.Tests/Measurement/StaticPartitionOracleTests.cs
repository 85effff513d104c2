using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Measurement;

public class StaticPartitionOracleTests
{
    private static SpeedupTable Table(string name, params double[] speedups) =>
        new(name, speedups.Select((s, i) => (Cores: i + 1, Speedup: s)).ToDictionary(p => p.Cores, p => p.Speedup));

    [Fact]
    public void Linear_program_gets_the_cores_a_flat_one_cannot_use()
    {
        // N = 4. NP_lin(c) = c/4; NP_flat = S(c)/1.4.
        // (3,1): 0.75 + 1/1.4 = 1.464; (2,2): 0.5 + 1.2/1.4 = 1.357; (1,3): 0.25 + 1.3/1.4 = 1.179.
        OracleResult result = StaticPartitionOracle.Solve([Table("lin", 1, 2, 3, 4), Table("flat", 1, 1.2, 1.3, 1.4)], 4);

        Assert.Equal([3, 1], result.Shares.Select(s => s.Cores));
        Assert.Equal(0.75 + (1 / 1.4), result.Stp, 12);
        Assert.Equal(0.75, result.Shares[0].NormalizedProgress, 12);
        Assert.Equal("flat", result.Shares[1].Program);
    }

    [Fact]
    public void Identical_linear_programs_split_evenly_enough_and_reach_stp_one()
    {
        // Linear speedup: any partition using all cores gives STP = Σ c_i / N = 1.
        OracleResult result = StaticPartitionOracle.Solve([Table("a", 1, 2, 3, 4, 5, 6), Table("b", 1, 2, 3, 4, 5, 6)], 6);

        Assert.Equal(1.0, result.Stp, 12);
        Assert.Equal(6, result.Shares.Sum(s => s.Cores));
    }

    [Fact]
    public void Three_saturating_programs_on_six_cores()
    {
        // Each saturates at 2 cores: S = 1, 2, 2, 2, 2, 2. Best: 2 cores each, every NP = 1, STP = 3.
        OracleResult result = StaticPartitionOracle.Solve(
            [Table("x", 1, 2, 2, 2, 2, 2), Table("y", 1, 2, 2, 2, 2, 2), Table("z", 1, 2, 2, 2, 2, 2)], 6);

        Assert.Equal([2, 2, 2], result.Shares.Select(s => s.Cores));
        Assert.Equal(3.0, result.Stp, 12);
    }

    [Fact]
    public void A_table_that_falls_may_leave_cores_unused()
    {
        // S = 1, 3, 2: two cores beat three. With one program on 3 cores: NP(2) = 3/2 > NP(3) = 1.
        OracleResult result = StaticPartitionOracle.Solve([Table("peaky", 1, 3, 2)], 3);

        Assert.Equal(2, result.Shares[0].Cores);
        Assert.Equal(1.5, result.Stp, 12);
    }

    [Fact]
    public void Dynamic_programme_matches_brute_force_on_random_tables()
    {
        var random = new Random(20260101);
        for (int trial = 0; trial < 50; trial++)
        {
            int m = random.Next(1, 4);
            int n = random.Next(m, 9);
            var tables = new List<SpeedupTable>();
            for (int p = 0; p < m; p++)
            {
                double s = 0;
                tables.Add(Table($"p{p}", Enumerable.Range(1, n).Select(_ => s += random.NextDouble()).ToArray()));
            }

            OracleResult result = StaticPartitionOracle.Solve(tables, n);
            double bruteForce = BruteForce(tables, n, 0, n);

            Assert.Equal(bruteForce, result.Stp, 9);
            Assert.True(result.Shares.Sum(s => s.Cores) <= n);
            Assert.All(result.Shares, s => Assert.True(s.Cores >= 1));
            Assert.Equal(result.Stp, result.Shares.Sum(s => s.NormalizedProgress), 9);
        }
    }

    [Fact]
    public void Fraction_of_oracle_divides_by_the_oracle_stp()
    {
        OracleResult result = StaticPartitionOracle.Solve([Table("lin", 1, 2, 3, 4), Table("flat", 1, 1.2, 1.3, 1.4)], 4);

        Assert.Equal(1.2 / result.Stp, result.FractionOfOracle(1.2), 12);
        Assert.Throws<ArgumentOutOfRangeException>(() => result.FractionOfOracle(0));
    }

    [Fact]
    public void Bad_inputs_are_rejected()
    {
        SpeedupTable a = Table("a", 1, 2);
        Assert.Throws<ArgumentException>(() => StaticPartitionOracle.Solve([], 2));
        Assert.Throws<ArgumentException>(() => StaticPartitionOracle.Solve([a, a], 2));
        Assert.Throws<ArgumentOutOfRangeException>(() => StaticPartitionOracle.Solve([a, Table("b", 1, 2)], 1));
        var shortTable = Assert.Throws<ArgumentException>(() => StaticPartitionOracle.Solve([a], 4));
        Assert.Contains("stops at 2 cores", shortTable.Message, StringComparison.Ordinal);
    }

    private static double BruteForce(List<SpeedupTable> tables, int n, int index, int remaining)
    {
        if (index == tables.Count)
        {
            return 0;
        }

        double best = double.NegativeInfinity;
        int reserve = tables.Count - index - 1;
        for (int c = 1; c <= remaining - reserve; c++)
        {
            double np = tables[index].SpeedupAt(c) / tables[index].SpeedupAt(n);
            best = Math.Max(best, np + BruteForce(tables, n, index + 1, remaining - c));
        }

        return best;
    }
}
