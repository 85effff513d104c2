namespace DivCon.Harness.Cyclic;

/// <summary>One finished run of one program in a cyclic test.</summary>
/// <param name="Program">Program name.</param>
/// <param name="RunIndex">0-based index of this run among the program's runs (counted or not).</param>
/// <param name="Start">When the run started, measured from the start of the test.</param>
/// <param name="End">When the run finished, measured from the start of the test.</param>
/// <param name="Counted">False when the run ended after the time limit, so its timing is discarded.</param>
public sealed record RunRecord(string Program, int RunIndex, TimeSpan Start, TimeSpan End, bool Counted)
{
    /// <summary>The run's duration, <c>End - Start</c>.</summary>
    public TimeSpan Duration => End - Start;
}
