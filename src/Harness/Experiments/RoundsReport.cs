using System.Globalization;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;

namespace DivCon.Harness.Experiments;

/// <summary>
/// The per-round files and tables of a <see cref="CyclicExperiment"/>:
/// <list type="bullet">
/// <item><c>rounds.csv</c>: one row per round, block and program: the block's position in its round, the round's C_SP
/// (for a scheme block of a bracketed experiment, the C_SP around that block; isolated rows pool the round's isolated blocks),
/// the scheme's counted runs, C_MP and NTT in that round, and the scheme's ANTT, STP and MNTT in that round;</item>
/// <item><c>blocks.csv</c>: one row per block (warm-up round 0 included): wall time, JIT and GC activity, and the
/// machine's CPU time shares (user, system, idle, steal; empty where <c>/proc/stat</c> is not available)
/// (<see cref="BlockDiagnostics"/>);</item>
/// <item>the "Across rounds" section of <c>summary.md</c>, with the ranking statements (the console shows the same table:
/// <c>RoundsTable</c> in the terminal namespace).</item>
/// </list>
/// </summary>
public static class RoundsReport
{
    /// <summary>Columns of <c>rounds.csv</c>.</summary>
    public static IReadOnlyList<string> RoundsHeader { get; } =
        ["round", "position", "block", "program", "c_sp_s", "counted_runs", "c_mp_s", "ntt", "antt", "stp", "mntt"];

    /// <summary>Columns of <c>blocks.csv</c>.</summary>
    public static IReadOnlyList<string> BlocksHeader { get; } =
        ["round", "position", "block", "seconds", "jit_methods", "jit_ms", "gc_gen0", "gc_gen1", "gc_gen2", "gc_pause_ms", "threadpool_threads",
            "cpu_user_share", "cpu_system_share", "cpu_idle_share", "cpu_steal_share"];

    /// <summary>Writes <c>rounds.csv</c>.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="result">The experiment.</param>
    public static void WriteRounds(TextWriter writer, CyclicExperimentResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        Csv.Write(writer, RoundsHeader, result.Rounds.SelectMany(RoundRows));
    }

    /// <summary>Writes <c>blocks.csv</c>.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="result">The experiment.</param>
    public static void WriteBlocks(TextWriter writer, CyclicExperimentResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        Csv.Write(writer, BlocksHeader, result.Blocks.Select(b => (IReadOnlyList<string>)
        [
            Int(b.Round), Int(b.Position), b.Block, Csv.Number(b.Seconds), b.JitMethods.ToString(CultureInfo.InvariantCulture),
            Csv.Number(b.JitMilliseconds), Int(b.Gen0), Int(b.Gen1), Int(b.Gen2), Csv.Number(b.GcPauseMilliseconds), Int(b.ThreadPoolThreads),
            Share(b.Cpu?.User), Share(b.Cpu?.System), Share(b.Cpu?.Idle), Share(b.Cpu?.Steal),
        ]));
    }

    /// <summary>Writes the runs of every round: <see cref="RunRecordsCsv"/>'s columns and a trailing <c>round</c>.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="result">The experiment.</param>
    public static void WriteRuns(TextWriter writer, CyclicExperimentResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        Csv.Write(writer, [.. RunRecordsCsv.Header, "round"], result.Rounds.SelectMany(round => round.Tests.SelectMany(t => t.Result.Runs.Select(r => (IReadOnlyList<string>)
        [
            t.Scheme,
            r.Program,
            Int(r.RunIndex),
            Csv.Number(r.Start.TotalSeconds),
            Csv.Number(r.End.TotalSeconds),
            Csv.Number(r.Duration.TotalSeconds),
            r.Counted ? "true" : "false",
            Int(round.Round),
        ]))));
    }

    /// <summary>Appends the "Across rounds" section to a Markdown summary (nothing with a single round).</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="result">The experiment.</param>
    public static void WriteMarkdown(TextWriter writer, CyclicExperimentResult result)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(result);
        if (result.Rounds.Count < 2)
        {
            return;
        }

