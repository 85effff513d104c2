using DivCon.Harness.Reports;
using DivCon.Harness.Terminal;
using Spectre.Console;

namespace DivCon.Harness.Experiments;

/// <summary>What every experiment gets from its caller: where to write, where to report, and the clock.</summary>
/// <param name="Output">The experiment's results folder (already stamped).</param>
/// <param name="Progress">Progress sink (<see cref="NullProgressSink.Instance"/> for none).</param>
/// <param name="Console">Console for summary tables, or null for none.</param>
/// <param name="Time">Clock (<see cref="TimeProvider.System"/> outside tests).</param>
public sealed record ExperimentContext(ResultsFolder Output, IProgressSink Progress, IAnsiConsole? Console, TimeProvider Time);
