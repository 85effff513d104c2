using System.CommandLine;
using System.CommandLine.Parsing;

namespace DivCon.Harness.Cli;

/// <summary>
/// Options taking a list of names (programs, schemes, strategies): space- or comma-separated
/// (<c>--programs quicksort,mergesort</c> or <c>--programs quicksort mergesort</c>), each checked against the known
/// names so that a typo fails at parse time with the list of valid names.
/// </summary>
public static class NameListOption
{
    /// <summary>Creates the option.</summary>
    /// <param name="name">The option's name (e.g. "--programs").</param>
    /// <param name="description">Help text.</param>
    /// <param name="defaults">The default names.</param>
    /// <param name="kind">What the names are, for messages ("program", "scheme").</param>
    /// <param name="isKnown">Whether a name is valid.</param>
    /// <param name="known">The valid names, for messages.</param>
    /// <param name="aliases">Short aliases (e.g. "-p").</param>
    /// <returns>The option.</returns>
    public static Option<string[]> Create(
        string name, string description, IReadOnlyList<string> defaults, string kind, Func<string, bool> isKnown, IReadOnlyList<string> known, params string[] aliases)
    {
        ArgumentNullException.ThrowIfNull(defaults);
        ArgumentNullException.ThrowIfNull(isKnown);
        ArgumentNullException.ThrowIfNull(known);
        var option = new Option<string[]>(name, aliases)
        {
            Description = $"{description} Known: {string.Join(", ", known)}.",
            AllowMultipleArgumentsPerToken = true,
            Arity = ArgumentArity.OneOrMore,
            CustomParser = Split,
            DefaultValueFactory = _ => defaults.ToArray(),
            HelpName = kind + "s",
        };
        option.Validators.Add(result =>
        {
            string[] values = result.GetValueOrDefault<string[]>() ?? [];
            if (values.Length == 0)
            {
                result.AddError($"{name} needs at least one {kind}. Known: {string.Join(", ", known)}.");
            }

            foreach (string value in values.Where(v => !isKnown(v)))
            {
                result.AddError($"Unknown {kind} '{value}' in {name}. Known: {string.Join(", ", known)}.");
            }

            string? repeated = values.GroupBy(v => v, StringComparer.OrdinalIgnoreCase).FirstOrDefault(g => g.Count() > 1)?.Key;
            if (repeated is not null)
            {
                result.AddError($"{kind} '{repeated}' is given twice in {name}.");
            }
        });
        return option;
    }

    /// <summary>Splits every token on commas, dropping empty parts.</summary>
    /// <param name="result">The tokens.</param>
    /// <returns>The names.</returns>
    internal static string[] Split(ArgumentResult result) =>
        result.Tokens.SelectMany(t => t.Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)).ToArray();
}
