#:project ../src/Programs/DivCon.Programs.csproj
#:project ../src/Schedulers/DivCon.Schedulers.csproj
#:property PublishAot=false

// How many threads the .NET thread pool runs while the cyclic workload runs on TaskScheduler.Default (the `default`
// scheme), and why it changes them. The programs restart the moment they finish, as the harness's CyclicRunner does
// (an async loop per program, each run awaited with ConfigureAwait(false), so the next run starts on the pool thread
// that completed the previous one). A dedicated (non-pool) thread samples ThreadPool.ThreadCount, PendingWorkItemCount
// and CompletedWorkItemCount every 100 ms; an in-process EventListener records the runtime's thread-pool events
// (worker start/stop, hill-climbing adjustments with their reason: Warmup, ClimbingMove, Starvation, ...).
// With scheduler=shared the same loops run on one DivCon WorkStealingTaskScheduler (a worker per CPU, unpinned) shared
// by all programs, for comparison: its runs' continuations run on the .NET pool, outside the scheduler, so each next
// root goes to the scheduler's global queue.
// Usage: dotnet run scripts/pool-threads.cs -c Release -- [seconds=30] [preset=thesis|quick] [programs=sumsq,pi,strassen,quicksort,mergesort] [timeline.csv|-] [scheduler=default|shared]
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Globalization;
using DivCon.Programs;

double seconds = args.Length > 0 ? double.Parse(args[0], CultureInfo.InvariantCulture) : 30;
SizePreset preset = args.Length > 1 && args[1] == "quick" ? SizePreset.Quick : SizePreset.Thesis;
string[] names = args.Length > 2 ? args[2].Split(',') : ["sumsq", "pi", "strassen", "quicksort", "mergesort"];
string? timelinePath = args.Length > 3 && args[3] != "-" ? args[3] : null;
bool shared = args.Length > 4 && args[4] == "shared";
using var divcon = shared ? new DivCon.Schedulers.WorkStealingTaskScheduler(Environment.ProcessorCount) : null;
TaskScheduler scheduler = divcon ?? TaskScheduler.Default;
var inv = CultureInfo.InvariantCulture;

Console.WriteLine(string.Create(inv, $"cpus={Environment.ProcessorCount} runtime={Environment.Version} preset={preset} seconds={seconds} programs={string.Join(',', names)} scheduler={(shared ? "shared DivCon WorkStealingTaskScheduler" : "TaskScheduler.Default")}"));
ThreadPool.GetMinThreads(out int minWorkers, out _);
ThreadPool.GetMaxThreads(out int maxWorkers, out _);
Console.WriteLine(string.Create(inv, $"pool min threads={minWorkers} max threads={maxWorkers}"));
var programs = names.Select(n => ProgramCatalog.Create(n, preset)).ToArray();

using var listener = new PoolEventListener();
var clock = Stopwatch.StartNew();
listener.Clock = clock;
var samples = new List<(double T, int Threads, long Pending, long Completed)>();
using var stop = new CancellationTokenSource();
var sampler = new Thread(() =>
{
    while (!stop.IsCancellationRequested)
    {
        samples.Add((clock.Elapsed.TotalSeconds, ThreadPool.ThreadCount, ThreadPool.PendingWorkItemCount, ThreadPool.CompletedWorkItemCount));
        Thread.Sleep(100);
    }
}) { IsBackground = true, Name = "sampler" };
sampler.Start();

var runs = new ConcurrentBag<(string Name, double Start, double End)>();
double limit = seconds;

async Task Loop(BenchmarkProgram program)
{
    while (clock.Elapsed.TotalSeconds < limit)
    {
        double start = clock.Elapsed.TotalSeconds;
        await program.RunParallelAsync(scheduler).ConfigureAwait(false);
        runs.Add((program.Name, start, clock.Elapsed.TotalSeconds));
    }
}

// Started from a pool thread, as the harness starts its cyclic test after earlier awaits.
await Task.Run(() => Task.WhenAll(programs.Select(Loop).ToArray()));
stop.Cancel();
sampler.Join();

Console.WriteLine();
Console.WriteLine("program,runs,mean_run_s");
foreach (var g in runs.GroupBy(r => r.Name).OrderBy(g => Array.IndexOf(names, g.Key)))
{
    Console.WriteLine(string.Create(inv, $"{g.Key},{g.Count()},{g.Average(r => r.End - r.Start):F3}"));
}

var threads = samples.Select(s => s.Threads).ToArray();
Console.WriteLine();
Console.WriteLine(string.Create(inv, $"ThreadPool.ThreadCount every 100 ms ({threads.Length} samples): min {threads.Min()}, mean {threads.Average():F2}, max {threads.Max()}, last {threads[^1]}"));
foreach (var g in threads.GroupBy(t => t).OrderBy(g => g.Key))
{
    Console.WriteLine(string.Create(inv, $"  {g.Key} threads: {100.0 * g.Count() / threads.Length:F1}% of samples"));
}

