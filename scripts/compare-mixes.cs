#:project ../src/Simulator/DivCon.Simulator.csproj
#:property PublishAot=false

// Judges one scheme's rerun of simulate-mixes against a stored run's other schemes: the rerun's rows replace the stored
// ones of every scheme the rerun has (rerun only the schemes a change touches: the others' figures stand; several
// rerun folders may be given, comma-separated, e.g. the judged scheme's and the other partitioning schemes'), and the aggregate is
// MixAggregate's (wins, near-best, geo-mean and worst STP over the best other scheme), per core count. Also prints the
// thesis mixes' STP and ANTT against the best other scheme, and every generated mix where the scheme is not near-best,
// with both schemes' worst NTT (the worst-served program's: a higher STP bought by starving one program shows there),
// and the scheme against each other scheme alone (pairwise: how often it is at least as good as that one), and the mixes
// where the best partitioning scheme (the rerun's included) is more than 1% behind the best scheme: a bound on what any of
// those policies reached there; and on how many mixes the best partitioning scheme, chosen per mix with hindsight, is
// near-best (the same bound as a count).
// Usage: dotnet run scripts/compare-mixes.cs -c Release -- <stored folder> <rerun folder>[,<rerun folder>...] [scheme=dynamic]
// e.g.  dotnet run scripts/compare-mixes.cs -c Release -- results/simulated-mixes-50-s1 results/dynamic-rerun
using System.Globalization;
using DivCon.Simulator;
using DivCon.Simulator.Workloads;

if (args.Length < 2)
{
    Console.Error.WriteLine("usage: compare-mixes.cs <stored folder> <rerun folder> [scheme=dynamic]");
    return 1;
}

string scheme = args.Length > 2 ? args[2] : "dynamic";
var stored = Read(Path.Combine(args[0], "outcomes.csv"));
var rerun = args[1].Split(',').SelectMany(folder => Read(Path.Combine(folder, "outcomes.csv"))).ToList();
if (!rerun.Any(o => o.Scheme == scheme))
{
    Console.Error.WriteLine($"error: no outcomes.csv of {args[1]} has a row of scheme '{scheme}'.");
    return 1;
}

