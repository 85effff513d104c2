#:project ../src/Programs/DivCon.Programs.csproj
#:project ../src/Schedulers/DivCon.Schedulers.csproj
#:property PublishAot=false

// A/B of the long-sweep limit on one or more workers: each program alternates runs with the default
// MaximumSweepLength (2^19: long partitions, merges and matrix sums in parallel blocks) and with an unlimited one
// (the programs as they were: one task per sweep), on the same data in the same process, so machine load hits both
// alike. Usage: dotnet run scripts/sweep-ab.cs -c Release -- [sortLength=16777216] [order=1024] [pairs=3] [workers=1] [programs=quicksort,mergesort,strassen]
using System.Diagnostics;
using System.Globalization;
using DivCon.Programs.Data;
using DivCon.Programs.Matrices;
using DivCon.Programs.Sorting;
using DivCon.Schedulers;
using DivCon.Skeletons;

int sortLength = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 1 << 24;
int order = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 1024;
int pairs = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 3;
int workers = args.Length > 3 ? int.Parse(args[3], CultureInfo.InvariantCulture) : 1;
string[] only = args.Length > 4 ? args[4].Split(',') : ["quicksort", "mergesort", "strassen"];
using var scheduler = new WorkStealingTaskScheduler(workers);
var options = DivideAndConquerOptions.Default with { Scheduler = scheduler };
var source = SeededData.UniformInts(sortLength, 1, 0, int.MaxValue);
var left = SquareMatrix.Random(order, 1, 0, 1024);
var right = SquareMatrix.Random(order, 1, 1, 1024);
var output = new int[sortLength];

var programs = new (string Name, Func<int, Func<Task>> Create)[]
{
    ("quicksort", limit => { var q = new Quicksort(source, output) { MaximumSweepLength = limit }; return () => q.RunAsync(q.WholeProblem, options); }),
    ("mergesort", limit => { var m = new Mergesort(source, output) { MaximumSweepLength = limit }; return () => m.RunAsync(m.WholeRange, options); }),
    ("strassen", limit => { var s = new StrassenMultiplication { MaximumSweepLength = limit }; return () => s.RunAsync(new StrassenProblem(left, right), options); }),
};
Console.WriteLine($"workers={workers} sort={sortLength} order={order} pairs={pairs}");
Console.WriteLine("program,limit,median_s,runs_s");
foreach (var (name, create) in programs.Where(p => only.Contains(p.Name)))
{
    var variants = new[] { (Label: "2^19", Run: create(1 << 19)), (Label: "none", Run: create(int.MaxValue)) };
    var times = variants.ToDictionary(v => v.Label, _ => new List<double>());
    foreach (var v in variants)
    {
        await v.Run(); // warm-up (JIT, scratch buffers)
    }

    for (int p = 0; p < pairs; p++)
    {
        foreach (var v in p % 2 == 0 ? variants : variants.Reverse())
        {
            long start = Stopwatch.GetTimestamp();
            await v.Run();
            times[v.Label].Add(Stopwatch.GetElapsedTime(start).TotalSeconds);
        }
    }

    foreach (var (label, list) in times)
    {
        var sorted = list.Order().ToList();
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{name},{label},{sorted[sorted.Count / 2]:F3},{string.Join(' ', list.Select(t => t.ToString("F3", CultureInfo.InvariantCulture)))}"));
    }
}
