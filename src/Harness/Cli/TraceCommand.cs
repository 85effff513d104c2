using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Simulation;
using DivCon.Harness.Workload;
using DivCon.Programs;
using DivCon.Schedulers;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;
using Spectre.Console;

namespace DivCon.Harness.Cli;
/// <summary>
/// <c>trace</c>: records the task tree of one run of each program (split / execute / merge per node, start times,
/// workers) into <c>.dctree</c> files that <c>simulate</c> replays on many simulated cores. Each program runs once
/// unrecorded (JIT warm-up), then once recorded, on the affinity scheduler with the given workers; the granularity
/// can be sized for a larger machine (<c>--granularity-cores 64</c>: 256 leaves) than the one recording.
/// </summary>
public static class TraceCommand
{
    /// <summary>Builds the command.</summary>
    /// <param name="host">The host.</param>
    /// <returns>The command.</returns>
    public static Command Create(CliHost host)
    {
        ArgumentNullException.ThrowIfNull(host);
        var common = new CommonOptions(host, CommonOptions.ThesisPrograms);
        var workers = OptionTable.WholeList("--workers", "Worker counts to record on, each a separate trace (e.g. 1,2).", [1], 1, () => host.Machine.CpuCount, "the allowed CPUs", "-w");
        var granularityCores = OptionTable.OptionalWhole("--granularity-cores",
            "Size the automatic granularity for this many cores (4 leaves per core), e.g. 64 for a 64-core simulation. [default: the recording workers]", 1, () => 4096, null, "-g");
        var repeat = OptionTable.Whole("--repeat", "Recorded runs per trace; every node's durations are the median over them (removes one-off outliers such as a preempted leaf).", 3, 1, aliases: "-r");
        var outOption = OptionTable.Text("--out", "Folder for the .dctree files (committed traces: --out traces/<name>).", Path.Combine(CommonOptions.AdHocRoot, "traces"), "folder", aliases: "-o");
        var command = new Command("trace", "Record each program's task tree (one run per worker count) into .dctree files for the simulate command.")
        {
            common.Programs, common.Size, common.Sizes, common.Seed, workers, granularityCores, repeat, outOption,
        };
        CommandActions.Set(command, host, async (parse, cancellationToken) =>
        {
            SizePreset preset = parse.GetValue(common.Size) == "thesis" ? SizePreset.Thesis : SizePreset.Quick;
            var sizes = new SizeSelection(preset, SizeArguments.Parse(parse.GetValue(common.Sizes) ?? []));
            int seed = parse.GetValue(common.Seed);
            int[] workerCounts = [.. (parse.GetValue(workers) ?? [1]).Distinct()];
            string folder = parse.GetValue(outOption)!;
            Directory.CreateDirectory(folder);
            IReadOnlyList<WorkloadProgram> workload = WorkloadBuilder.Distinct(parse.GetValue(common.Programs) ?? [], sizes, seed);
            var table = new Table().Title("Recorded task trees")
                .AddColumn("Program").AddColumn(new TableColumn("Workers").RightAligned()).AddColumn(new TableColumn("Granularity cores").RightAligned())
                .AddColumn(new TableColumn("Nodes").RightAligned()).AddColumn(new TableColumn("Leaves").RightAligned()).AddColumn(new TableColumn("Nested runs (nodes)").RightAligned())
                .AddColumn(new TableColumn("Run (s)").RightAligned()).AddColumn(new TableColumn("Work (s)").RightAligned())
                .AddColumn(new TableColumn("File (KB)").RightAligned()).AddColumn("File");
            foreach (int w in workerCounts)
            {
                int target = parse.GetValue(granularityCores) ?? w;
                WorkerPoolTaskScheduler scheduler = SchedulerFactory.Create(host.Machine, host.Machine.CpusFor(w));
                try
                {
                    foreach (WorkloadProgram member in workload)
                    {
                        cancellationToken.ThrowIfCancellationRequested();
                        await host.Error.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"trace: {member.Name} on {w} worker(s), granularity for {target} cores ...")).ConfigureAwait(false);
                        string path = Path.Combine(folder, TraceLibrary.FileName(member.Name, w, target));
                        (TaskTree tree, double seconds) = await RecordAsync(member, scheduler, w, target, parse.GetValue(repeat), sizes, seed, host.Machine.Describe(w), cancellationToken).ConfigureAwait(false);
                        TaskTreeFile.Write(path, tree);
                        table.AddRow(
                            Markup.Escape(member.Name), w.ToString(CultureInfo.InvariantCulture), target.ToString(CultureInfo.InvariantCulture),
                            tree.Nodes.Count.ToString(CultureInfo.InvariantCulture), tree.LeafCount.ToString(CultureInfo.InvariantCulture),
                            string.Create(CultureInfo.InvariantCulture, $"{NestedRunCount(tree)} ({tree.TotalNodeCount - tree.Nodes.Count})"),
                            Reports.NumberText.Fixed(seconds, 3), Reports.NumberText.Fixed(tree.TotalWork / 1e9, 3),
                            Reports.NumberText.Fixed(new FileInfo(path).Length / 1024.0, 1), Markup.Escape(path));
                    }
                }
                finally
                {
                    await SchedulerFactory.DisposeOffWorkersAsync(scheduler).ConfigureAwait(false);
                }
            }

            host.Console.Write(table);
        });
        return command;
    }

    /// <summary>The nested runs of a tree, recursively (runs started inside its nodes' splits and merges).</summary>
    private static int NestedRunCount(TaskTree tree) => tree.NestedRuns.Sum(r => 1 + NestedRunCount(r.Tree));

    /// <summary>
    /// Runs a program once to warm up, then <paramref name="repeat"/> times recorded; returns the per-node median tree
    /// and the median recorded run's wall time.
    /// </summary>
    private static async Task<(TaskTree Tree, double Seconds)> RecordAsync(
        WorkloadProgram member, TaskScheduler scheduler, int workers, int granularityCores, int repeat, SizeSelection sizes, int seed, string machine, CancellationToken cancellationToken)
    {
        BenchmarkProgram program = member.Program;
        int leavesPerWorker = (int)Math.Max(1, Math.Ceiling(Granularity.DefaultLeavesPerWorker * (double)granularityCores / workers));
        // The default granularity (by time: 100 us lower bound, 1 ms upper bound on leaves) with its leaf-count floor
        // sized for the target machine, so the tree is the one a run there would make.
        program.Granularity = Granularity.Automatic(Granularity.DefaultMinimumTaskCost, Granularity.DefaultMaximumTaskDuration, leavesPerWorker);
        await program.RunParallelAsync(scheduler, cancellationToken: cancellationToken).ConfigureAwait(false);
        var trees = new List<TaskTree>(repeat);
        var seconds = new List<double>(repeat);
        for (int i = 0; i < repeat; i++)
        {
            var recorder = new TaskTreeRecorder();
            long start = Stopwatch.GetTimestamp();
            await program.RunParallelAsync(scheduler, observer: recorder, cancellationToken: cancellationToken).ConfigureAwait(false);
            seconds.Add(Stopwatch.GetElapsedTime(start).TotalSeconds);
            program.VerifyOrThrow();
            trees.Add(recorder.ToTree());
        }

        int medianRun = Enumerable.Range(0, seconds.Count).OrderBy(i => seconds[i]).ElementAt((seconds.Count - 1) / 2);
        double median = seconds[medianRun];
        var properties = new Dictionary<string, string>(StringComparer.Ordinal)
        {
            ["program"] = member.Name,
            ["size"] = program.ProblemSize.ToString(CultureInfo.InvariantCulture),
            ["preset"] = sizes.Preset.ToString(),
            ["seed"] = seed.ToString(CultureInfo.InvariantCulture),
            ["workers"] = workers.ToString(CultureInfo.InvariantCulture),
            ["granularityCores"] = granularityCores.ToString(CultureInfo.InvariantCulture),
            ["granularity"] = program.Granularity.ToString(),
            ["effectiveGranularity"] = program.EffectiveGranularity.ToString(CultureInfo.InvariantCulture),
            ["runSeconds"] = median.ToString("R", CultureInfo.InvariantCulture),
            ["recordedRuns"] = repeat.ToString(CultureInfo.InvariantCulture),
            ["recordedUtc"] = DateTime.UtcNow.ToString("O", CultureInfo.InvariantCulture),
            ["machine"] = machine,
        };
        // Granularity by time may cut leaves differently from run to run (the prediction is measured): when the shapes
        // agree every node gets its median, otherwise the recording of the median run is kept as it is.
        TaskTree tree;
        try
        {
            tree = TaskTree.Median(trees);
        }
        catch (ArgumentException)
        {
            tree = trees[medianRun];
            properties["note"] = string.Create(CultureInfo.InvariantCulture, $"shapes differed between runs: the median run's recording (run {medianRun + 1} of {trees.Count}) kept, no per-node median");
        }

        return (new TaskTree(tree.Nodes, properties).WithNestedRuns(tree.NestedRuns), median);
    }
}
