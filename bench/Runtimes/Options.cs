using System.Globalization;

namespace DivCon.Bench.Runtimes;

/// <summary>The command line of a measuring run (<c>run</c>); see README.md beside this file.</summary>
internal sealed class Options
{
    public string Label { get; private set; } = "";

    public string CsvPath { get; private set; } = "";

    public int Repetitions { get; private set; } = 10;

    public int Warmups { get; private set; } = 3;

    /// <summary>The least time each variant of the skeleton and tree cases warms up (when it warms up at all).</summary>
    public int WarmupMilliseconds { get; private set; } = 1000;

    public IReadOnlyList<string> Cases { get; private set; } = ["skeleton", "tree", "speedup"];

    /// <summary>Leaves of the skeleton tree (2^16: 2^17 - 1 nodes, as SkeletonBenchmarks).</summary>
    public int Leaves { get; private set; } = 1 << 16;

    /// <summary>Skeleton trees per repetition (the time is divided back to one).</summary>
    public int Launches { get; private set; } = 4;

    /// <summary>Depth of the raw task tree (19: 2^20 - 1 tasks, as SchedulerBenchmarks).</summary>
    public int TreeDepth { get; private set; } = 19;

    public string Program { get; private set; } = "mergesort";

    /// <summary>The program's size; 0 means its thesis size.</summary>
    public long Size { get; private set; }

    public int Workers { get; private set; } = 2;

    /// <summary>Pairs of program runs (1 worker, then several, or the other way round) measured for the speedup.</summary>
    public int SpeedupRepetitions { get; private set; } = 8;

    /// <summary>Parses <paramref name="args"/> (the words after <c>run</c>).</summary>
    /// <exception cref="ArgumentException">An option is unknown, lacks its value, or has a bad value (named).</exception>
    public static Options Parse(IReadOnlyList<string> args)
    {
        var options = new Options();
        for (int i = 0; i < args.Count; i++)
        {
            string name = args[i];
            string Value() => i + 1 < args.Count ? args[++i] : throw new ArgumentException($"Option {name} needs a value.", nameof(args));
            switch (name)
            {
                case "--label": options.Label = Value(); break;
                case "--csv": options.CsvPath = Value(); break;
                case "--reps": options.Repetitions = Positive(name, Value()); break;
                case "--warmup": options.Warmups = NonNegative(name, Value()); break;
                case "--warmup-ms": options.WarmupMilliseconds = NonNegative(name, Value()); break;
                case "--cases": options.Cases = Value().Split(',').Select(c => c.Trim()).ToArray(); break;
                case "--leaves": options.Leaves = PowerOfTwo(name, Value()); break;
                case "--launches": options.Launches = Positive(name, Value()); break;
                case "--tree-depth": options.TreeDepth = InRange(name, Value(), 1, 24); break;
                case "--program": options.Program = Value(); break;
                case "--size": options.Size = ParseSize(name, Value()); break;
                case "--speedup-reps": options.SpeedupRepetitions = Positive(name, Value()); break;
                case "--workers": options.Workers = InRange(name, Value(), 2, Environment.ProcessorCount); break;
                default: throw new ArgumentException($"Unknown option '{name}'.", nameof(args));
            }
        }

        if (options.Label.Length == 0 || options.CsvPath.Length == 0)
        {
            throw new ArgumentException("--label and --csv are required.", nameof(args));
        }

        foreach (string c in options.Cases)
        {
            if (c is not ("skeleton" or "tree" or "speedup"))
            {
                throw new ArgumentException($"Unknown case '{c}' (skeleton, tree, speedup).", nameof(args));
            }
        }

        return options;
    }

    private static int Positive(string name, string value) => InRange(name, value, 1, int.MaxValue);

    private static int NonNegative(string name, string value) => InRange(name, value, 0, int.MaxValue);

    private static int PowerOfTwo(string name, string value)
    {
        int n = InRange(name, value, 2, 1 << 24);
        return (n & (n - 1)) == 0 ? n : throw new ArgumentException($"{name} must be a power of two, not {n}.", nameof(value));
    }

    private static int InRange(string name, string value, int min, int max) =>
        int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) && n >= min && n <= max
            ? n
            : throw new ArgumentException($"{name} must be an integer in [{min}, {max}], not '{value}'.", nameof(value));

    // A number, or 2^k.
    private static long ParseSize(string name, string value)
    {
        long size = value.StartsWith("2^", StringComparison.Ordinal)
            && int.TryParse(value.Remove(0, 2), NumberStyles.Integer, CultureInfo.InvariantCulture, out int k) && k is >= 0 and < 62
            ? 1L << k
            : long.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out long n) ? n : -1;
        return size > 0 ? size : throw new ArgumentException($"{name} must be a positive number or 2^k, not '{value}'.", nameof(value));
    }
}
