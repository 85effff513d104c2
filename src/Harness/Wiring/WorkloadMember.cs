using DivCon.Programs;

namespace DivCon.Harness.Wiring;

/// <summary>
/// One program instance of a workload under the name it reports with (e.g. "quicksort", or "quicksort#2" in a
/// symmetric test). The instance is built once and shared by every scheme of an experiment: programs never change
/// their input, so reruns need no re-initialisation.
/// </summary>
/// <param name="Name">The report name, unique within the workload.</param>
/// <param name="Program">The initialised program.</param>
public sealed record WorkloadMember(string Name, BenchmarkProgram Program)
{
    /// <summary>The key under which scalability profiles are stored: the program's problem size, invariant text.</summary>
    public string ProblemSizeKey => Program.ProblemSize.ToString(System.Globalization.CultureInfo.InvariantCulture);
}
