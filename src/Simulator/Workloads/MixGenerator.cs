using System.Globalization;

namespace DivCon.Simulator.Workloads;

/// <summary>What <see cref="MixGenerator"/> draws from.</summary>
public sealed record MixGeneratorOptions
{
    /// <summary>Recorded programs to draw from (trace names; at least one, unique).</summary>
    public required IReadOnlyList<string> Programs { get; init; }

    /// <summary>The seed: mix i of seed s is the same whatever the count (its id is <c>s{s}-{i}</c>).</summary>
    public int Seed { get; init; } = 1;

    /// <summary>The test's time limit: arrivals fall in its first half, leaving times before it.</summary>
    public TimeSpan TimeLimit { get; init; } = TimeSpan.FromSeconds(60);

    /// <summary>Fewest programs in a mix (at least 1).</summary>
    public int MinPrograms { get; init; } = 2;

    /// <summary>Most programs in a mix (at least <see cref="MinPrograms"/>, at most 64).</summary>
    public int MaxPrograms { get; init; } = 8;

    /// <summary>Deepest subproblem drawn (0: whole problems only; at most 8).</summary>
    public int MaxDepth { get; init; } = 3;

    /// <summary>Share of programs that are the synthetic <see cref="PhasedProgram"/> (0 to 1).</summary>
    public double PhasedShare { get; init; } = 1.0 / 9;

    /// <summary>Checks the options.</summary>
    /// <exception cref="ArgumentException">An option is out of range; the message names it and its value.</exception>
    public void Validate()
    {
        if (Programs is null || Programs.Count == 0 || Programs.Any(string.IsNullOrWhiteSpace) || Programs.Distinct(StringComparer.Ordinal).Count() != Programs.Count)
        {
            throw new ArgumentException($"{nameof(Programs)} must name at least one program, each once (got '{string.Join(",", Programs ?? [])}').", nameof(Programs));
        }

        Check(TimeLimit > TimeSpan.Zero, nameof(TimeLimit), TimeLimit, "must be positive");
        Check(MinPrograms >= 1, nameof(MinPrograms), MinPrograms, "must be at least 1");
        Check(MaxPrograms >= MinPrograms && MaxPrograms <= 64, nameof(MaxPrograms), MaxPrograms, $"must be from {nameof(MinPrograms)} ({MinPrograms}) to 64");
        Check(MaxDepth is >= 0 and <= 8, nameof(MaxDepth), MaxDepth, "must be from 0 to 8");
        Check(PhasedShare is >= 0 and <= 1, nameof(PhasedShare), PhasedShare, "must be from 0 to 1");

        static void Check(bool ok, string name, object value, string rule)
        {
            if (!ok)
            {
                throw new ArgumentOutOfRangeException(name, value, $"{name} {rule}, not {Convert.ToString(value, CultureInfo.InvariantCulture)}.");
            }
        }
    }
}

/// <summary>
/// Generates multiprogram workloads, seeded and deterministic: mixes of <see cref="MixGeneratorOptions.MinPrograms"/>
/// to <see cref="MixGeneratorOptions.MaxPrograms"/> programs drawn from recorded programs at random sizes
/// (<see cref="Subproblem"/>), with late arrivals, departures after a number of runs or at a time, and synthetic
/// programs with a sequential and a parallel phase (<see cref="PhasedProgram"/>).
/// </summary>
/// <remarks>
/// <para>Each mix has its own random stream, seeded from (seed, index), so mix i is the same whether 10 or 100 are
/// generated, and its id <c>s{seed}-{index:000}</c> names it for good (as long as this generator's rules stay; a
/// change to them must change the id's prefix).</para>
/// <para>Draws per mix: the program count uniform in [min, max]; per program: phased with
/// <see cref="MixGeneratorOptions.PhasedShare"/>, else a recorded program uniformly; a depth 0 to
/// <see cref="MixGeneratorOptions.MaxDepth"/> with weights 8:4:2:1... (whole problems most often) and a path of that
/// many uniform steps; an arrival at 0 (half the programs, and always the first) or uniform in the limit's first half;
/// a departure: none (a third), after 1-5 runs (a third), or at a uniform time between its arrival and the limit (a
/// third; at least a fifth of the remaining time). A phased program: sequential phase 0.2-1 s, 256 or 1024 leaves of
/// 0.5-4 ms. Programs are sorted by arrival (ties keep drawing order); repeated names get <c>#2</c>, <c>#3</c>.</para>
/// </remarks>
public static class MixGenerator
{
    /// <summary>Generates <paramref name="count"/> mixes.</summary>
    /// <param name="count">How many (at least 1).</param>
    /// <param name="options">What to draw from.</param>
    /// <returns>The mixes, by index.</returns>
    /// <exception cref="ArgumentOutOfRangeException">The count or an option is out of range.</exception>
    public static IReadOnlyList<Mix> Generate(int count, MixGeneratorOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        options.Validate();
        return [.. Enumerable.Range(0, count).Select(i => One(i, options))];
    }

