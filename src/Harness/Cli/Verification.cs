using DivCon.Harness.Workload;

namespace DivCon.Harness.Cli;

/// <summary>Checks the last results of a workload after a sweep.</summary>
public static class Verification
{
    /// <summary>Verifies every program that has a result.</summary>
    /// <param name="workload">The programs.</param>
    /// <param name="experiment">Experiment name, for the message.</param>
    /// <exception cref="InvalidOperationException">A result is wrong.</exception>
    public static void VerifyAll(IReadOnlyList<WorkloadProgram> workload, string experiment)
    {
        ArgumentNullException.ThrowIfNull(workload);
        foreach (WorkloadProgram member in workload.Where(m => m.Program.HasResult))
        {
            var verification = member.Program.Verify();
            if (!verification.Succeeded)
            {
                throw new InvalidOperationException($"{experiment}: {member.Name} computed a wrong result: {verification.Message}");
            }
        }
    }
}
