using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace DivCon.Harness.Cli;

/// <summary>
/// How every option of every command is declared: one line per option giving its name, type, bounds, default, help
/// and aliases, e.g.
/// <code>
/// var runs = OptionTable.Whole("--runs", "Recorded runs per configuration.", fallback: 10, min: 1, aliases: "-r");
/// var seconds = OptionTable.Number("--duration", "Simulated seconds per test.", fallback: 400, above: 0, unit: "seconds");
/// var mode = OptionTable.Choice("--mode", "What to simulate.", "cyclic", ["cyclic", "symmetric"]);
/// var file = OptionTable.Text("--machine", "Machine description.", fallback: null, helpName: "file");
/// </code>
/// Adding an option is one such line, then <c>command.Add(option)</c> and <c>parse.GetValue(option)</c>.
/// </summary>
/// <remarks>
/// <para>Each factory gives the option its own System.CommandLine parser, which reads the token with the invariant
/// culture and checks the bounds, so an unparsable, out-of-range or empty value is a parse error like any other:
/// <see cref="HarnessCli"/> prints it as one line <c>error: --option must be ..., not '...'.</c> on the error writer,
/// nothing on the output, and exits with <see cref="CommandActions.BadInput"/>. Nothing reads a typed value before
/// it parsed, so no value can crash the harness. The allowed range is appended to the help. A bound that depends on
/// the machine (the allowed CPUs) is a function, read only when the option is given, with its meaning for the help.</para>
/// <para>Every option made here is listed with values it must refuse (<see cref="RefusedValues"/>): the tests try
/// them on every option of every command, and fail on an option made outside this table.</para>
/// </remarks>
public static class OptionTable
{
    private static readonly ConditionalWeakTable<Option, Func<IReadOnlyList<string>>> s_refused = [];

    /// <summary>A whole number from <c>min</c> to <c>max</c>, with a default.</summary>
    public static Option<int> Whole(string name, string help, int fallback, int min, int max = int.MaxValue, params string[] aliases) =>
        DeclareWhole(new Option<int>(name, aliases) { DefaultValueFactory = _ => fallback }, help, min, () => max, null);

    /// <summary>A whole number without a default (the command computes one), its maximum read when given (<c>maxMeaning</c>
    /// says what it is, e.g. "the allowed CPUs").</summary>
    public static Option<int?> OptionalWhole(string name, string help, int min, Func<int> max, string? maxMeaning, params string[] aliases) =>
        DeclareWhole(new Option<int?>(name, aliases), help, min, max, maxMeaning);

    /// <summary>A whole number (long) of at least <c>min</c>, with a default.</summary>
    public static Option<long> WholeLong(string name, string help, long fallback, long min) =>
        Declare(new Option<long>(name) { DefaultValueFactory = _ => fallback }, help,
            t => long.TryParse(t, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long v) && v >= min ? (true, v) : (false, 0L),
            () => string.Create(CultureInfo.InvariantCulture, $"a whole number of at least {min}"),
            () => ["abc", "1.5", "", "99999999999999999999", (min - 1).ToString(CultureInfo.InvariantCulture)]);

    /// <summary>A finite number, with a default: at least <c>atLeast</c> or above <c>above</c> (or 0 with <c>orZero</c>),
    /// counting <c>unit</c>.</summary>
    public static Option<double> Number(
        string name, string help, double fallback, double? atLeast = null, double? above = null, bool orZero = false, string? unit = null, params string[] aliases) =>
        DeclareNumber(new Option<double>(name, aliases) { DefaultValueFactory = _ => fallback }, help, atLeast, above, orZero, unit);

    /// <summary>A finite number without a default (the command computes one).</summary>
    public static Option<double?> OptionalNumber(string name, string help, double? atLeast = null, double? above = null, string? unit = null, params string[] aliases) =>
        DeclareNumber(new Option<double?>(name, aliases), help, atLeast, above, orZero: false, unit);

    /// <summary>One of a few words (as typed), with a default.</summary>
    public static Option<string> Choice(string name, string help, string fallback, IReadOnlyList<string> choices) =>
        Declare(new Option<string>(name) { DefaultValueFactory = _ => fallback, HelpName = string.Join('|', choices) }, help,
            t => choices.Contains(t, StringComparer.Ordinal) ? (true, t) : (false, string.Empty), () => "one of " + string.Join(", ", choices), () => ["abc", ""], inHelp: false);

    /// <summary>A folder, file or other text that must not be blank; <c>check</c> returns why a value is refused (completing
    /// "must be ..."), or null, and <c>refused</c> lists values it refuses. Null when not given and <c>fallback</c> is null.</summary>
    public static Option<string?> Text(
        string name, string help, string? fallback, string helpName, Func<string, string?>? check = null, IReadOnlyList<string>? refused = null, params string[] aliases)
    {
        var option = new Option<string?>(name, aliases) { HelpName = helpName };
        if (fallback is not null)
        {
            option.DefaultValueFactory = _ => fallback;
        }

        return Declare(option, help, t => (string.IsNullOrWhiteSpace(t) || check?.Invoke(t) is not null) ? (false, null) : (true, t),
            () => "a non-blank " + helpName, () => ["", " ", .. refused ?? []], inHelp: false, why: t => string.IsNullOrWhiteSpace(t) ? null : check?.Invoke(t));
    }

