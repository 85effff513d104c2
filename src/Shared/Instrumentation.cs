using System.Diagnostics.CodeAnalysis;

namespace DivCon;

/// <summary>
/// The feature switch that removes DivCon's instruments and events: <c>DivCon.Instrumentation.IsSupported</c> (an
/// <see cref="AppContext"/> switch, on unless set to <see langword="false"/>; set it in the application's project with
/// <c>&lt;RuntimeHostConfigurationOption Include="DivCon.Instrumentation.IsSupported" Value="false" Trim="true" /&gt;</c>
/// or in its <c>runtimeconfig.json</c>). The runtime's own switches remove one part each:
/// <c>System.Diagnostics.Metrics.Meter.IsSupported</c> the meters of both libraries,
/// <c>System.Diagnostics.Tracing.EventSource.IsSupported</c> the <c>DivCon-Multiprogram</c> event source.
/// </summary>
/// <remarks>
/// One source, compiled into each library that has instruments (each gets its own internal copy: the libraries never
/// reference each other, and no assembly is a friend of both). Off, the meters' instruments and the event source are
/// never created, the counters kept only for a meter are not counted, and no call site reads a listener's flag. Each
/// value is read once, when this class is first used, into a read-only static, so that the JIT's optimized code (and
/// the trimmer, through <see cref="FeatureSwitchDefinitionAttribute"/>) drops the guarded code. Switching at run time
/// (<see cref="AppContext.SetSwitch"/>) therefore only works before the first run or scheduler.
/// </remarks>
internal static class Instrumentation
{
    /// <summary>The switch's name.</summary>
    public const string SwitchName = "DivCon.Instrumentation.IsSupported";

    /// <summary>The runtime's switch that disables every <c>Meter</c>.</summary>
    public const string MeterSwitchName = "System.Diagnostics.Metrics.Meter.IsSupported";

    /// <summary>The runtime's switch that disables every <c>EventSource</c>.</summary>
    public const string EventSourceSwitchName = "System.Diagnostics.Tracing.EventSource.IsSupported";

    private static readonly bool s_metersSupported = IsOn(MeterSwitchName);
    private static readonly bool s_eventSourcesSupported = IsOn(EventSourceSwitchName);

    /// <summary>Whether DivCon's instruments and events are present (the switch is not set to false).</summary>
    [FeatureSwitchDefinition(SwitchName)]
    public static bool IsSupported { get; } = IsOn(SwitchName);

    /// <summary>Whether the library's meter and its counters exist: <see cref="IsSupported"/> and the runtime's meters supported.</summary>
    public static bool MetricsEnabled => IsSupported && s_metersSupported; // IsSupported first: the trimmer folds it.

    /// <summary>Whether the library's event source exists: <see cref="IsSupported"/> and the runtime's event sources supported.</summary>
    public static bool EventsEnabled => IsSupported && s_eventSourcesSupported;

    /// <summary>The decision on plain data: a feature is present unless a switch says false.</summary>
    /// <param name="switches">The switches' values (null: not set).</param>
    /// <returns>Whether no switch is set to false.</returns>
    public static bool Decide(params bool?[] switches) => switches.All(s => s != false);

    private static bool IsOn(string name) => Decide(AppContext.TryGetSwitch(name, out bool value) ? value : null);
}
