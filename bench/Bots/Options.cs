using System.Globalization;
using DivCon.Bench.Bots.Kernels;

namespace DivCon.Bench.Bots;

/// <summary>The command line (README.md beside this file).</summary>
internal sealed class Options
{
    public IReadOnlyList<string> Kernels { get; private set; } = KernelCatalog.Names;

    public int Rounds { get; private set; } = 5;

    public int Warmups { get; private set; } = 1;

    public KernelSize Size { get; private set; } = KernelSize.Bots;

    public string OutputDirectory { get; private set; } = "results-local";

    /// <summary>Whether each variant runs in a process of its own (<c>--isolated</c>) rather than all in this one.</summary>
    public bool Isolated { get; private set; }

    /// <summary>Parses <paramref name="args"/>.</summary>
    /// <exception cref="ArgumentException">An option is unknown, lacks its value or has a bad value (the message names it).</exception>
    public static Options Parse(IReadOnlyList<string> args)
    {
        var options = new Options();
        for (int i = 0; i < args.Count; i++)
        {
            string name = args[i];
            string Value() => i + 1 < args.Count ? args[++i] : throw new ArgumentException($"{name} needs a value.", nameof(args));
            switch (name)
            {
                case "--kernels":
                    options.Kernels = ParseKernels(Value());
                    break;
                case "--rounds":
                    options.Rounds = Integer(name, Value(), 1, 1000);
                    break;
                case "--warmup":
                    options.Warmups = Integer(name, Value(), 0, 100);
                    break;
                case "--size":
                    options.Size = ParseSize(Value(), name);
                    break;
                case "--out":
                    string directory = Value();
                    options.OutputDirectory = directory.Length > 0 ? directory : throw new ArgumentException("--out needs a directory.", nameof(args));
                    break;
                case "--isolated":
                    options.Isolated = true;
                    break;
                default:
                    throw new ArgumentException($"unknown option '{name}' (--kernels, --rounds, --warmup, --size, --out, --isolated).", nameof(args));
            }
        }

        return options;
    }

    /// <summary>Parses a kernel size (<c>small</c> or <c>bots</c>), the value of <paramref name="name"/>.</summary>
    /// <exception cref="ArgumentException">Neither (the message names <paramref name="name"/> and the value).</exception>
    internal static KernelSize ParseSize(string value, string name) => value switch
    {
        "small" => KernelSize.Small,
        "bots" => KernelSize.Bots,
        _ => throw new ArgumentException($"{name} must be small or bots, not '{value}'.", nameof(value)),
    };

    private static string[] ParseKernels(string value)
    {
        string[] names = value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        if (names.Length == 0)
        {
            throw new ArgumentException("--kernels needs at least one name.", nameof(value));
        }

        foreach (string name in names)
        {
            if (!KernelCatalog.Names.Contains(name))
            {
                throw new ArgumentException($"--kernels: unknown kernel '{name}' (known: {string.Join(",", KernelCatalog.Names)}).", nameof(value));
            }
        }

        return names.Distinct().ToArray();
    }

    private static int Integer(string name, string value, int min, int max) =>
        int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) && n >= min && n <= max
            ? n
            : throw new ArgumentException($"{name} must be an integer in [{min}, {max}], not '{value}'.", nameof(value));
}
