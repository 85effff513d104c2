namespace DivCon.Simulator.Tests;

/// <summary>
/// The .NET thread-pool model (<c>default</c>) against schedules worked out by hand, where it differs from
/// <c>shared</c>: a program's next run starts on the thread that finished the previous one, and the pool's gate
/// injects threads (which time-share the cores) when nobody has entered the dispatch loop for the starvation delay.
/// </summary>
public sealed class ThreadPoolModelTests
{
    private const long Ms = 1_000_000;

    // A root that splits (0 ms) into three 10 ms leaves, merging in 0 ms: 30 ms of work on one core.
    private static SimulatedProgram Long() => new("long", TaskGraph.FromChildCounts([3, 0, 0, 0], [0, 10 * Ms, 10 * Ms, 10 * Ms], [0, 0, 0, 0]));

    // One task of 1 ms.
    private static SimulatedProgram Short() => new("short", TaskGraph.FromChildCounts([0], [1 * Ms], [0]));

    private static SimulatedProgram Leaf(string name, long ns) => new(name, TaskGraph.FromChildCounts([0], [ns], [0]));

    private static TimeSpan At(double milliseconds) => TimeSpan.FromMilliseconds(milliseconds);

    [Fact]
    public void Under_the_pool_a_finished_run_restarts_on_its_thread_before_older_queued_work()
    {
        // One core, one pool thread. Both first roots go onto the thread's local queue (long, then short); LIFO
        // takes short first. Each short run ends and queues the next root on the same thread, which takes it next:
        // short runs back to back until the 5 ms limit (runs ending at 1, 2, 3, 4, 5 ms, all counted; none starts at
        // 5). Only then does long run: 5 + 30 = 35 ms.
        var test = new WorkloadSimulator(HandComputedScheduleTests.Free(1)).RunCyclic([Long(), Short()], SimulatedScheme.Default, At(5));

        var shortRuns = test.Runs.Where(r => r.Program == "short").ToList();
        Assert.Equal(Enumerable.Range(0, 5).Select(i => (At(i), At(i + 1), true)), shortRuns.Select(r => (r.Start, r.End, r.Counted)));
        var longRun = Assert.Single(test.Runs, r => r.Program == "long");
        Assert.Equal((At(0), At(35), false), (longRun.Start, longRun.End, longRun.Counted));
    }

    [Fact]
    public void Under_shared_the_same_restart_waits_in_the_global_queue()
    {
        // The same workload under shared: both roots in the global queue, FIFO, so long runs first (its leaves fill
        // the worker's own deque, which it serves before the global queue) and ends at 30 ms; short's root waits
        // until then and ends at 31 ms, after the limit, so it is not restarted.
        var test = new WorkloadSimulator(HandComputedScheduleTests.Free(1)).RunCyclic([Long(), Short()], SimulatedScheme.Shared, At(5));

        var longRun = Assert.Single(test.Runs, r => r.Program == "long");
        Assert.Equal((At(0), At(30)), (longRun.Start, longRun.End));
        var shortRun = Assert.Single(test.Runs, r => r.Program == "short");
        Assert.Equal((At(0), At(31)), (shortRun.Start, shortRun.End));
        Assert.Equal(0, test.Counters.PoolThreads);
    }

