using System.Diagnostics;
using System.Globalization;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Harness.Workload;

/// <summary>
/// A joined-guests child's cross-process lending: after each run it appends its counters since it said ready (loans,
/// hand-backs, guest wake-ups, the watcher's polls) to a CSV file beside its completions; the parent sums the last
/// line of every child's file into machine-wide rates (<see cref="Read"/>).
/// </summary>
public sealed class CrossProcessGuests
{
    private const string Header = "seconds,loans,handbacks,wakes,polls";
    private readonly MultiprogramScheduler _scheduler;
    private readonly string _path;
    private readonly long _start = Stopwatch.GetTimestamp();
    private readonly (long Loans, long Handbacks, long Wakes, long Polls) _base;

    /// <summary>Starts counting (from now) a scheduler's loans.</summary>
    /// <param name="scheduler">The child's scheduler.</param>
    /// <param name="path">The CSV file.</param>
    public CrossProcessGuests(MultiprogramScheduler scheduler, string path)
    {
        ArgumentNullException.ThrowIfNull(scheduler);
        ArgumentNullException.ThrowIfNull(path);
        _scheduler = scheduler;
        _path = path;
        _base = Counters();
    }

    /// <summary>The counters file beside a completions file.</summary>
    /// <param name="completionsPath">The child's completions CSV.</param>
    /// <returns>The path.</returns>
    public static string PathFor(string completionsPath)
    {
        ArgumentNullException.ThrowIfNull(completionsPath);
        return Path.ChangeExtension(completionsPath, null) + "-guests.csv";
    }

    /// <summary>Sums the last line of every counters file of a scheme's children.</summary>
    /// <param name="folder">The children's folder.</param>
    /// <param name="scheme">The scheme's name (the files' prefix).</param>
    /// <param name="concurrent">How many children run at once (the mix's programs): their seconds overlap.</param>
    /// <returns>The totals.</returns>
    public static GuestTotals Read(string folder, string scheme, int concurrent)
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(scheme);
        double seconds = 0;
        long loans = 0, handbacks = 0, wakes = 0, polls = 0;
        int files = 0;
        string[] paths = Directory.Exists(folder) ? Directory.GetFiles(folder, scheme + "-*-guests.csv") : [];
        foreach (string path in paths.Order(StringComparer.Ordinal))
        {
            string? last = File.ReadLines(path).Skip(1).LastOrDefault();
            string[] f = last?.Split(',') ?? [];
            if (f.Length == 5 && double.TryParse(f[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double s))
            {
                seconds += s;
                loans += long.Parse(f[1], CultureInfo.InvariantCulture);
                handbacks += long.Parse(f[2], CultureInfo.InvariantCulture);
                wakes += long.Parse(f[3], CultureInfo.InvariantCulture);
                polls += long.Parse(f[4], CultureInfo.InvariantCulture);
                files++;
            }
        }

        return new GuestTotals(files, seconds / Math.Max(1, concurrent), loans, handbacks, wakes, polls);
    }

    /// <summary>Appends the counters so far.</summary>
    public void Flush()
    {
        (long loans, long handbacks, long wakes, long polls) = Counters();
        bool header = !File.Exists(_path);
        double seconds = (Stopwatch.GetTimestamp() - _start) / (double)Stopwatch.Frequency;
        File.AppendAllText(_path, (header ? Header + "\r\n" : string.Empty) + string.Create(CultureInfo.InvariantCulture,
            $"{seconds:0.######},{loans - _base.Loans},{handbacks - _base.Handbacks},{wakes - _base.Wakes},{polls - _base.Polls}\r\n"));
    }

    private (long Loans, long Handbacks, long Wakes, long Polls) Counters() =>
        _scheduler.Guests is { } g ? (g.Loans, g.Handbacks, g.Wakes, g.Polls) : (0, 0, 0, 0);
}

/// <summary>A scheme's cross-process lending, summed over its children.</summary>
/// <param name="Children">Children that reported.</param>
/// <param name="Seconds">Wall seconds covered (the children's seconds over how many ran at once).</param>
/// <param name="Loans">Loans: a withheld CPU's worker ran tasks of its process because the CPU's holder was idle.</param>
/// <param name="Handbacks">Loans ended at a task boundary because the holder had work again.</param>
/// <param name="Wakes">Withheld CPUs' workers woken by the watchers to look for a loan.</param>
/// <param name="Polls">The watchers' looks at the board.</param>
public sealed record GuestTotals(int Children, double Seconds, long Loans, long Handbacks, long Wakes, long Polls)
{
    private double Rate(long count) => Seconds > 0 ? count / Seconds : 0;

    /// <summary>The totals as a one-row CSV (RFC 4180, CRLF).</summary>
    /// <param name="scheme">The scheme's name.</param>
    /// <param name="writer">Where to write.</param>
    public void WriteCsv(string scheme, TextWriter writer) =>
        DivCon.Harness.Reports.Csv.Write(writer, ["scheme", "children", "seconds", "loans", "handbacks", "wakes", "polls", "loans_per_second", "handbacks_per_second", "polls_per_second"],
        [[scheme, Children.ToString(CultureInfo.InvariantCulture), F(Seconds), N(Loans), N(Handbacks), N(Wakes), N(Polls), F(Rate(Loans)), F(Rate(Handbacks)), F(Rate(Polls))]]);

    /// <inheritdoc />
    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"cross-process lending over {Seconds:0.#} s ({Children} children): {Rate(Loans):0.#} loans/s, {Rate(Handbacks):0.#} hand-backs/s, {Rate(Wakes):0.#} guest wake-ups/s, {Rate(Polls):0} board polls/s");

    private static string N(long value) => value.ToString(CultureInfo.InvariantCulture);

    private static string F(double value) => value.ToString("0.###", CultureInfo.InvariantCulture);
}
