using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace DivCon.Harness.Cli;

/// <summary>
/// How every option of every command is declared: one call per option, giving its name and aliases, its type, its
/// bounds, its default and its help, e.g.
/// <code>
/// var runs = OptionTable.Whole("--runs", "Recorded runs per configuration.", fallback: 10, min: 1, aliases: "-r");
/// var seconds = OptionTable.Number("--duration", "Simulated seconds per test.", fallback: 400, above: 0);
/// var mode = OptionTable.Choice("--mode", "What to simulate.", "cyclic", ["cyclic", "symmetric"]);
/// </code>
/// Adding an option is one such line (then <c>command.Add(option)</c> and <c>parse.GetValue(option)</c>).
/// </summary>
/// <remarks>
/// <para>Each factory gives the option a parser of its own (a System.CommandLine custom parser) that reads the token
/// with the invariant culture and checks the bounds, so an unparsable, out-of-range or empty value is a parse error
/// like any other: <see cref="HarnessCli"/> prints it as one line <c>error: &lt;option&gt; must be ..., not '...'.</c>
/// on the error writer, nothing on the output, and exits with <see cref="CommandActions.BadInput"/>. Nothing reads a
/// typed value before it parsed, so no value can crash the harness. A bound that depends on the machine (the allowed
/// CPUs) is a function read only when the option is given.</para>
/// <para>Every option made here is listed with the values it must refuse (<see cref="RefusedValues"/>), which is how
/// the tests try every option of every command with bad input; an option made outside this table has no entry and
/// fails those tests.</para>
/// </remarks>
public static class OptionTable
{
    private static readonly ConditionalWeakTable<Option, Func<IReadOnlyList<string>>> s_refused = [];

    /// <summary>A whole number (int) from <paramref name="min"/> to <paramref name="max"/>, with a default.</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text (the allowed range is appended).</param>
    /// <param name="fallback">The default.</param>
    /// <param name="min">The least value.</param>
    /// <param name="max">The greatest value.</param>
    /// <param name="aliases">Short aliases.</param>
    /// <returns>The option.</returns>
    public static Option<int> Whole(string name, string help, int fallback, int min, int max = int.MaxValue, params string[] aliases)
    {
        var option = new Option<int>(name, aliases) { DefaultValueFactory = _ => fallback };
        return DeclareWhole(option, help, min, () => max, null, v => v);
    }

    /// <summary>A whole number (int) without a default value (the command computes one), bounded by a function read at
    /// parse time (e.g. the allowed CPUs).</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text, with what the default is (the allowed range is appended).</param>
    /// <param name="min">The least value.</param>
    /// <param name="max">The greatest value, read when the option is given.</param>
    /// <param name="maxMeaning">What the greatest value is, for messages and help (e.g. "the allowed CPUs"), or null.</param>
    /// <param name="aliases">Short aliases.</param>
    /// <returns>The option.</returns>
    public static Option<int?> OptionalWhole(string name, string help, int min, Func<int> max, string? maxMeaning, params string[] aliases)
    {
        ArgumentNullException.ThrowIfNull(max);
        return DeclareWhole(new Option<int?>(name, aliases), help, min, max, maxMeaning, v => v);
    }

    /// <summary>A whole number (long) of at least <paramref name="min"/>, with a default.</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text.</param>
    /// <param name="fallback">The default.</param>
    /// <param name="min">The least value.</param>
    /// <returns>The option.</returns>
    public static Option<long> WholeLong(string name, string help, long fallback, long min)
    {
        var option = new Option<long>(name) { DefaultValueFactory = _ => fallback };
        string what = string.Create(CultureInfo.InvariantCulture, $"a whole number of at least {min}");
        return Declare(option, help, token => long.TryParse(token, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long v) && v >= min
            ? (true, v) : (false, 0L), () => what, () => ["abc", "1.5", "", "99999999999999999999", (min - 1).ToString(CultureInfo.InvariantCulture)]);
    }

    /// <summary>A finite number, with a default.</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text.</param>
    /// <param name="fallback">The default.</param>
    /// <param name="atLeast">The least value, if the bound is inclusive.</param>
    /// <param name="above">The bound the value must exceed, if exclusive.</param>
    /// <param name="orZero">Whether 0 (off) is allowed besides the range.</param>
    /// <param name="unit">What the number counts, for messages ("seconds").</param>
    /// <param name="aliases">Short aliases.</param>
    /// <returns>The option.</returns>
    public static Option<double> Number(
        string name, string help, double fallback, double? atLeast = null, double? above = null, bool orZero = false, string? unit = null, params string[] aliases)
    {
        var option = new Option<double>(name, aliases) { DefaultValueFactory = _ => fallback };
        return DeclareNumber(option, help, atLeast, above, orZero, unit, v => v);
    }

