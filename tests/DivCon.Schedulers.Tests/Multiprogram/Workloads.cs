using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>Builders for policy inputs.</summary>
internal static class Workloads
{
    /// <summary>A snapshot with programs P0, P1, ... of the given speedups and available tasks, holding no cores.</summary>
    public static AllocationSnapshot Snapshot(int cores, double[] speedups, int[]? available = null) =>
        new(cores, speedups.Select((s, i) => new ProgramState(new ProgramId(i), s, available?[i] ?? 1_000_000, 0)));

    /// <summary>A seeded random workload: 1..maxPrograms programs, speedups in [0.5, cores], availability in [0, 2 x cores].</summary>
    public static AllocationSnapshot Random(Random random, int maxCores = 128, int maxPrograms = 10)
    {
        int cores = random.Next(1, maxCores + 1);
        int m = random.Next(1, maxPrograms + 1);
        var programs = new ProgramState[m];
        for (int i = 0; i < m; i++)
        {
            double speedup = 0.5 + (random.NextDouble() * cores);
            if (random.Next(4) == 0 && i > 0)
            {
                speedup = programs[random.Next(i)].Speedup; // exact ties exercise the tie-breaks
            }

            int available = random.Next(3) switch
            {
                0 => random.Next(0, 3),
                1 => random.Next(0, cores + 1),
                _ => random.Next(0, (2 * cores) + 1),
            };
            programs[i] = new ProgramState(new ProgramId(i * 7), speedup, available, random.Next(0, cores + 1));
        }

        return new AllocationSnapshot(cores, programs);
    }
}
