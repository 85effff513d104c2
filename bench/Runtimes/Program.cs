using System.Globalization;
using DivCon.Bench.Runtimes;

// The runtime comparison: `run` measures on the runtime it is started on and appends CSV rows; `report` turns a
// results file into a Markdown table. scripts/compare-runtimes.sh runs both on .NET 10, .NET 8 and Mono.
CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
const string Usage = """
    usage: DivCon.Bench.Runtimes run --label NAME --csv FILE [--reps 10] [--warmup 3] [--warmup-ms 1000]
                                     [--cases skeleton,tree,speedup] [--leaves 65536] [--launches 4]
                                     [--tree-depth 19] [--program mergesort] [--workers 2] [--speedup-reps 8]
                                     [--size N|2^k (default: the program's thesis size)]
           DivCon.Bench.Runtimes report --csv FILE --out FILE.md [--title TEXT]
           DivCon.Bench.Runtimes flat [--warmup 1] [--seconds 1] [--workers 2] [--only a,b]   (.NET only; see scripts/bench-pairs.sh)
           DivCon.Bench.Runtimes trace --out FOLDER [--programs strassen-thesis,quicksort-thesis,mergesort-thesis]
                                       [--size quick|thesis|N] [--workers 1] [--granularity-cores 1]
                                       [--granularity time|leaves] [--repeat 3] [--seed 42]
    """;
try
{
    if (args.Length > 0 && args[0] == "run")
    {
        var options = Options.Parse(args.Skip(1).ToArray());
        IReadOnlyList<ResultRow> rows = new Runner(options, Console.Out).Run();
        string? folder = Path.GetDirectoryName(Path.GetFullPath(options.CsvPath));
        if (folder is not null)
        {
            Directory.CreateDirectory(folder);
        }

        bool header = !File.Exists(options.CsvPath) || new FileInfo(options.CsvPath).Length == 0;
        var lines = rows.Select(r => r.ToCsv());
        File.AppendAllLines(options.CsvPath, header ? lines.Prepend(ResultRow.Header) : lines);
        return 0;
    }

#if NET
    if (args.Length > 0 && args[0] == "flat")
    {
        FlatCommand.Run(args.Skip(1).ToArray(), Console.Out);
        return 0;
    }

#endif
    if (args.Length > 0 && args[0] == "trace")
    {
        TraceRecorder.Run(TraceOptions.Parse(args.Skip(1).ToArray()), Console.Out);
        return 0;
    }

    if (args.Length > 0 && args[0] == "report")
    {
        string? csv = null, output = null, title = "DivCon on .NET 10, .NET 8 and Mono";
        for (int i = 1; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--csv": csv = args[i + 1]; break;
                case "--out": output = args[i + 1]; break;
                case "--title": title = args[i + 1]; break;
                default: throw new ArgumentException($"Unknown option '{args[i]}'.", nameof(args));
            }
        }

        if (csv is null || output is null)
        {
            throw new ArgumentException("report needs --csv and --out.", nameof(args));
        }

        var rows = File.ReadAllLines(csv).Skip(1).Where(l => l.Length > 0).Select(ResultRow.Parse).ToList();
        File.WriteAllText(output, MarkdownReport.Format(rows, title));
        return 0;
    }

    Console.Error.WriteLine(Usage);
    return 2;
}
catch (ArgumentException e)
{
    Console.Error.WriteLine(e.Message);
    Console.Error.WriteLine(Usage);
    return 2;
}
