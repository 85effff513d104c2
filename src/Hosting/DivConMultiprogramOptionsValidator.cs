using System.Globalization;
using Microsoft.Extensions.Options;

namespace DivCon.Hosting;

/// <summary>
/// Checks <see cref="DivConMultiprogramOptions"/> when the host starts (and whenever the options are read): every
/// failure names the setting, its value and what is allowed, so a typo in configuration stops the start with a
/// message that says where it is. What only the machine can tell (which CPUs exist and may be used, whether pinning
/// is supported) is checked when the scheduler is created, right after.
/// </summary>
internal sealed class DivConMultiprogramOptionsValidator : IValidateOptions<DivConMultiprogramOptions>
{
    public ValidateOptionsResult Validate(string? name, DivConMultiprogramOptions options)
    {
        var failures = new List<string>();
        if (options.WorkerCount is < 1)
        {
            failures.Add(Describe(nameof(options.WorkerCount), options.WorkerCount, "it must be at least 1 (or left out: one per CPU)"));
        }

        if (!options.Pin && options.CpuIds.Count > 0)
        {
            failures.Add($"CpuIds is [{string.Join(", ", options.CpuIds)}] but Pin is false; CPU ids apply only to pinned workers.");
        }

        if (options.CpuIds.Count > 0 && options.WorkerCount is { } workers && workers != options.CpuIds.Count)
        {
            failures.Add($"WorkerCount is {workers} but CpuIds names {options.CpuIds.Count} CPUs; give one or make them agree.");
        }

        if (options.CpuIds.Any(id => id < 0))
        {
            failures.Add($"CpuIds is [{string.Join(", ", options.CpuIds)}]; CPU ids are not negative.");
        }

        if (options.CpuIds.Distinct().Count() != options.CpuIds.Count)
        {
            failures.Add($"CpuIds is [{string.Join(", ", options.CpuIds)}]; each CPU may be named once.");
        }

        if (!DivConPolicies.Names.Contains(options.Policy ?? string.Empty, StringComparer.OrdinalIgnoreCase))
        {
            failures.Add(Describe(nameof(options.Policy), options.Policy, $"use one of: {string.Join(", ", DivConPolicies.Names)}"));
        }

        if (options.RebalanceInterval < TimeSpan.Zero && options.RebalanceInterval != Timeout.InfiniteTimeSpan)
        {
            failures.Add(Describe(nameof(options.RebalanceInterval), options.RebalanceInterval, "it must be positive, zero (none) or -00:00:00.001 (infinite: none)"));
        }

        if (options.MoveHandoverThreshold < TimeSpan.Zero && options.MoveHandoverThreshold != Timeout.InfiniteTimeSpan)
        {
            failures.Add(Describe(nameof(options.MoveHandoverThreshold), options.MoveHandoverThreshold, "it must be zero, positive or -00:00:00.001 (infinite: no standby threads)"));
        }

        if (options.HistoryCapacity < 0)
        {
            failures.Add(Describe(nameof(options.HistoryCapacity), options.HistoryCapacity, "it must not be negative"));
        }

        foreach (KeyValuePair<string, DivConProgramOptions> program in options.Programs.OrderBy(p => p.Key, StringComparer.Ordinal))
        {
            if (string.IsNullOrWhiteSpace(program.Key))
            {
                failures.Add("Programs has a program with an empty name; name every program.");
            }

            double speedup = program.Value?.Speedup ?? double.NaN;
            if (!double.IsFinite(speedup) || speedup <= 0)
            {
                failures.Add(Describe($"Programs:{program.Key}:Speedup", speedup, "it must be a positive finite number (1 when unknown)"));
            }
        }

        return failures.Count == 0
            ? ValidateOptionsResult.Success
            : ValidateOptionsResult.Fail(failures.Select(f => "DivCon multiprogram options: " + f));
    }

    private static string Describe(string setting, object? value, string rule) =>
        string.Create(CultureInfo.InvariantCulture, $"{setting} is {(value is null ? "empty" : $"'{value}'")}; {rule}.");
}
