#:project ../src/Programs/DivCon.Programs.csproj
#:project ../src/Schedulers/DivCon.Schedulers.csproj
#:property PublishAot=false

// Measures, on this machine, the figures a machine description's oversubscription and bandwidth terms need:
//  1. context switch: two threads pinned to one CPU hand a token back and forth through kernel events; half a round
//     trip is one switch plus the wake that causes it;
//  2. cache refill after preemption: k threads per CPU each sweep their own working set (sized to share the L2) for the
//     same total work as one thread per CPU; the extra time over the involuntary context switches the threads
//     suffered (from /proc) is the refill per preemption;
//  3. free oversubscription of a work-stealing program: k DivCon schedulers of P threads (k x P threads on P CPUs, the
//     oversubscribed-free scheme) each run the same program R times, against one scheduler running the k x R runs
//     in turn; the throughput lost is what preemptions cost a work-stealing program beyond the switches and refills;
//  4. memory bandwidth: 1 and P threads each summing their own 256 MiB array.
// Usage: dotnet run machines/measure-costs.cs -c Release -- [seconds-per-case=5] [k=2,4] [program=sumsq] [preset=quick|thesis]
// Every figure is printed with the machine, runtime and date; a loaded machine (load average above 0.5) is flagged:
// there wall times mean little (more threads win a larger share of the CPUs from the other processes), and the CPU
// times printed beside them are the better guide.
using System.Diagnostics;
using System.Globalization;
using DivCon.Programs;
using DivCon.Schedulers;

var inv = CultureInfo.InvariantCulture;
double seconds = args.Length > 0 ? double.Parse(args[0], inv) : 5;
int[] ks = args.Length > 1 ? [.. args[1].Split(',').Select(x => int.Parse(x, inv))] : [2, 4];
string programName = args.Length > 2 ? args[2] : "sumsq";
SizePreset preset = args.Length > 3 && args[3] == "thesis" ? SizePreset.Thesis : SizePreset.Quick;
int cpus = Environment.ProcessorCount;
string load = File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Split(' ')[0] : "?";
Console.WriteLine(string.Create(inv, $"cpus={cpus} runtime={Environment.Version} os={Environment.OSVersion} date={DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC load1={load}{(double.TryParse(load, inv, out double l) && l > 0.5 ? " (LOADED: provisional figures)" : "")}"));

// 1. Context switch.
{
    using var ping = new AutoResetEvent(false);
    using var pong = new AutoResetEvent(false);
    int trips = 0;
    bool stop = false;
    var other = new Thread(() =>
    {
        Pin(0);
        while (true)
        {
            ping.WaitOne();
            if (Volatile.Read(ref stop))
            {
                return;
            }

            pong.Set();
        }
    });
    other.Start();
    Pin(0);
    var watch = Stopwatch.StartNew();
    while (watch.Elapsed.TotalSeconds < seconds)
    {
        ping.Set();
        pong.WaitOne();
        trips++;
    }

    double ns = watch.Elapsed.TotalNanoseconds / (2.0 * trips);
    Volatile.Write(ref stop, true);
    ping.Set();
    other.Join();
    Unpin();
    Console.WriteLine(string.Create(inv, $"context switch (half a round trip on one CPU, wake included): {ns:0} ns over {trips} round trips"));
}