    /// <summary>A results subfolder name: letters, digits, '-', '_', '.', not "." or "..".</summary>
    public static Option<string?> FolderName(string name, string help, string? fallback) =>
        Text(name, help, fallback, "folder", v => IsPlainName(v) ? null : "a plain folder name (letters, digits, '-', '_', '.')", ["a/b", "..", "x y"]);

    /// <summary>A switch (no value).</summary>
    public static Option<bool> Flag(string name, string help) => Register(new Option<bool>(name) { Description = help }, () => []);

    /// <summary>Known names (programs, schemes), space- or comma-separated, each checked against <c>known</c>; at least
    /// one, none twice. A typo fails with the list of valid names.</summary>
    public static Option<string[]> Names(
        string name, string help, IReadOnlyList<string> defaults, string kind, Func<string, bool> isKnown, IReadOnlyList<string> known, params string[] aliases)
    {
        string names = string.Join(", ", known);
        return List(name, $"{help} Known: {names}.", [.. defaults], kind + "s", aliases, (values, addError) =>
        {
            foreach (string value in values.Where(v => !isKnown(v)))
            {
                addError($"Unknown {kind} '{value}' in {name}. Known: {names}.");
            }

            if (values.GroupBy(v => v, StringComparer.OrdinalIgnoreCase).FirstOrDefault(g => g.Count() > 1)?.Key is { } repeated)
            {
                addError($"{kind} '{repeated}' is given twice in {name}.");
            }
        }, ["abc", ","]);
    }

    /// <summary>Whole numbers from <c>min</c> to <c>max</c>, space- or comma-separated; null when not given and <c>fallback</c> is null.</summary>
    public static Option<int[]> WholeList(string name, string help, int[]? fallback, int min, Func<int> max, string? maxMeaning, params string[] aliases)
    {
        var option = new Option<int[]>(name, aliases) { AllowMultipleArgumentsPerToken = true, Arity = ArgumentArity.OneOrMore, HelpName = "counts", Description = help };
        if (fallback is not null)
        {
            option.DefaultValueFactory = _ => fallback;
        }

        option.CustomParser = result =>
        {
            string[] parts = Split(result);
            string? bad = parts.Length == 0 ? string.Join(',', result.Tokens.Select(t => t.Value)) : parts.FirstOrDefault(p => WholeIn(p, min, max) is null);
            return bad is null ? [.. parts.Select(p => WholeIn(p, min, max)!.Value)] : Refuse<int[]>(result, name, RangeText(min, max, maxMeaning, "a list of whole numbers"), bad);
        };
        return Register(option, () => ["abc", "", "1,abc", (min - 1).ToString(CultureInfo.InvariantCulture), "99999999999"]);
    }

    /// <summary>Words, space- or comma-separated, at least one; <c>validate</c> adds an error (its second argument) per
    /// problem, and <c>refused</c> lists values it refuses.</summary>
    public static Option<string[]> List(
        string name, string help, string[] fallback, string helpName, string[] aliases, Action<string[], Action<string>> validate, IReadOnlyList<string> refused)
    {
        var option = new Option<string[]>(name, aliases)
        {
            AllowMultipleArgumentsPerToken = true, Arity = ArgumentArity.OneOrMore, CustomParser = Split, DefaultValueFactory = _ => fallback, HelpName = helpName, Description = help,
        };
        option.Validators.Add(result =>
        {
            // System.CommandLine validates an option left out too (its default): only what the user typed is checked.
            if (result.Implicit)
            {
                return;
            }

            string[] values = result.GetValueOrDefault<string[]>() ?? [];
            if (values.Length == 0)
            {
                result.AddError($"{name} must name at least one {helpName.TrimEnd('s')}, not '{string.Join(' ', result.Tokens.Select(t => t.Value))}'.");
                return;
            }

            validate(values, result.AddError);
        });
        return Register(option, () => ["", .. refused]);
    }

    /// <summary>
    /// Refuses options that only act on schemes the command will not run: the first of <paramref name="options"/> the
    /// user typed, when <paramref name="schemeRuns"/> is false, is bad input naming it and <paramref name="scheme"/>.
    /// </summary>
    /// <exception cref="ArgumentException">Such an option was given.</exception>
    public static void RequireScheme(ParseResult parse, bool schemeRuns, string scheme, params Option[] options) =>
        RequireScheme(parse, schemeRuns, scheme, "which --schemes leaves out", options);