Console.WriteLine(string.Create(inv, $"mean pending work items {samples.Average(s => s.Pending):F1}; completed work items {samples[^1].Completed} ({samples[^1].Completed / samples[^1].T:F0}/s)"));
Console.WriteLine();
Console.WriteLine("thread-count goal changes by reason (runtime event ThreadPoolWorkerThreadAdjustmentAdjustment):");
string[] reasons = ["Warmup", "Initializing", "RandomMove", "ClimbingMove", "ChangePoint", "Stabilizing", "Starvation", "ThreadTimedOut", "CooperativeBlocking"];
foreach (var g in listener.Adjustments.GroupBy(a => a.Reason).OrderBy(g => g.Key))
{
    string reason = g.Key >= 0 && g.Key < reasons.Length ? reasons[g.Key] : g.Key.ToString(inv);
    Console.WriteLine(string.Create(inv, $"  {reason}: {g.Count()} (new goals {string.Join(' ', g.Take(40).Select(a => a.Goal))}{(g.Count() > 40 ? " ..." : string.Empty)})"));
}

var goals = listener.Adjustments.ToList();
Console.WriteLine(string.Create(inv, $"goal timeline (t s: goal reason): {string.Join("; ", goals.Take(80).Select(a => $"{a.T:F1}: {a.Goal} {(a.Reason < reasons.Length ? reasons[a.Reason] : "?")}"))}{(goals.Count > 80 ? " ..." : string.Empty)}"));
// How long the goal stayed at each value (from one adjustment to the next; the last one to the end of the test).
var held = new Dictionary<int, (double Total, int Times)>();
for (int i = 0; i < goals.Count; i++)
{
    double until = i + 1 < goals.Count ? goals[i + 1].T : clock.Elapsed.TotalSeconds;
    var (total, times) = held.GetValueOrDefault(goals[i].Goal);
    held[goals[i].Goal] = (total + until - goals[i].T, times + 1);
}

Console.WriteLine("time at each goal: " + string.Join("; ", held.OrderBy(h => h.Key).Select(h => string.Create(inv, $"{h.Key} threads {h.Value.Total:F1} s ({h.Value.Times} times, mean {1000 * h.Value.Total / h.Value.Times:F0} ms)"))));
var stats = listener.Stats.ToList();
Console.WriteLine(string.Create(inv, $"hill-climbing samples (ThreadPoolWorkerThreadAdjustmentStats): {stats.Count}, mean duration {(stats.Count > 0 ? stats.Average(x => x.Duration) : 0):F0} ms (the event's Duration field)"));
Console.WriteLine("  wave magnitude: " + string.Join(' ', stats.GroupBy(x => x.Magnitude).OrderBy(g => g.Key).Select(g => $"{g.Key}x{g.Count()}")));
Console.WriteLine("  control setting: " + string.Join(' ', stats.GroupBy(x => (int)Math.Round(x.Control)).OrderBy(g => g.Key).Select(g => $"{g.Key}x{g.Count()}")));
Console.WriteLine(string.Create(inv, $"  throughput ratio < 0 in {stats.Count(x => x.Ratio < 0)} samples, > 0 in {stats.Count(x => x.Ratio > 0)}"));
Console.WriteLine(string.Create(inv, $"worker thread starts {listener.Starts}, stops {listener.Stops}"));

if (timelinePath is not null)
{
    File.WriteAllLines(timelinePath, ["t_s,thread_count,pending,completed", .. samples.Select(s => string.Create(inv, $"{s.T:F2},{s.Threads},{s.Pending},{s.Completed}"))]);
    Console.WriteLine($"timeline: {timelinePath}");
}

/// <summary>Records the runtime's thread-pool events (keyword ThreadingKeyword, 0x10000).</summary>
internal sealed class PoolEventListener : EventListener
{
    public Stopwatch? Clock { get; set; }

    public ConcurrentQueue<(double T, int Goal, int Reason)> Adjustments { get; } = new();

    public ConcurrentQueue<(double Duration, int Magnitude, double Control, double Ratio)> Stats { get; } = new();

    public int Starts;

    public int Stops;

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
        {
            EnableEvents(eventSource, EventLevel.Verbose, (EventKeywords)0x10000);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        double t = Clock?.Elapsed.TotalSeconds ?? 0;
        switch (e.EventName)
        {
            case "ThreadPoolWorkerThreadAdjustmentAdjustment":
                Adjustments.Enqueue((t, Convert.ToInt32(Get(e, "NewWorkerThreadCount"), CultureInfo.InvariantCulture), Convert.ToInt32(Get(e, "Reason"), CultureInfo.InvariantCulture)));
                break;
            case "ThreadPoolWorkerThreadAdjustmentStats":
                Stats.Enqueue((
                    Convert.ToDouble(Get(e, "Duration"), CultureInfo.InvariantCulture),
                    Convert.ToInt32(Get(e, "NewThreadWaveMagnitude"), CultureInfo.InvariantCulture),
                    Convert.ToDouble(Get(e, "NewControlSetting"), CultureInfo.InvariantCulture),
                    Convert.ToDouble(Get(e, "ThroughputRatio"), CultureInfo.InvariantCulture)));
                break;
            case "ThreadPoolWorkerThreadStart":
                Interlocked.Increment(ref Starts);
                break;
            case "ThreadPoolWorkerThreadStop":
                Interlocked.Increment(ref Stops);
                break;
        }
    }

    private static object? Get(EventWrittenEventArgs e, string name)
    {
        int i = e.PayloadNames?.IndexOf(name) ?? -1;
        return i >= 0 ? e.Payload![i] : null;
    }
}
