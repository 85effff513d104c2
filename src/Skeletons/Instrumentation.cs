using System.Diagnostics.CodeAnalysis;

namespace DivCon.Skeletons;

/// <summary>
/// The feature switch that removes the skeleton's instruments: <c>DivCon.Instrumentation.IsSupported</c> (an
/// <see cref="AppContext"/> switch, on unless set to <see langword="false"/>; set it in the application's project
/// with <c>&lt;RuntimeHostConfigurationOption Include="DivCon.Instrumentation.IsSupported" Value="false" Trim="true" /&gt;</c>
/// or in its <c>runtimeconfig.json</c>). The runtime's own <c>System.Diagnostics.Metrics.Meter.IsSupported</c> switch
/// set to <see langword="false"/> removes them too.
/// </summary>
/// <remarks>
/// Off, the <c>DivCon.Skeletons</c> meter is never created and no hook records anything. The value is read once, when
/// this class is first used, into a read-only static, so that the JIT's optimized code (and the trimmer, through
/// <see cref="FeatureSwitchDefinitionAttribute"/>) drops the guarded calls: a guarded hook costs nothing once compiled.
/// Switching at run time (<see cref="AppContext.SetSwitch"/>) therefore only works before the first run.
/// </remarks>
internal static class Instrumentation
{
    /// <summary>The switch's name (shared with <c>DivCon.Schedulers</c>).</summary>
    public const string SwitchName = "DivCon.Instrumentation.IsSupported";

    /// <summary>The runtime's switch that disables every <c>Meter</c>.</summary>
    public const string MeterSwitchName = "System.Diagnostics.Metrics.Meter.IsSupported";

    private static readonly bool s_metersSupported = IsOn(MeterSwitchName);

    /// <summary>Whether DivCon's instruments are present (the switch is not set to false).</summary>
    [FeatureSwitchDefinition(SwitchName)]
    public static bool IsSupported { get; } = IsOn(SwitchName);

    /// <summary>Whether the skeleton's meter exists: <see cref="IsSupported"/> and the runtime's meters supported.</summary>
    public static bool MetricsEnabled => IsSupported && s_metersSupported; // IsSupported first: the trimmer folds it.

    /// <summary>The decision on plain data: a feature is present unless a switch says false.</summary>
    /// <param name="switches">The switches' values (null: not set).</param>
    /// <returns>Whether no switch is set to false.</returns>
    public static bool Decide(params bool?[] switches) => switches.All(s => s != false);

    private static bool IsOn(string name) => Decide(AppContext.TryGetSwitch(name, out bool value) ? value : null);
}