// 2. Cache refill after preemption.
{
    const int WorkingSetBytes = 256 * 1024; // a share of a 512 KiB-1 MiB L2 per thread
    long passes = 0;
    double baseline = 0;
    foreach (int k in (int[])[1, .. ks])
    {
        int threads = k * cpus;
        long totalPasses = passes == 0 ? 0 : passes;
        if (passes == 0)
        {
            // Calibrate: how many passes one thread per CPU does in `seconds`.
            var probe = Stopwatch.StartNew();
            var data = new long[WorkingSetBytes / 8];
            long n = 0;
            while (probe.Elapsed.TotalSeconds < 0.5)
            {
                Sweep(data);
                n++;
            }

            passes = (long)(n * seconds / 0.5) * cpus;
            totalPasses = passes;
        }

        long before = InvoluntarySwitches();
        TimeSpan cpuBefore = Environment.CpuUsage.TotalTime;
        var watch = Stopwatch.StartNew();
        var workers = Enumerable.Range(0, threads).Select(_ => new Thread(() =>
        {
            var data = new long[WorkingSetBytes / 8];
            for (long p = 0; p < totalPasses / threads; p++)
            {
                Sweep(data);
            }
        })).ToList();
        workers.ForEach(w => w.Start());
        workers.ForEach(w => w.Join());
        double elapsed = watch.Elapsed.TotalSeconds;
        double cpu = (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds;
        long switches = InvoluntarySwitches() - before;
        if (k == 1)
        {
            baseline = cpu;
            Console.WriteLine(string.Create(inv, $"cache sweep, 1 thread per CPU: {elapsed:0.000} s wall, {cpu:0.000} s CPU, {switches} involuntary switches"));
        }
        else
        {
            // CPU time, not wall time: on a loaded machine more threads win a larger share of the CPUs, which wall
            // time would count as a gain; the extra CPU time for the same work is what preemption cost.
            double extraCpuNs = (cpu - baseline) * 1e9;
            Console.WriteLine(string.Create(inv,
                $"cache sweep, {k} threads per CPU: {elapsed:0.000} s wall, {cpu:0.000} s CPU ({(cpu / baseline) - 1:+0.0%;-0.0%}), {switches} involuntary switches, refill per switch {(switches > 0 ? extraCpuNs / switches : double.NaN):0} ns"));
        }
    }
}

// 3. Free oversubscription of a work-stealing program.
{
    // One program instance per scheduler, created (input data generated) and warmed up (JIT tiers) before timing.
    var programs = Enumerable.Range(0, ks.Max()).Select(i => ProgramCatalog.Create(programName, preset, seed: 7 + i)).ToArray();
    using (var warm = new WorkStealingTaskScheduler(cpus))
    {
        foreach (var program in programs)
        {
            var clock = Stopwatch.StartNew();
            while (clock.Elapsed.TotalSeconds < Math.Max(0.2, seconds / 8))
            {
                program.RunParallelAsync(warm).GetAwaiter().GetResult();
            }
        }
    }

    int runs = 0;
    TimeSpan oneCpuBefore = Environment.CpuUsage.TotalTime;
    var one = Stopwatch.StartNew();
    using (var scheduler = new WorkStealingTaskScheduler(cpus))
    {
        while (one.Elapsed.TotalSeconds < seconds / 2)
        {
            programs[0].RunParallelAsync(scheduler).GetAwaiter().GetResult();
            runs++;
        }
    }

    double perRun = one.Elapsed.TotalSeconds / runs;
    double cpuPerRun = (Environment.CpuUsage.TotalTime - oneCpuBefore).TotalSeconds / runs;
    foreach (int k in ks)
    {
        int each = Math.Max(1, (int)Math.Round(seconds / perRun / k));
        var schedulers = Enumerable.Range(0, k).Select(_ => new WorkStealingTaskScheduler(cpus)).ToArray();
        TimeSpan cpuBefore = Environment.CpuUsage.TotalTime;
        var watch = Stopwatch.StartNew();
        var loops = Enumerable.Range(0, k).Select(i => Task.Run(() =>
        {
            var scheduler = schedulers[i];
            var program = programs[i];
            for (int r = 0; r < each; r++)
            {
                program.RunParallelAsync(scheduler).GetAwaiter().GetResult();
            }
        })).ToArray();
        Task.WaitAll(loops);
        Array.ForEach(schedulers, x => x.Dispose());
        double sequential = perRun * each * k;
        double elapsed = watch.Elapsed.TotalSeconds;
        double cpu = (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds;
        double cpuSequential = cpuPerRun * each * k;
        Console.WriteLine(string.Create(inv,
            $"{programName} ({preset}): {k} schedulers x {cpus} threads, {each} runs each: {elapsed:0.000} s wall against {sequential:0.000} s in turn on one scheduler ({(elapsed / sequential) - 1:+0.0%;-0.0%}); CPU {cpu:0.000} s against {cpuSequential:0.000} s ({(cpu / cpuSequential) - 1:+0.0%;-0.0%})"));
    }
}

// 4. Memory bandwidth.
{
    foreach (int threads in (int[])[1, cpus])
    {
        var arrays = Enumerable.Range(0, threads).Select(_ => Enumerable.Repeat(1L, 32 * 1024 * 1024).ToArray()).ToArray();
        var watch = Stopwatch.StartNew();
        long bytes = 0;
        while (watch.Elapsed.TotalSeconds < seconds / 2)
        {
            Parallel.For(0, threads, new ParallelOptions { MaxDegreeOfParallelism = threads }, i => Sweep(arrays[i]));
            bytes += threads * 32L * 1024 * 1024 * 8;
        }

        Console.WriteLine(string.Create(inv, $"memory read bandwidth, {threads} thread(s): {bytes / watch.Elapsed.TotalSeconds / 1e9:0.0} GB/s"));
    }
}

static long Sweep(long[] data)
{
    long sum = 0;
    for (int i = 0; i < data.Length; i += 8)
    {
        sum += data[i];
        data[i] = sum; // write, so a refill also writes back
    }

    return sum;
}

static long InvoluntarySwitches()
{
    long total = 0;
    foreach (string task in Directory.GetDirectories("/proc/self/task"))
    {
        try
        {
            foreach (string line in File.ReadLines(Path.Combine(task, "status")))
            {
                if (line.StartsWith("nonvoluntary_ctxt_switches:", StringComparison.Ordinal))
                {
                    total += long.Parse(line.AsSpan(line.IndexOf(':') + 1).Trim(), CultureInfo.InvariantCulture);
                }
            }
        }
        catch (IOException)
        {
            // the thread ended meanwhile
        }
    }

    return total;
}

static void Pin(int cpu) => Interop.SetAffinity(1UL << cpu);

static void Unpin() => Interop.SetAffinity(ulong.MaxValue >> (64 - Environment.ProcessorCount));

static class Interop
{
    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    private static extern int sched_setaffinity(int pid, IntPtr size, ref ulong mask);

    // Pins the calling thread (pid 0 is the caller's thread on Linux).
    public static void SetAffinity(ulong mask)
    {
        if (sched_setaffinity(0, (IntPtr)8, ref mask) != 0)
        {
            throw new InvalidOperationException($"sched_setaffinity failed ({System.Runtime.InteropServices.Marshal.GetLastPInvokeError()}).");
        }
    }
}