    /// <summary>A finite number without a default value (the command computes one).</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text, with what the default is.</param>
    /// <param name="atLeast">The least value, if the bound is inclusive.</param>
    /// <param name="above">The bound the value must exceed, if exclusive.</param>
    /// <param name="unit">What the number counts, for messages.</param>
    /// <param name="aliases">Short aliases.</param>
    /// <returns>The option.</returns>
    public static Option<double?> OptionalNumber(string name, string help, double? atLeast = null, double? above = null, string? unit = null, params string[] aliases) =>
        DeclareNumber(new Option<double?>(name, aliases), help, atLeast, above, orZero: false, unit, v => v);

    /// <summary>One of a few words, with a default (case-sensitive, as typed in the help).</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text.</param>
    /// <param name="fallback">The default.</param>
    /// <param name="choices">The words.</param>
    /// <returns>The option.</returns>
    public static Option<string> Choice(string name, string help, string fallback, IReadOnlyList<string> choices)
    {
        ArgumentNullException.ThrowIfNull(choices);
        var option = new Option<string>(name) { DefaultValueFactory = _ => fallback, HelpName = string.Join('|', choices) };
        return Declare(option, help, token => choices.Contains(token, StringComparer.Ordinal) ? (true, token) : (false, string.Empty),
            () => "one of " + string.Join(", ", choices), () => ["abc", ""], appendRule: false);
    }

    /// <summary>A folder, file or other text that must not be empty; optionally checked further.</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text.</param>
    /// <param name="fallback">The default, or null for none (the value is then null when not given).</param>
    /// <param name="helpName">The value's name in the help ("folder", "file").</param>
    /// <param name="check">Returns why a value is refused (a phrase completing "must be ..."), or null when it is fine.</param>
    /// <param name="refused">Values <paramref name="check"/> refuses, for the tests.</param>
    /// <param name="aliases">Short aliases.</param>
    /// <returns>The option.</returns>
    public static Option<string?> Text(
        string name, string help, string? fallback, string helpName, Func<string, string?>? check = null, IReadOnlyList<string>? refused = null, params string[] aliases)
    {
        var option = new Option<string?>(name, aliases) { HelpName = helpName };
        if (fallback is not null)
        {
            option.DefaultValueFactory = _ => fallback;
        }

        option.CustomParser = result =>
        {
            string token = Token(result);
            string? problem = string.IsNullOrWhiteSpace(token) ? "a non-empty " + helpName : check?.Invoke(token);
            return problem is null ? token : Refuse<string?>(result, name, problem, token);
        };
        return Register(option, help, ["", " ", .. refused ?? []]);
    }

    /// <summary>A results subfolder name: letters, digits, '-', '_', '.', not "." or ".." (see
    /// <see cref="Reports.ResultsFolder.ValidateName"/>).</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text.</param>
    /// <param name="fallback">The default, or null for none.</param>
    /// <returns>The option.</returns>
    public static Option<string?> FolderName(string name, string help, string? fallback) =>
        Text(name, help, fallback, "folder",
            v => v is "." or ".." || !v.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.') ? "a plain folder name (letters, digits, '-', '_', '.')" : null,
            ["a/b", "..", "x y"]);

    /// <summary>A switch (no value).</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text.</param>
    /// <returns>The option.</returns>
    public static Option<bool> Flag(string name, string help) => Register(new Option<bool>(name), help, []);

    /// <summary>
    /// A list of known names (programs, schemes, strategies), space- or comma-separated
    /// (<c>--programs quicksort,mergesort</c> or <c>--programs quicksort mergesort</c>), each checked against the known
    /// names so that a typo fails with the list of valid names; no name twice, at least one.
    /// </summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text (the known names are appended).</param>
    /// <param name="defaults">The default names.</param>
    /// <param name="kind">What the names are, for messages ("program").</param>
    /// <param name="isKnown">Whether a name is valid.</param>
    /// <param name="known">The valid names, for messages.</param>
    /// <param name="aliases">Short aliases.</param>
    /// <returns>The option.</returns>
    public static Option<string[]> Names(
        string name, string help, IReadOnlyList<string> defaults, string kind, Func<string, bool> isKnown, IReadOnlyList<string> known, params string[] aliases)
    {
        ArgumentNullException.ThrowIfNull(defaults);
        ArgumentNullException.ThrowIfNull(isKnown);
        ArgumentNullException.ThrowIfNull(known);
        string names = string.Join(", ", known);
        return List(name, $"{help} Known: {names}.", [.. defaults], kind + "s", aliases, (values, addError) =>
        {
            if (values.Length == 0)
            {
                addError($"{name} needs at least one {kind}. Known: {names}.");
            }

            foreach (string value in values.Where(v => !isKnown(v)))
            {
                addError($"Unknown {kind} '{value}' in {name}. Known: {names}.");
            }

            if (values.GroupBy(v => v, StringComparer.OrdinalIgnoreCase).FirstOrDefault(g => g.Count() > 1)?.Key is { } repeated)
            {
                addError($"{kind} '{repeated}' is given twice in {name}.");
            }
        }, ["abc", "", ","]);
    }

