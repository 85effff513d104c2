#:project ../src/Programs/DivCon.Programs.csproj
#:project ../src/Schedulers/DivCon.Schedulers.csproj
#:property PublishAot=false

// The online estimator on the real scheduler against the offline profile: each program runs alone, run after run, on
// a default MultiprogramScheduler over every CPU (no profile given), and its estimated efficiency on all the CPUs,
// S(n) / n, is read 0.5, 1 and 2 s after registration; the offline value is the profile's, T(1 core) / T(n) / n, from
// the store the harness measured (results/profiles.json, same machine). Prints each program's figures and the error.
// Usage: dotnet run scripts/estimation-real.cs -c Release -- [profiles=results/profiles.json] [preset=thesis|quick] [programs=sumsq,pi,strassen,quicksort,mergesort]
using System.Diagnostics;
using System.Globalization;
using DivCon.Programs;
using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Profiling;

var inv = CultureInfo.InvariantCulture;
string profilesPath = args.Length > 0 ? args[0] : "results/profiles.json";
SizePreset preset = args.Length > 1 && args[1] == "quick" ? SizePreset.Quick : SizePreset.Thesis;
string[] names = (args.Length > 2 ? args[2] : "sumsq,pi,strassen,quicksort,mergesort").Split(',');
var store = ScalabilityProfileFile.Load(profilesPath);
string load = File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Split(' ')[0] : "?";
Console.WriteLine(string.Create(inv, $"{Environment.ProcessorCount} CPUs, .NET {Environment.Version}, {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, load {load}; profiles {profilesPath}"));
Console.WriteLine("program | size | profiled efficiency | estimated at 0.5 s | 1 s | 2 s | error at 2 s");
double[] marks = [0.5, 1, 2];
foreach (string name in names)
{
    var program = ProgramCatalog.Create(name, preset);
    if (!store.TryGet(name, program.ProblemSize.ToString(inv), out var profile))
    {
        Console.WriteLine($"{name} | {program.ProblemSize} | no profile in {profilesPath}: skipped");
        continue;
    }

    using var pool = new MultiprogramScheduler(new MultiprogramSchedulerOptions());
    int n = pool.WorkerCount;
    var times = profile.ParallelTimes.ToDictionary(t => t.Cores, t => t.Time.TotalSeconds);
    if (!times.TryGetValue(1, out double one) || !times.TryGetValue(n, out double all))
    {
        Console.WriteLine($"{name} | {program.ProblemSize} | the profile has no 1- and {n}-core times: skipped");
        continue;
    }

    double profiled = one / all / n;
    using var scheduler = pool.Register(name);
    var clock = Stopwatch.StartNew();
    var seen = new double[marks.Length];
    int next = 0;
    using var stop = new CancellationTokenSource();
    var loop = Task.Run(async () =>
    {
        while (!stop.IsCancellationRequested)
        {
            await program.RunParallelAsync(scheduler);
        }
    });
    while (next < marks.Length)
    {
        Thread.Sleep(TimeSpan.FromSeconds(marks[next]) - clock.Elapsed is { } wait && wait > TimeSpan.Zero ? wait : TimeSpan.Zero);
        seen[next++] = scheduler.Estimate.EfficiencyAt(n);
    }

    stop.Cancel();
    loop.GetAwaiter().GetResult();
    double error = (seen[^1] - profiled) / profiled;
    Console.WriteLine(string.Create(inv, $"{name} | {program.ProblemSize} | {profiled:0.000} | {seen[0]:0.000} | {seen[1]:0.000} | {seen[2]:0.000} | {error:+0.0%;-0.0%}"));
}
