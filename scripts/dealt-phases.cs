#:project ../src/Skeletons/DivCon.Skeletons.csproj
#:property PublishAot=false

// Phases shaped as sparse LU's at 50 blocks (a phase of m operations of 85 us, then one of (m/2)^2 of 145 us, for m =
// 50, 48, ..., 2, each followed by 60 us of sequential work), whose operations spin instead of computing, so that the
// only thing that differs between the variants is how they run a phase: DivCon's ForRangesAsync (a dealt loop once
// the operations' cost is known), Task.Run / Task.WhenAll, or Parallel.Invoke. The variants named run phase by phase
// in turn (interleaved, the order reversed every pass), on the .NET thread pool, 30 passes of which the first 2 warm up;
// prints the mean time per pass against the ideal (every phase split evenly over 2 CPUs) and the pool's thread count at
// the end. Run one variant alone to see what it does to the pool: its thread count is then its own.
// --min-threads N first raises the pool's minimum to N threads, as a process whose other code waits inside pool
// threads would have it (the BOTS suite's one process reaches 11 on 2 CPUs).
// Usage: dotnet run scripts/dealt-phases.cs -c Release -- [--min-threads N] [divcon] [task-run] [parallel-invoke]
using System.Diagnostics;
using System.Globalization;
using DivCon.Skeletons;

if (args.Length > 0 && args[0] == "--min-threads")
{
    if (args.Length < 2 || !int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out int minimum) || minimum < 1
        || !ThreadPool.SetMinThreads(minimum, minimum))
    {
        Console.Error.WriteLine($"error: --min-threads needs a thread count the pool accepts (got '{(args.Length < 2 ? "" : args[1])}').");
        return 2;
    }

    args = args[2..];
}

string[] variants = args.Length > 0 ? args : ["divcon", "task-run", "parallel-invoke"];
foreach (string variant in variants)
{
    if (variant is not ("divcon" or "task-run" or "parallel-invoke"))
    {
        Console.Error.WriteLine($"error: unknown variant '{variant}' (known: divcon, task-run, parallel-invoke).");
        return 2;
    }
}

const int Passes = 30, Warmup = 2;
const double SequentialMicroseconds = 60;
object[] costKeys = [new(), new()];
var phases = new List<(int Operations, double Microseconds, int CostKey)>();
for (int m = 50; m >= 2; m -= 2)
{
    phases.Add((m, 85, 0));
    phases.Add(((m / 2) * (m / 2), 145, 1));
}

var total = variants.ToDictionary(v => v, _ => 0.0);
await Task.Run(async () =>
{
    for (int pass = 0; pass < Passes; pass++)
    {
        foreach (var (operations, microseconds, key) in phases)
        {
            foreach (string variant in pass % 2 == 0 ? variants : variants.Reverse())
            {
                long start = Stopwatch.GetTimestamp();
                await RunPhaseAsync(variant, operations, microseconds, costKeys[key]).ConfigureAwait(false);
                Spin(SequentialMicroseconds);
                if (pass >= Warmup)
                {
                    total[variant] += Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                }
            }
        }
    }
});

double ideal = phases.Sum(p => (Math.Ceiling(p.Operations / 2.0) * p.Microseconds + SequentialMicroseconds) / 1000);
var inv = CultureInfo.InvariantCulture;
Console.WriteLine(string.Create(inv, $"{Environment.ProcessorCount} CPUs, .NET {Environment.Version}, {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC; ideal pass {ideal:0.0} ms (2 CPUs)"));
foreach (string variant in variants)
{
    double perPass = total[variant] / (Passes - Warmup);
    Console.WriteLine(string.Create(inv, $"{variant,-16} {perPass,7:0.0} ms per pass ({perPass / ideal:0.000} of ideal)"));
}

Console.WriteLine(string.Create(inv, $"pool threads at the end: {ThreadPool.ThreadCount}"));
return 0;

static Task RunPhaseAsync(string variant, int operations, double microseconds, object costKey) => variant switch
{
    "divcon" => DivideAndConquer.ForRangesAsync(0, operations, range =>
    {
        for (int i = range.Start; i < range.End; i++)
        {
            Spin(microseconds);
        }
    }, options: null, costKey).AsTask(),
    "task-run" => Task.WhenAll(Enumerable.Range(0, operations).Select(_ => Task.Run(() => Spin(microseconds)))),
    _ => InvokeAll(operations, microseconds),
};

// Parallel.Invoke on the calling pool thread, which takes part and waits, as the kernels' variant does.
static Task InvokeAll(int operations, double microseconds)
{
    Parallel.Invoke([.. Enumerable.Range(0, operations).Select(_ => (Action)(() => Spin(microseconds)))]);
    return Task.CompletedTask;
}

static void Spin(double microseconds)
{
    long end = Stopwatch.GetTimestamp() + (long)(microseconds * Stopwatch.Frequency / 1e6);
    while (Stopwatch.GetTimestamp() < end)
    {
    }
}