    /// <summary>A list of whole numbers from <paramref name="min"/> to <paramref name="max"/> (space- or comma-separated).</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text, with what the default is.</param>
    /// <param name="fallback">The default numbers, or null for none (the value is then null when not given).</param>
    /// <param name="min">The least value.</param>
    /// <param name="max">The greatest value, read when the option is given.</param>
    /// <param name="maxMeaning">What the greatest value is, for messages (e.g. "the allowed CPUs").</param>
    /// <param name="aliases">Short aliases.</param>
    /// <returns>The option.</returns>
    public static Option<int[]> WholeList(string name, string help, int[]? fallback, int min, Func<int> max, string? maxMeaning, params string[] aliases)
    {
        ArgumentNullException.ThrowIfNull(max);
        Func<string, (bool Ok, int Value)> rule = WholeRule(min, max);
        var option = new Option<int[]>(name, aliases)
        {
            AllowMultipleArgumentsPerToken = true,
            Arity = ArgumentArity.OneOrMore,
            HelpName = "counts",
        };
        if (fallback is not null)
        {
            option.DefaultValueFactory = _ => fallback;
        }

        option.CustomParser = result =>
        {
            string[] parts = Split(result);
            string? bad = parts.Length == 0 ? string.Join(',', result.Tokens.Select(t => t.Value)) : parts.FirstOrDefault(p => !rule(p).Ok);
            return bad is null ? [.. parts.Select(p => rule(p).Value)] : Refuse<int[]>(result, name, RangeText(min, max, maxMeaning, "a list of whole numbers"), bad);
        };
        return Register(option, help, ["abc", "", "1,abc", (min - 1).ToString(CultureInfo.InvariantCulture), "99999999999"]);
    }

    /// <summary>A list of words (space- or comma-separated), each checked by <paramref name="validate"/>.</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="help">Help text.</param>
    /// <param name="fallback">The default words.</param>
    /// <param name="helpName">The value's name in the help.</param>
    /// <param name="aliases">Short aliases.</param>
    /// <param name="validate">Adds an error line (through its second argument) for each problem of the list.</param>
    /// <param name="refused">Values the validation refuses, for the tests (the empty value is always among them).</param>
    /// <returns>The option.</returns>
    public static Option<string[]> List(
        string name, string help, string[] fallback, string helpName, string[] aliases, Action<string[], Action<string>> validate, IReadOnlyList<string> refused)
    {
        ArgumentNullException.ThrowIfNull(validate);
        var option = new Option<string[]>(name, aliases)
        {
            AllowMultipleArgumentsPerToken = true,
            Arity = ArgumentArity.OneOrMore,
            CustomParser = Split,
            DefaultValueFactory = _ => fallback,
            HelpName = helpName,
        };
        option.Validators.Add(result =>
        {
            string[] values = result.GetValueOrDefault<string[]>() ?? [];
            if (values.Length == 0 && result.Tokens.Count > 0)
            {
                result.AddError($"{name} must name at least one {helpName.TrimEnd('s')}, not '{string.Join(' ', result.Tokens.Select(t => t.Value))}'.");
                return;
            }

            validate(values, result.AddError);
        });
        return Register(option, help, ["", .. refused]);
    }

    /// <summary>The values an option made here must refuse (unparsable, out of range, empty), or null for an option
    /// made outside this table.</summary>
    /// <param name="option">The option.</param>
    /// <returns>The values, or null.</returns>
    public static IReadOnlyList<string>? RefusedValues(Option option)
    {
        ArgumentNullException.ThrowIfNull(option);
        return s_refused.TryGetValue(option, out var refused) ? refused() : null;
    }