var replaced = rerun.Select(o => o.Scheme).ToHashSet();
var merged = stored.Where(o => !replaced.Contains(o.Scheme)).Concat(rerun).ToList();
string[] schemes = [.. merged.Select(o => o.Scheme).Distinct()];
var inv = CultureInfo.InvariantCulture;
foreach (var byCores in merged.GroupBy(o => o.Cores).OrderBy(g => g.Key))
{
    var generated = byCores.Where(o => !o.Mix.StartsWith("thesis", StringComparison.Ordinal)).ToList();
    var line = MixAggregate.Compute(generated, schemes).Single(a => a.Scheme == scheme);
    Console.WriteLine(string.Create(inv,
        $"{byCores.Key} cores: {line.Mixes} mixes, wins {line.Wins}, near-best {line.NearBest}, geo-mean {line.GeoMeanRatio:0.000}, worst {line.WorstRatio:0.000} ({line.WorstMix}), moves/s {line.MovesPerSecond:0.0}"));
    // Against each other scheme alone: MixAggregate over the two schemes' rows of the mixes where both are complete,
    // so its wins are the mixes where the scheme's STP is at least that one's, its near-best those where it is near
    // that one (at least its STP, or within 1% STP and 2% ANTT of it), and its geo-mean that of the STP ratios.
    var pairs = new List<string>();
    foreach (string other in schemes.Where(s => s != scheme))
    {
        var both = generated.Where(o => o.Scheme == scheme || o.Scheme == other).GroupBy(o => o.Mix)
            .Where(g => g.Count(o => !double.IsNaN(o.Stp)) == 2)
            .SelectMany(g => g)
            .ToList();
        if (both.Count == 0)
        {
            continue;
        }

        var pair = MixAggregate.Compute(both, [scheme, other])[0];
        pairs.Add(string.Create(inv, $"{other} {pair.Wins}/{pair.NearBest}/{pair.Mixes} {pair.GeoMeanRatio:0.000}"));
    }

    Console.WriteLine($"  against each alone (STP at least / near / mixes, geo-mean STP ratio): {string.Join("; ", pairs)}");

    // What no partitioning policy among those run reached: mixes where the best of them, the rerun's included, is more
    // than 1% behind the best scheme (one without partitions: the shared pool, the .NET pool, oversubscription).
    var beyond = new List<string>();
    foreach (var mix in generated.Where(o => !double.IsNaN(o.Stp)).GroupBy(o => o.Mix).OrderBy(g => g.Key, StringComparer.Ordinal))
    {
        var partitioned = mix.Where(o => SimulatedSchemes.Parse(o.Scheme).Partitions()).ToList();
        if (partitioned.Count == 0)
        {
            continue;
        }

        var best = mix.MaxBy(o => o.Stp)!;
        double ratio = partitioned.Max(o => o.Stp) / best.Stp;
        if (ratio < 1 - MixAggregate.StpTolerance)
        {
            beyond.Add(string.Create(inv, $"{mix.Key} {ratio:0.000} ({best.Scheme})"));
        }
    }

    Console.WriteLine($"  every partitioning scheme more than 1% behind on {beyond.Count}: {string.Join(", ", beyond)}");

    // The same bound as near-best counts: a choice among the partitioning schemes made per mix with hindsight is
    // near-best (against every scheme, itself included) on this many mixes; no policy among those run does better.
    int reachable = generated.Where(o => !double.IsNaN(o.Stp)).GroupBy(o => o.Mix).Count(mix =>
    {
        double bestStp = mix.Max(o => o.Stp), bestAntt = mix.Min(o => o.Antt);
        return mix.Any(o => SimulatedSchemes.Parse(o.Scheme).Partitions() && MixAggregate.IsNearBest(o.Stp, o.Antt, bestStp, bestAntt));
    });
    Console.WriteLine($"  the best partitioning scheme per mix, chosen with hindsight, is near-best on {reachable}");
    foreach (var mix in byCores.GroupBy(o => o.Mix).OrderBy(g => g.Key, StringComparer.Ordinal))
    {
        var own = mix.FirstOrDefault(o => o.Scheme == scheme);
        var others = mix.Where(o => o.Scheme != scheme && !double.IsNaN(o.Stp)).ToList();
        if (own is null || others.Count == 0)
        {
            continue;
        }

        var best = others.MaxBy(o => o.Stp)!;
        double bestStp = Math.Max(best.Stp, own.Stp), bestAntt = Math.Min(others.Min(o => o.Antt), own.Antt);
        bool near = MixAggregate.IsNearBest(own.Stp, own.Antt, bestStp, bestAntt);
        if (mix.Key.StartsWith("thesis", StringComparison.Ordinal) || !near)
        {
            Console.WriteLine(string.Create(inv,
                $"  {(near ? "   " : "NOT")} {mix.Key,-14} STP {own.Stp:0.000} vs {best.Scheme} {best.Stp:0.000} ({own.Stp / best.Stp:0.000}); ANTT {own.Antt:0.000} vs best other {others.Min(o => o.Antt):0.000}; worst NTT {own.WorstNtt:0.00} vs {best.WorstNtt:0.00}"));
        }
    }
}

return 0;

static List<MixOutcome> Read(string path)
{
    var rows = new List<MixOutcome>();
    foreach (string line in File.ReadLines(path).Skip(1))
    {
        string[] f = line.Split(',');
        double D(int i) => double.Parse(f[i], CultureInfo.InvariantCulture);
        rows.Add(new MixOutcome(f[0], int.Parse(f[1], CultureInfo.InvariantCulture), f[2], D(3), D(4), D(5), D(6), D(7)));
    }

    return rows;
}
