using DivCon.Harness.Experiments;
using DivCon.Harness.Wiring;

namespace DivCon.Harness.Schemes;

/// <summary>A selectable scheme: its name, a one-line description, whether it uses scalability profiles, and its factory.</summary>
/// <param name="Name">The name used on the command line and in reports.</param>
/// <param name="Description">One line for --help and the README.</param>
/// <param name="UsesProfiles">Whether the scheme needs the programs' scalability profiles.</param>
/// <param name="Create">Binds the scheme to a workload.</param>
public sealed record SchemeDefinition(
    string Name,
    string Description,
    bool UsesProfiles,
    Func<IReadOnlyList<WorkloadMember>, SchemeContext, IWorkloadScheme> Create);