    /// <summary>Splits every token on commas, dropping empty parts.</summary>
    /// <param name="result">The tokens.</param>
    /// <returns>The parts.</returns>
    internal static string[] Split(ArgumentResult result) =>
        [.. result.Tokens.SelectMany(t => t.Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))];

    private static Option<T> Declare<T>(
        Option<T> option, string help, Func<string, (bool Ok, T Value)> rule, Func<string> what, Func<IReadOnlyList<string>> refused, bool appendRule = true)
    {
        option.CustomParser = result =>
        {
            string token = Token(result);
            (bool ok, T value) = rule(token);
            return ok ? value : Refuse<T>(result, option.Name, what(), token);
        };
        option.Description = appendRule ? $"{help} ({what()})" : help;
        s_refused.AddOrUpdate(option, refused);
        return option;
    }

    private static Option<T> DeclareWhole<T>(Option<T> option, string help, int min, Func<int> max, string? maxMeaning, Func<int, T> wrap)
    {
        Func<string, (bool Ok, int Value)> rule = WholeRule(min, max);
        // The help states the bound by its meaning when it depends on the machine: the help must not detect the machine.
        string helpText = maxMeaning is null ? $"{help} ({RangeText(min, max, null)})"
            : string.Create(CultureInfo.InvariantCulture, $"{help} (a whole number from {min} to {maxMeaning})");
        Declare(option, help, token => rule(token) is (true, int v) ? (true, wrap(v)) : (false, default!), () => RangeText(min, max, maxMeaning), WholeRefused(min, max), appendRule: false);
        option.Description = helpText;
        return option;
    }

    private static Option<T> DeclareNumber<T>(Option<T> option, string help, double? atLeast, double? above, bool orZero, string? unit, Func<double, T> wrap)
    {
        string bound = (atLeast, above) switch
        {
            ({ } a, _) => string.Create(CultureInfo.InvariantCulture, $" of at least {a}"),
            (_, { } b) => string.Create(CultureInfo.InvariantCulture, $" above {b}"),
            _ => string.Empty,
        };
        string what = (orZero ? "0 (off) or " : string.Empty) + $"a number{(unit is null ? "" : " of " + unit)}{bound}";
        bool Valid(double v) => double.IsFinite(v) && v <= TimeSpan.MaxValue.TotalSeconds / 2
            && ((orZero && v == 0) || ((atLeast is not { } a || v >= a) && (above is not { } b || v > b)));
        List<string> refused = ["abc", "", "NaN", "Infinity"];
        if (atLeast is { } least)
        {
            refused.Add((least - 1).ToString(CultureInfo.InvariantCulture));
        }

        if (above is { } floor)
        {
            refused.Add(floor.ToString(CultureInfo.InvariantCulture));
        }

        return Declare(option, help, token => double.TryParse(token, NumberStyles.Float, CultureInfo.InvariantCulture, out double v) && Valid(v)
            ? (true, wrap(v)) : (false, default!), () => what, () => refused);
    }

    private static Func<string, (bool Ok, int Value)> WholeRule(int min, Func<int> max) => token =>
        int.TryParse(token, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int v) && v >= min && v <= max() ? (true, v) : (false, 0);

    private static Func<IReadOnlyList<string>> WholeRefused(int min, Func<int> max) => () =>
    {
        var values = new List<string> { "abc", "1.5", "", "99999999999" };
        if (min > int.MinValue)
        {
            values.Add((min - 1).ToString(CultureInfo.InvariantCulture));
        }

        if (max() < int.MaxValue)
        {
            values.Add((max() + 1L).ToString(CultureInfo.InvariantCulture));
        }

        return values;
    };

    private static string RangeText(int min, Func<int> max, string? maxMeaning, string noun = "a whole number") => (min, max(), maxMeaning) switch
    {
        (int.MinValue, int.MaxValue, null) => noun,
        (_, int.MaxValue, null) => string.Create(CultureInfo.InvariantCulture, $"{noun} of at least {min}"),
        (_, int top, null) => string.Create(CultureInfo.InvariantCulture, $"{noun} from {min} to {top}"),
        (_, int top, string meaning) => string.Create(CultureInfo.InvariantCulture, $"{noun} from {min} to {top} ({meaning})"),
    };

    private static string Token(ArgumentResult result) => result.Tokens.Count > 0 ? result.Tokens[^1].Value : string.Empty;

    private static T Refuse<T>(ArgumentResult result, string name, string what, string token)
    {
        result.AddError($"{name} must be {what}, not '{token}'.");
        return default!;
    }

    private static Option<T> Register<T>(Option<T> option, string help, IReadOnlyList<string> refused)
    {
        option.Description = help;
        s_refused.AddOrUpdate(option, () => refused);
        return option;
    }
}
