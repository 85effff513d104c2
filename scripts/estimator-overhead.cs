#:project ../src/Programs/DivCon.Programs.csproj
#:project ../src/Schedulers/DivCon.Schedulers.csproj
#:property PublishAot=false

// What the online scalability estimator costs a program running alone on the multiprogram scheduler: the same
// program under the default (learned policy, estimator sampled every 10 ms between decisions) and under the thesis's
// task-availability policy with no sampling between decisions (the scheduler before the estimator existed), and the
// learned policy without the sampling, to tell the two costs apart. Blocks rotate (ABCABC...) so that drift hits both alike; each block
// times `runs` runs after one warm-up run. Prints each setting's mean run time with a 99% interval and the difference.
// Usage: dotnet run scripts/estimator-overhead.cs -c Release -- [program=quicksort] [preset=thesis|quick] [blocks=10] [runs=5]
using System.Diagnostics;
using System.Globalization;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Policies;

var inv = CultureInfo.InvariantCulture;
string name = args.Length > 0 ? args[0] : "quicksort";
SizePreset preset = args.Length > 1 && args[1] == "quick" ? SizePreset.Quick : SizePreset.Thesis;
int blocks = args.Length > 2 ? int.Parse(args[2], inv) : 10;
int runs = args.Length > 3 ? int.Parse(args[3], inv) : 5;
var program = ProgramCatalog.Create(name, preset);
string load = File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Split(' ')[0] : "?";
Console.WriteLine(string.Create(inv, $"{name} ({preset}), {Environment.ProcessorCount} CPUs, .NET {Environment.Version}, {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, load {load}; {blocks} blocks of {runs} runs per setting"));

string[] settings = ["default (learned, sampled every 10 ms)", "learned, sampled at decisions only", "task-availability, no sampling"];
var times = settings.ToDictionary(s => s, _ => new List<double>());
for (int block = 0; block < 3 * blocks; block++)
{
    int setting = block % 3;
    bool sampled = setting == 0;
    using var pool = new MultiprogramScheduler(new MultiprogramSchedulerOptions
    {
        EstimatorSampleInterval = sampled ? TimeSpan.FromMilliseconds(10) : Timeout.InfiniteTimeSpan,
        Policy = setting == 2 ? new TaskAvailabilityPolicy() : null,
    });
    using var scheduler = pool.Register(name);
    program.RunParallelAsync(scheduler).GetAwaiter().GetResult(); // warm-up
    for (int r = 0; r < runs; r++)
    {
        long start = Stopwatch.GetTimestamp();
        program.RunParallelAsync(scheduler).GetAwaiter().GetResult();
        times[settings[setting]].Add(Stopwatch.GetElapsedTime(start).TotalSeconds);
    }
}

double Mean(List<double> x) => x.Average();
double HalfWidth(List<double> x)
{
    double m = Mean(x);
    double sd = Math.Sqrt(x.Sum(v => (v - m) * (v - m)) / (x.Count - 1));
    return 2.6 * sd / Math.Sqrt(x.Count); // ~99% for n >= 30 (t quantile 2.58-2.76)
}

foreach (var (setting, x) in times)
{
    Console.WriteLine(string.Create(inv, $"{setting}: {Mean(x):0.0000} s +- {HalfWidth(x):0.0000} (n={x.Count})"));
}

double baseline = Mean(times[settings[2]]);
foreach (string setting in settings.Take(2))
{
    Console.WriteLine(string.Create(inv, $"{setting} against {settings[2]}: {(Mean(times[setting]) / baseline) - 1:+0.00%;-0.00%}"));
}
return 0;
