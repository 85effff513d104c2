using System.Globalization;
using DivCon.Programs;

namespace DivCon.Harness.Cli;

/// <summary>Parses <c>program=size</c> arguments (sizes may use a power of two: <c>quicksort=2^22</c>).</summary>
public static class SizeArguments
{
    /// <summary>What is wrong with the arguments (empty when they are valid).</summary>
    /// <param name="arguments">The arguments.</param>
    /// <returns>One message per problem.</returns>
    public static IReadOnlyList<string> Errors(IEnumerable<string> arguments)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        var errors = new List<string>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string argument in arguments)
        {
            if (!TrySplit(argument, out string name, out string sizeText))
            {
                errors.Add($"--sizes expects program=size, got '{argument}'.");
            }
            else if (!ProgramCatalog.TryFind(name, out ProgramDescriptor? program))
            {
                errors.Add($"Unknown program '{name}' in --sizes. Known: {string.Join(", ", ProgramCatalog.Names)}.");
            }
            else if (!TryParseSize(sizeText, out _))
            {
                errors.Add($"--sizes: '{sizeText}' is not a positive whole number (or 2^k) for {program.Name} ({program.SizeMeaning}).");
            }
            else if (!seen.Add(program.Name))
            {
                errors.Add($"--sizes gives {program.Name} twice.");
            }
        }

        return errors;
    }

    /// <summary>Parses valid arguments into sizes by canonical program name.</summary>
    /// <param name="arguments">The arguments.</param>
    /// <returns>The sizes.</returns>
    /// <exception cref="ArgumentException">The arguments are not valid (the message lists the problems).</exception>
    public static IReadOnlyDictionary<string, long> Parse(IEnumerable<string> arguments)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        string[] list = arguments.ToArray();
        IReadOnlyList<string> errors = Errors(list);
        if (errors.Count > 0)
        {
            throw new ArgumentException(string.Join(" ", errors), nameof(arguments));
        }

        var sizes = new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase);
        foreach (string argument in list)
        {
            bool valid = TrySplit(argument, out string name, out string sizeText) & TryParseSize(sizeText, out long size);
            System.Diagnostics.Debug.Assert(valid, "Errors() accepted the argument");
            sizes[ProgramCatalog.Find(name).Name] = size;
        }

        return sizes;
    }

    /// <summary>Parses a size: a positive integer or <c>2^k</c> (k from 0 to 62).</summary>
    /// <param name="text">The text.</param>
    /// <param name="size">The size.</param>
    /// <returns>Whether it parsed.</returns>
    public static bool TryParseSize(string text, out long size)
    {
        ArgumentNullException.ThrowIfNull(text);
        size = 0;
        if (text.StartsWith("2^", StringComparison.Ordinal))
        {
            if (int.TryParse(text.AsSpan(2), NumberStyles.None, CultureInfo.InvariantCulture, out int exponent) && exponent is >= 0 and <= 62)
            {
                size = 1L << exponent;
                return true;
            }

            return false;
        }

        return long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out size) && size > 0;
    }

    private static bool TrySplit(string argument, out string name, out string size)
    {
        int equals = argument.IndexOf('=', StringComparison.Ordinal);
        name = equals > 0 ? argument[..equals].Trim() : string.Empty;
        size = equals > 0 ? argument[(equals + 1)..].Trim() : string.Empty;
        return equals > 0 && size.Length > 0;
    }
}
