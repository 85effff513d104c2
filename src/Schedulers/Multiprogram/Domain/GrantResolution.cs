using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>
/// What a machine domain's grant means for this process now (pure: plain data in, plain data out): the CPU sets of
/// its live programs, the entries it ignores, or why the whole grant is refused.
/// </summary>
/// <param name="Assignment">The CPUs of each live program the grant lists (own CPUs only); null when refused.</param>
/// <param name="UnknownPrograms">Listed programs that are not live here (ignored: a program that left, or a stale grant).</param>
/// <param name="ForeignCpus">Listed CPUs that are not this process's (ignored: the domain never hands out others).</param>
/// <param name="Rejection">Why the grant is refused as a whole (a CPU listed twice, a missing list), or null.</param>
internal sealed record GrantResolution(
    CpuAssignment? Assignment, IReadOnlyList<ProgramId> UnknownPrograms, IReadOnlyList<int> ForeignCpus, string? Rejection)
{
    /// <summary>Whether the grant can be applied.</summary>
    public bool IsValid => Assignment is not null;

    /// <summary>Own CPUs the grant gives to no live program: withheld (their workers sleep at home in the idle set).</summary>
    /// <param name="ownCpus">This process's CPUs.</param>
    /// <returns>The withheld CPUs, in the given order; empty when refused.</returns>
    public IReadOnlyList<int> Withheld(IEnumerable<int> ownCpus) =>
        Assignment is { } assignment ? [.. ownCpus.Where(cpu => assignment.OwnerOf(cpu) is null)] : [];

    /// <summary>Resolves a grant against the live programs and the process's CPUs.</summary>
    /// <param name="grant">The grant.</param>
    /// <param name="livePrograms">The programs registered here now.</param>
    /// <param name="ownCpus">This process's CPUs (the scheduler's CPU or slot ids).</param>
    /// <returns>The resolution. A CPU listed twice (for two programs, or twice for one, known or not) refuses the
    /// whole grant: the domain's picture of who runs where is then wrong and no part of it is trusted. Entries naming
    /// unknown programs and CPUs outside <paramref name="ownCpus"/> are dropped, the rest applies.</returns>
    public static GrantResolution Resolve(ArbiterGrant grant, IReadOnlyCollection<ProgramId> livePrograms, IReadOnlyCollection<int> ownCpus)
    {
        ArgumentNullException.ThrowIfNull(grant);
        ArgumentNullException.ThrowIfNull(livePrograms);
        ArgumentNullException.ThrowIfNull(ownCpus);
        if (grant.CpusByProgram is null)
        {
            return Refuse($"grant epoch {grant.Epoch} has no CPU map");
        }

        var live = new HashSet<ProgramId>(livePrograms);
        var own = new HashSet<int>(ownCpus);
        var seen = new HashSet<int>();
        var unknown = new List<ProgramId>();
        var foreign = new List<int>();
        var sets = new List<KeyValuePair<ProgramId, IEnumerable<int>>>();
        foreach (var (program, cpus) in grant.CpusByProgram)
        {
            if (cpus is null)
            {
                return Refuse($"grant epoch {grant.Epoch} has no CPU list for {program}");
            }

            var mine = new List<int>(cpus.Count);
            foreach (int cpu in cpus)
            {
                if (!seen.Add(cpu))
                {
                    return Refuse($"grant epoch {grant.Epoch} lists cpu {cpu} twice");
                }

                if (!own.Contains(cpu))
                {
                    foreign.Add(cpu);
                }
                else
                {
                    mine.Add(cpu);
                }
            }

            if (live.Contains(program))
            {
                sets.Add(new(program, mine));
            }
            else
            {
                unknown.Add(program);
            }
        }

        return new GrantResolution(new CpuAssignment(sets), unknown, foreign, null);

        static GrantResolution Refuse(string why) => new(null, [], [], why);
    }
}
