#if NET
using System.Globalization;
using DivCon.Harness.Benchmarks;

namespace DivCon.Bench.Runtimes;

/// <summary>
/// <c>flat</c>: one child of the paired comparison of two builds (<c>scripts/bench-pairs.sh</c>, the harness's
/// <c>bench-pairs</c>). Times the flat cases of the harness's <c>FlatWorkloads</c> (linked into this project, so the
/// same code is compiled against each build's libraries) and writes one <c>case NAME NS_PER_CALL BATCHES</c> line
/// each. .NET only: the paired comparison compares builds, not runtimes.
/// </summary>
internal static class FlatCommand
{
    /// <summary>The usage line.</summary>
    public const string Usage = "DivCon.Bench.Runtimes flat [--warmup 1] [--seconds 1] [--workers 2] [--only sum.plain-recursion,...]";

    /// <summary>Parses the options and runs the cases.</summary>
    /// <param name="arguments">The arguments after <c>flat</c>.</param>
    /// <param name="output">Where the lines go.</param>
    /// <exception cref="ArgumentException">An unknown option or a bad value.</exception>
    public static void Run(string[] arguments, TextWriter output)
    {
        double warmup = 1, seconds = 1;
        int workers = 2;
        HashSet<string>? only = null;
        for (int i = 0; i < arguments.Length; i += 2)
        {
            string option = arguments[i];
            if (i + 1 >= arguments.Length)
            {
                throw new ArgumentException($"{option} needs a value.", nameof(arguments));
            }

            string value = arguments[i + 1];
            switch (option)
            {
                case "--warmup": warmup = Seconds(option, value, 0); break;
                case "--seconds": seconds = Seconds(option, value, 0.01); break;
                case "--workers":
                    workers = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int w) && w >= 1
                        ? w
                        : throw new ArgumentException($"--workers must be a whole number of at least 1, got '{value}'.", nameof(arguments));
                    break;
                case "--only":
                    only = [.. value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];
                    string[] unknown = [.. only.Where(n => !FlatWorkloads.Cases.Any(c => c.Name == n))];
                    if (only.Count == 0 || unknown.Length > 0)
                    {
                        throw new ArgumentException($"--only must name cases among {string.Join(", ", FlatWorkloads.Cases.Select(c => c.Name))}, got '{value}'.", nameof(arguments));
                    }

                    break;
                default: throw new ArgumentException($"Unknown option '{option}'.", nameof(arguments));
            }
        }

        FlatWorkloads.Run(output, warmup, seconds, workers, only);
    }

    private static double Seconds(string option, string value, double minimum) =>
        double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double s) && s >= minimum && s <= 600
            ? s
            : throw new ArgumentException($"{option} must be a number of seconds from {minimum} to 600, got '{value}'.", nameof(value));
}
#endif