        double level = result.AcrossRounds.Count > 0 ? result.AcrossRounds[0].Summary.Stp.ConfidenceLevel : double.NaN;
        writer.WriteLine();
        writer.WriteLine("## Across rounds");
        writer.WriteLine();
        string orders = string.Join("; ", result.Rounds.Select(r => string.Join(" > ", r.Order)));
        string measuredWhen = result.Bracketed ? "before and after every scheme block" : "in every round";
        string normalisedBy = result.Bracketed ? "each block with the C_SP of the isolated runs around it" : "with that round's C_SP";
        writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"The schemes ran interleaved in {result.Rounds.Count} rounds (order rotated each round: {orders}), C_SP measured {measuredWhen}. "));
        writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"One ANTT, STP and MNTT per round ({normalisedBy}); `±` is the half-width of the {level * 100:0.##}% Student-t interval across rounds. "));
        writer.WriteLine("The tables above pool every round's runs and give per-run intervals.");
        writer.WriteLine();
        var table = new MarkdownTable(["Scheme", "Rounds", "ANTT (lower is better)", "STP (higher is better)", "MNTT"]);
        foreach (AcrossRounds s in result.AcrossRounds)
        {
            table.AddRow(s.Scheme, Int(s.Rounds), NumberText.WithInterval(s.Summary.Antt), NumberText.WithInterval(s.Summary.Stp), NumberText.WithInterval(s.Summary.Mntt));
        }

        table.WriteTo(writer);
        string[] programs = [.. result.AcrossRounds.SelectMany(a => a.Programs.Select(p => p.Program)).Distinct(StringComparer.Ordinal)];
        writer.WriteLine("NTT per program, one value per round (that round's C_MP over its C_SP), interval across rounds:");
        writer.WriteLine();
        var ntt = new MarkdownTable(["Program", .. result.AcrossRounds.Select(a => a.Scheme)]);
        foreach (string program in programs)
        {
            ntt.AddRow([program, .. result.AcrossRounds.Select(a => a.Programs.FirstOrDefault(p => p.Program == program) is { } p ? NumberText.WithInterval(p.Ntt) : "–")]);
        }

        ntt.WriteTo(writer);
        writer.WriteLine("### Ranking");
        writer.WriteLine();
        if (result.Ranking.Count == 0)
        {
            writer.WriteLine("No ranking: every pair of schemes has overlapping intervals on STP and on ANTT.");
        }
        else
        {
            foreach (RankingStatement statement in result.Ranking)
            {
                writer.WriteLine($"- {MarkdownTable.EscapeCell(statement.Text)}.");
            }

            writer.WriteLine();
            writer.WriteLine("Pairs not listed have overlapping intervals: no ranking is stated for them.");
        }

        writer.WriteLine();
    }

    private static IEnumerable<IReadOnlyList<string>> RoundRows(CyclicRound round)
    {
        string Position(string block) => Int(round.Order.ToList().IndexOf(block));
        foreach (ProgramTimings t in round.Isolated)
        {
            yield return [Int(round.Round), Position(BlockDiagnostics.IsolatedBlock), BlockDiagnostics.IsolatedBlock, t.Program,
                Csv.Number(t.Seconds.Average()), Int(t.Seconds.Count), string.Empty, string.Empty, string.Empty, string.Empty, string.Empty];
        }

        foreach ((string scheme, CyclicTestResult test) in round.Tests)
        {
            WorkloadMetrics? metrics = round.Metrics.FirstOrDefault(m => m.Scheme == scheme)?.Metrics;
            foreach (ProgramTimings t in round.IsolatedFor(scheme))
            {
                IReadOnlyList<double> counted = test.CountedSeconds(t.Program);
                double cSp = t.Seconds.Average();
                double cMp = counted.Count > 0 ? counted.Average() : double.NaN;
                yield return [Int(round.Round), Position(scheme), scheme, t.Program, Csv.Number(cSp), Int(counted.Count), Csv.Number(cMp), Csv.Number(cMp / cSp),
                    Csv.Number(metrics?.Antt ?? double.NaN), Csv.Number(metrics?.Stp ?? double.NaN), Csv.Number(metrics?.Mntt ?? double.NaN)];
            }
        }
    }

    private static string Int(int value) => value.ToString(CultureInfo.InvariantCulture);

    private static string Share(double? value) => value is { } v ? Csv.Number(v) : string.Empty;
}
