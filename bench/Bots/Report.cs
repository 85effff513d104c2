using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace DivCon.Bench.Bots;

/// <summary>The tables of a run: printed, and written as <c>bots.md</c>, <c>bots.csv</c> (every timed run) and <c>bots-summary.csv</c>.</summary>
internal static class Report
{
    /// <summary>The Markdown report: stamp, ratios to sequential, DivCon against the best TPL idiom, node counts, medians.</summary>
    public static string Markdown(IReadOnlyList<KernelResult> results, Options options, string commandLine)
    {
        var text = new StringBuilder();
        int cpus = results.Count > 0 ? results[0].Processors : Environment.ProcessorCount;
        text.AppendLine("# BOTS kernels: DivCon against the TPL idioms").AppendLine();
        text.AppendLine(Inv($"- date (UTC): {DateTime.UtcNow:yyyy-MM-dd HH:mm:ss}"));
        text.AppendLine(Inv($"- machine: {Environment.ProcessorCount} logical CPUs, {CpuModel()}, {RuntimeInformation.OSDescription}"));
        text.AppendLine(Inv($"- runtime: {RuntimeInformation.FrameworkDescription}, {(System.Runtime.GCSettings.IsServerGC ? "server" : "workstation")} GC"));
        text.AppendLine(Inv($"- load average at the end: {LoadAverage()}"));
        text.AppendLine(Inv($"- commit: {Commit()}"));
        text.AppendLine(Inv($"- command: `{commandLine}`"));
        text.AppendLine(Inv($"- size: {options.Size.ToString().ToLowerInvariant()}, {options.Rounds} rounds after {options.Warmups} warm-up run(s) of every variant, variants in rotated order, {(options.Isolated ? "each in a process of its own (--isolated)" : "all in one process")}"));
        text.AppendLine().AppendLine("Ratio = median time / median sequential time, with the 99% Student-t interval of the per-round ratios in brackets; " +
            "DivCon / best TPL compares with the faster TPL idiom by median (in brackets: which). Every run's output equalled the sequential one bit for bit. " +
            "Nodes: task nodes / inline nodes of one run observed by a `PhaseAggregator` (nested runs included). " +
            "A ratio marked * lies outside its own interval: the machine's speed drifted between rounds, so read the interval, which compares each round's own times. " +
            Inv($"A ratio to sequential marked ! is below 1/{cpus}, faster than {cpus} CPUs can do the sequential work: caches gave the parallel run less to do, or the machine ran the variants at different speeds (see the sequential variant's range below); it does not measure the scheduling.")).AppendLine();
        text.AppendLine("| kernel | sequential (s) | divcon | divcon-ws | parallel-invoke | task-run | divcon / best TPL | divcon-ws / best TPL | divcon nodes (task / inline) | divcon-ws nodes |");
        text.AppendLine("| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        foreach (KernelResult r in results)
        {
            string best = r.BestTpl.Name();
            text.Append(Inv($"| {r.Kernel} | {r.Median(Variant.Sequential):F3} |"));
            foreach (Variant v in VariantNames.All.Where(v => v != Variant.Sequential))
            {
                text.Append(' ').Append(r.ToSequential(v)).Append(" |");
            }

            text.Append(' ').Append(r.ToBestTpl(Variant.DivCon)).Append(Inv($" ({best}) |"));
            text.Append(' ').Append(r.ToBestTpl(Variant.DivConWorkStealing)).Append(Inv($" ({best}) |"));
            text.Append(' ').Append(Nodes(r, Variant.DivCon)).Append(" | ").Append(Nodes(r, Variant.DivConWorkStealing)).AppendLine(" |");
        }

        var extras = results.SelectMany(r => r.Seconds.Keys.Where(v => !VariantNames.All.Contains(v)).Select(v => (r, v))).ToList();
        if (extras.Count > 0)
        {
            text.AppendLine().AppendLine("Variants of single kernels (same columns as above):").AppendLine();
            text.AppendLine("| kernel | variant | median (s) | ratio to sequential | / best TPL | nodes (task / inline) |");
            text.AppendLine("| :--- | :--- | ---: | ---: | ---: | ---: |");
            foreach (var (r, v) in extras)
            {
                text.Append(Inv($"| {r.Kernel} | {v.Name()} | {r.Median(v):F3} |"));
                text.Append(' ').Append(r.ToSequential(v)).Append(" |");
                text.Append(' ').Append(r.ToBestTpl(v)).Append(Inv($" ({r.BestTpl.Name()}) |"));
                text.Append(' ').Append(Nodes(r, v)).AppendLine(" |");
            }
        }

        text.AppendLine().AppendLine("Median seconds per variant, and the problems:").AppendLine();
        text.AppendLine("| kernel | problem | sequential | divcon | divcon-ws | parallel-invoke | task-run | sequential CPU | sequential, fastest - slowest round |");
        text.AppendLine("| :--- | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        foreach (KernelResult r in results)
        {
            text.Append(Inv($"| {r.Kernel} | {r.Description} |"));
            foreach (Variant v in VariantNames.All)
            {
                text.Append(Inv($" {r.Median(v):F3} |"));
            }

            var (fastest, slowest) = r.Range(Variant.Sequential);
            text.AppendLine(Inv($" {r.MedianCpu(Variant.Sequential):F3} | {fastest:F3} - {slowest:F3} |"));
        }

        return text.ToString();
    }

    /// <summary>One line per timed run: kernel, variant, round, position in the round, seconds.</summary>
    public static string RunsCsv(IReadOnlyList<KernelResult> results)
    {
        var text = new StringBuilder("kernel,variant,round,position,seconds,cpu_seconds\n");
        foreach (KernelResult r in results)
        {
            foreach (var (variant, seconds) in r.Seconds)
            {
                for (int i = 0; i < seconds.Count; i++)
                {
                    text.Append(Inv($"{r.Kernel},{variant.Name()},{i + 1},{r.Positions[variant][i]},{seconds[i]:R},{r.CpuSeconds[variant][i]:R}\n"));
                }
            }
        }

        return text.ToString();
    }

    /// <summary>One line per kernel and variant: median, ratios with their intervals, node counts.</summary>
    public static string SummaryCsv(IReadOnlyList<KernelResult> results)
    {
        var text = new StringBuilder("kernel,variant,median_s,ratio_to_sequential,ci99_low,ci99_high,ratio_to_best_tpl,best_tpl,ci99_low_tpl,ci99_high_tpl,task_nodes,inline_nodes,below_cpu_floor\n");
        foreach (KernelResult r in results)
        {
            foreach (Variant v in r.Seconds.Keys)
            {
                RatioSummary seq = r.ToSequential(v), tpl = r.ToBestTpl(v);
                string nodes = r.Nodes.TryGetValue(v, out var n) ? Inv($"{n.TaskNodes},{n.InlineNodes}") : ",";
                text.Append(Inv($"{r.Kernel},{v.Name()},{r.Median(v):R},{seq.Ratio:R},{seq.Lower:R},{seq.Upper:R},{tpl.Ratio:R},{r.BestTpl.Name()},{tpl.Lower:R},{tpl.Upper:R},{nodes},{(seq.BelowFloor ? "true" : "false")}\n"));
            }
        }

        return text.ToString();
    }

    /// <summary>Creates a new folder under <paramref name="parent"/> named by the date and size; never reuses one.</summary>
    public static string NewFolder(string parent, Options options)
    {
        string stem = Path.Combine(parent, Inv($"bots-{options.Size.ToString().ToLowerInvariant()}-{DateTime.UtcNow:yyyy-MM-dd-HHmmss}"));
        string folder = stem;
        for (int i = 2; Directory.Exists(folder) || File.Exists(folder); i++)
        {
            folder = Inv($"{stem}-{i}");
        }

        Directory.CreateDirectory(folder);
        return folder;
    }

    private static string Nodes(KernelResult r, Variant v) =>
        r.Nodes.TryGetValue(v, out var n) ? Inv($"{n.TaskNodes:N0} / {n.InlineNodes:N0}") : "-";

    private static string Inv(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);

    private static string CpuModel()
    {
        try
        {
            string? line = File.Exists("/proc/cpuinfo") ? File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal)) : null;
            return line is null ? RuntimeInformation.ProcessArchitecture.ToString() : line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
        }
        catch (IOException)
        {
            return RuntimeInformation.ProcessArchitecture.ToString();
        }
    }

    private static string LoadAverage()
    {
        try
        {
            return File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "n/a";
        }
        catch (IOException)
        {
            return "n/a";
        }
    }

    private static string Commit()
    {
        try
        {
            using var git = Process.Start(new ProcessStartInfo("git", "describe --always --dirty --abbrev=12")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            });
            if (git is null)
            {
                return "unknown";
            }

            string output = git.StandardOutput.ReadToEnd().Trim();
            git.WaitForExit();
            return git.ExitCode == 0 && output.Length > 0 ? output : "unknown";
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return "unknown (no git)";
        }
    }
}