    [Fact]
    public void The_gate_injects_a_thread_after_the_starvation_delay_and_it_time_shares_the_core()
    {
        // One core; a and b are single 3 s tasks. b runs from 0 (LIFO), a waits on the thread's queue. The gate
        // ticks every 500 ms with the CPU 100% busy: the delay is 1 thread x 1 s, so the tick at 1.5 s (1.5 s since
        // the only entry into the dispatch loop, at 0) injects a thread, which steals a. From then on the two
        // threads share the core at half speed: b's last 1.5 s take 3 s (ends at 4.5 s); a has done 1.5 s by then
        // and finishes alone at 6 s.
        var test = new WorkloadSimulator(HandComputedScheduleTests.Free(1))
            .RunCyclic([Leaf("a", 3_000 * Ms), Leaf("b", 3_000 * Ms)], SimulatedScheme.Default, At(1));

        Assert.Equal(At(4_500), HandComputedScheduleTests.End(test, "b"));
        Assert.Equal(At(6_000), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(2, test.Counters.PoolThreads);
        Assert.Equal(1, test.Counters.PoolInjections);
    }

    [Fact]
    public void Without_injection_or_with_the_maximum_reached_the_pool_keeps_one_thread_per_core()
    {
        var workload = new[] { Leaf("a", 3_000 * Ms), Leaf("b", 3_000 * Ms) };
        foreach (var options in new[]
        {
            HandComputedScheduleTests.Free(1) with { ThreadPoolStarvationInjection = false },
            HandComputedScheduleTests.Free(1) with { ThreadPoolMaxThreads = 1 },
        })
        {
            var test = new WorkloadSimulator(options).RunCyclic(workload, SimulatedScheme.Default, At(1));

            Assert.Equal(At(3_000), HandComputedScheduleTests.End(test, "b"));
            Assert.Equal(At(6_000), HandComputedScheduleTests.End(test, "a"));
            Assert.Equal(1, test.Counters.PoolThreads);
            Assert.Equal(0, test.Counters.PoolInjections);
        }
    }

    [Fact]
    public void The_starvation_delay_grows_with_the_thread_count()
    {
        // Three single 10 s tasks on one core. c runs from 0; a thread is injected at 1.5 s (delay 1 x 1 s) and
        // steals a; the next needs 2 threads x 1 s since that injection: the tick at 3.5 s (2.0 s) does not
        // qualify, the one at 4.0 s (2.5 s) injects the third thread, which steals b. Processor sharing: c has done
        // 1.5 + 2.5 / 2 = 2.75 s and a 1.25 s at 4 s; at a third each, c ends after 7.25 x 3 s (25.75 s), a after 3 s
        // more at a half (28.75 s), b alone at 30 s (all work done: 30 s on one core).
        var test = new WorkloadSimulator(HandComputedScheduleTests.Free(1))
            .RunCyclic([Leaf("a", 10_000 * Ms), Leaf("b", 10_000 * Ms), Leaf("c", 10_000 * Ms)], SimulatedScheme.Default, At(1));

        Assert.Equal(At(25_750), HandComputedScheduleTests.End(test, "c"));
        Assert.Equal(At(28_750), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(At(30_000), HandComputedScheduleTests.End(test, "b"));
        Assert.Equal(3, test.Counters.PoolThreads);
        Assert.Equal(2, test.Counters.PoolInjections);
    }

    [Fact]
    public void The_wave_raises_the_goal_and_a_thread_over_the_lowered_goal_stops_at_its_task_boundary()
    {
        // One core; samples of exactly 10 ms, wave magnitude 1: the goal is 1 until the sample at 20 ms, 2 until
        // 40 ms, 1 until 60 ms, 2 again. b (one 100 ms task) runs from 0. At 20 ms a new thread steals a's root
        // (0 ms), takes leaf a2 (7 ms, at half speed: ends at 34 ms), then a1 (3 ms done by 40 ms, ends at 48 ms).
        // a1 is the last child, so its merge (0 ms) is queued, but the goal is 1 with b running: the thread stops,
        // its queue goes to the global queue, and the merge waits until the goal rises at 60 ms: a ends at 60 ms,
        // not 48. b: 20 ms alone, 14 ms at half speed to 48 ms, 12 ms alone to 60 ms, then its last 54 ms: 114 ms.
        var options = HandComputedScheduleTests.Free(1) with
        {
            ThreadPoolWaveMagnitude = 1,
            ThreadPoolSampleIntervalLow = TimeSpan.FromMilliseconds(10),
            ThreadPoolSampleIntervalHigh = TimeSpan.FromMilliseconds(10),
        };
        var a = new SimulatedProgram("a", TaskGraph.FromChildCounts([2, 0, 0], [0, 7 * Ms, 7 * Ms], [0, 0, 0]));
        var test = new WorkloadSimulator(options).RunCyclic([a, Leaf("b", 100 * Ms)], SimulatedScheme.Default, At(1));

        Assert.Equal(At(60), HandComputedScheduleTests.End(test, "a"));
        Assert.Equal(At(114), HandComputedScheduleTests.End(test, "b"));
        Assert.Equal(2, test.Counters.PoolThreads);
        Assert.Equal(0, test.Counters.PoolInjections);
    }

    [Fact]
    public void A_pool_with_injections_gives_the_same_result_for_the_same_seed()
    {
        // A fast gate (1 ms, 1 ms per thread) so that a short test injects threads; costs on (steals, wakes,
        // context switches) so that random victims and wake orders matter.
        var options = new SimulationOptions
        {
            Cores = 2,
            Seed = 7,
            ThreadPoolGateInterval = TimeSpan.FromMilliseconds(1),
            ThreadPoolStarvationDelayPerThread = TimeSpan.FromMilliseconds(1),
        };
        var workload = new[]
        {
            Long(),
            Short(),
            new SimulatedProgram("wide", TaskGraph.FromChildCounts([4, 0, 0, 0, 0], [1 * Ms, 3 * Ms, 3 * Ms, 3 * Ms, 3 * Ms], [1 * Ms, 0, 0, 0, 0])),
        };
        var first = new WorkloadSimulator(options).RunCyclic(workload, SimulatedScheme.Default, At(300));
        var second = new WorkloadSimulator(options).RunCyclic(workload, SimulatedScheme.Default, At(300));

        Assert.True(first.Counters.PoolInjections > 0, "the fast gate injected no thread");
        Assert.True(first.Counters.PoolThreads > 2, "the pool created no thread beyond its minimum");
        Assert.Equal(first.Runs, second.Runs);
        Assert.Equal(first.Counters, second.Counters);
        foreach (string program in workload.Select(p => p.Name))
        {
            Assert.Contains(first.Runs, r => r.Program == program && r.Counted);
        }
    }

    [Fact]
    public void Bad_pool_settings_name_the_parameter()
    {
        static string? Name(SimulationOptions options) =>
            Assert.Throws<ArgumentOutOfRangeException>(() => new WorkloadSimulator(options)).ParamName;

        Assert.Equal(nameof(SimulationOptions.ThreadPoolMaxThreads), Name(new SimulationOptions { Cores = 4, ThreadPoolMaxThreads = 3 }));
        Assert.Equal(nameof(SimulationOptions.ThreadPoolMaxThreads), Name(new SimulationOptions { Cores = 4, ThreadPoolExtraThreads = 2, ThreadPoolMaxThreads = 5 }));
        Assert.Equal(nameof(SimulationOptions.ThreadPoolGateInterval), Name(new SimulationOptions { ThreadPoolGateInterval = TimeSpan.Zero }));
        Assert.Equal(nameof(SimulationOptions.ThreadPoolStarvationDelayPerThread), Name(new SimulationOptions { ThreadPoolStarvationDelayPerThread = TimeSpan.FromSeconds(-1) }));
    }
}