    /// <summary>As <see cref="RequireScheme(ParseResult, bool, string, Option[])"/>, saying why the scheme does not run.</summary>
    /// <exception cref="ArgumentException">Such an option was given.</exception>
    public static void RequireScheme(ParseResult parse, bool schemeRuns, string scheme, string why, params Option[] options)
    {
        ArgumentNullException.ThrowIfNull(parse);
        if (schemeRuns)
        {
            return;
        }

        foreach (var option in options)
        {
            if (parse.GetResult(option) is { Implicit: false })
            {
                throw new ArgumentException($"{option.Name} applies to {scheme}, {why}.");
            }
        }
    }

    /// <summary>The values an option made here must refuse (unparsable, out of range, empty); null for an option made elsewhere.</summary>
    public static IReadOnlyList<string>? RefusedValues(Option option) => s_refused.TryGetValue(option, out var refused) ? refused() : null;

    /// <summary>Whether a name is a plain folder name (letters, digits, '-', '_', '.'; not "." or "..").</summary>
    public static bool IsPlainName(string name) =>
        name.Length > 0 && name is not ("." or "..") && name.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.');

    /// <summary>Every token split on commas, empty parts dropped.</summary>
    internal static string[] Split(ArgumentResult result) =>
        [.. result.Tokens.SelectMany(t => t.Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))];

    // The one parser of every single-valued option: the last token through the rule, or one error line naming the
    // option, what it must be (or why, from a check), and the token.
    private static Option<T> Declare<T>(
        Option<T> option, string help, Func<string, (bool Ok, T Value)> rule, Func<string> what, Func<IReadOnlyList<string>> refused, bool inHelp = true,
        Func<string, string?>? why = null, string? helpRange = null)
    {
        option.CustomParser = result =>
        {
            string token = result.Tokens.Count > 0 ? result.Tokens[^1].Value : string.Empty;
            (bool ok, T value) = rule(token);
            return ok ? value : Refuse<T>(result, option.Name, why?.Invoke(token) ?? what(), token);
        };
        option.Description = inHelp ? $"{help} ({helpRange ?? what()})" : help;
        return Register(option, refused);
    }

    private static Option<T> DeclareWhole<T>(Option<T> option, string help, int min, Func<int> max, string? maxMeaning) =>
        Declare(option, help, t => WholeIn(t, min, max) is { } v ? (true, (T)(object)v) : (false, default!), () => RangeText(min, max, maxMeaning), () =>
        {
            List<string> values = ["abc", "1.5", "", "99999999999"];
            values.AddRange(min > int.MinValue ? [(min - 1).ToString(CultureInfo.InvariantCulture)] : []);
            values.AddRange(max() < int.MaxValue ? [(max() + 1L).ToString(CultureInfo.InvariantCulture)] : []);
            return values;
        }, helpRange: maxMeaning is null ? null : string.Create(CultureInfo.InvariantCulture, $"a whole number from {min} to {maxMeaning}")); // the help never detects the machine

    private static Option<T> DeclareNumber<T>(Option<T> option, string help, double? atLeast, double? above, bool orZero, string? unit)
    {
        string bound = atLeast is { } a ? $" of at least {a.ToString(CultureInfo.InvariantCulture)}" : above is { } b ? $" above {b.ToString(CultureInfo.InvariantCulture)}" : "";
        string what = (orZero ? "0 (off) or " : "") + $"a number{(unit is null ? "" : " of " + unit)}{bound}";
        bool Valid(double v) => double.IsFinite(v) && v <= TimeSpan.MaxValue.TotalSeconds / 2
            && ((orZero && v == 0) || ((atLeast is not { } least || v >= least) && (above is not { } floor || v > floor)));
        string[] refused = ["abc", "", "NaN", "Infinity", .. atLeast is { } l ? [(l - 1).ToString(CultureInfo.InvariantCulture)] : Array.Empty<string>(),
            .. above is { } f ? [f.ToString(CultureInfo.InvariantCulture)] : Array.Empty<string>()];
        return Declare(option, help, t => double.TryParse(t, NumberStyles.Float, CultureInfo.InvariantCulture, out double v) && Valid(v)
            ? (true, (T)(object)v) : (false, default!), () => what, () => refused);
    }

    private static int? WholeIn(string token, int min, Func<int> max) =>
        int.TryParse(token, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int v) && v >= min && v <= max() ? v : null;

    private static string RangeText(int min, Func<int> max, string? maxMeaning, string noun = "a whole number") => (min, max(), maxMeaning) switch
    {
        (int.MinValue, int.MaxValue, null) => noun,
        (_, int.MaxValue, null) => string.Create(CultureInfo.InvariantCulture, $"{noun} of at least {min}"),
        (_, int top, null) => string.Create(CultureInfo.InvariantCulture, $"{noun} from {min} to {top}"),
        (_, int top, string meaning) => string.Create(CultureInfo.InvariantCulture, $"{noun} from {min} to {top} ({meaning})"),
    };

    private static T Refuse<T>(ArgumentResult result, string name, string what, string token)
    {
        result.AddError($"{name} must be {what}, not '{token}'.");
        return default!;
    }

    private static Option<T> Register<T>(Option<T> option, Func<IReadOnlyList<string>> refused)
    {
        s_refused.AddOrUpdate(option, refused);
        return option;
    }
}