    /// <summary>Mix <paramref name="index"/> of the options' seed.</summary>
    /// <param name="index">Its index (not negative).</param>
    /// <param name="options">What to draw from.</param>
    /// <returns>The mix.</returns>
    public static Mix One(int index, MixGeneratorOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        options.Validate();
        // Seeded System.Random is the same sequence on every runtime; the stream of mix i depends on (seed, i) only.
        var random = new Random(unchecked((options.Seed * 1_000_003) + (index * 7_919) + 17));
        int n = random.Next(options.MinPrograms, options.MaxPrograms + 1);
        double limit = options.TimeLimit.TotalSeconds;
        var drawn = new List<MixProgram>(n);
        for (int i = 0; i < n; i++)
        {
            bool phased = random.NextDouble() < options.PhasedShare;
            string program = phased ? PhasedProgram.Kind : options.Programs[random.Next(options.Programs.Count)];
            PhasedProgram? shape = null;
            IReadOnlyList<double> path = [];
            if (phased)
            {
                shape = new PhasedProgram(
                    Seconds(0.2 + (0.8 * random.NextDouble())),
                    random.Next(2) == 0 ? 256 : 1024,
                    Seconds((0.5 + (3.5 * random.NextDouble())) / 1000));
            }
            else
            {
                int depth = Depth(random, options.MaxDepth);
                path = [.. Enumerable.Range(0, depth).Select(_ => random.NextDouble())];
            }

            double arrival = i == 0 || random.Next(2) == 0 ? 0 : 0.5 * limit * random.NextDouble();
            int? maxRuns = null;
            TimeSpan? leaveAt = null;
            switch (random.Next(3))
            {
                case 1:
                    maxRuns = random.Next(1, 6);
                    break;
                case 2:
                    leaveAt = Seconds(arrival + ((limit - arrival) * (0.2 + (0.8 * random.NextDouble()))));
                    break;
            }

            drawn.Add(new MixProgram(program, program, path, shape, Seconds(arrival), maxRuns, leaveAt));
        }

        // By arrival (a stable sort: ties keep their drawing order), then unique names.
        var ordered = drawn.Select((p, i) => (p, i)).OrderBy(x => x.p.Arrival).ThenBy(x => x.i).Select(x => x.p).ToList();
        var seen = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < ordered.Count; i++)
        {
            var p = ordered[i];
            string baseName = p.Phased is not null ? PhasedProgram.Kind : p.Path.Count == 0 ? p.Program : string.Create(CultureInfo.InvariantCulture, $"{p.Program}/d{p.Path.Count}");
            int k = seen[baseName] = seen.GetValueOrDefault(baseName) + 1;
            ordered[i] = p with { Name = k == 1 ? baseName : string.Create(CultureInfo.InvariantCulture, $"{baseName}#{k}") };
        }

        string id = string.Create(CultureInfo.InvariantCulture, $"s{options.Seed}-{index:000}");
        string description = string.Create(CultureInfo.InvariantCulture, $"{ordered.Count} programs: ") + string.Join("; ", ordered.Select(p => p.Describe()));
        return new Mix(id, description, ordered);
    }

    /// <summary>Depth d with weight 2^(max - d): the whole problem most often.</summary>
    private static int Depth(Random random, int max)
    {
        int total = (1 << (max + 1)) - 1;
        int draw = random.Next(total);
        for (int d = 0; d <= max; d++)
        {
            int weight = 1 << (max - d);
            if (draw < weight)
            {
                return d;
            }

            draw -= weight;
        }

        return max;
    }

    private static TimeSpan Seconds(double s) => TimeSpan.FromTicks((long)Math.Round(s * TimeSpan.TicksPerSecond));
}
