using DivCon.Simulator.Machine;

namespace DivCon.Simulator.Engine;

/// <summary>
/// What the running tasks demand of the machine, per die and per module: the bookkeeping behind the bandwidth and
/// module terms of <see cref="MachineModel"/>. <see cref="Begin"/> when a task starts (returns its stretch),
/// <see cref="End"/> when it ends; both O(1) (the package's demand sums its few dies).
/// </summary>
/// <remarks>
/// Invariants, between events: <c>_coreBusy[c]</c> is the number of busy threads on simulated core c;
/// <c>_dieThreads[d]</c> their sum over the die, <c>_dieCores[d]</c> the die's cores with at least one busy thread,
/// <c>_dieDemand[d]</c> the sum of the busy threads' programs' bandwidths (reset to exactly 0 when the die has no
/// busy thread, so rounding never accumulates across idle periods). A thread's core is the simulator's
/// <c>SimThread.Core</c>: for pinned threads their core, for the unpinned groups (free oversubscription, the .NET pool)
/// thread i counts on core i mod cores, which spreads each program's threads evenly, as the OS balances them.
/// </remarks>
internal sealed class MachineLoad
{
    private readonly MachineModel _machine;
    private readonly int[] _die;
    private readonly int[] _sibling;
    private readonly int[] _coreBusy;
    private readonly int[] _dieThreads;
    private readonly int[] _dieCores;
    private readonly double[] _dieDemand;
    private readonly ProgramDemand[] _demand;
    private readonly bool _packageLimited;
    private readonly bool _modules;

    /// <summary>Lays the simulated cores onto the machine under its placement.</summary>
    /// <param name="machine">The machine (validated; at least <paramref name="cores"/> cores).</param>
    /// <param name="cores">Simulated cores.</param>
    /// <param name="programs">The workload: each program's demand, its bandwidth derived from its graph when given per run.</param>
    public MachineLoad(MachineModel machine, int cores, IReadOnlyList<SimulatedProgram> programs)
    {
        _machine = machine;
        _die = new int[cores];
        _sibling = new int[cores];
        _coreBusy = new int[cores];
        _dieThreads = new int[machine.Dies];
        _dieCores = new int[machine.Dies];
        _dieDemand = new double[machine.Dies];
        var simulatedOf = new Dictionary<int, int>();
        for (int c = 0; c < cores; c++)
        {
            simulatedOf[machine.PhysicalCore(c)] = c;
        }

        for (int c = 0; c < cores; c++)
        {
            int physical = machine.PhysicalCore(c);
            _die[c] = physical / machine.CoresPerDie;
            // The other core of a two-core module, if it is simulated at all (-1: the core has the module to itself).
            int other = machine.CoresPerModule == 2 ? physical ^ 1 : -1;
            _sibling[c] = other >= 0 && simulatedOf.TryGetValue(other, out int s) ? s : -1;
        }

        _demand = [.. programs.Select(p => machine.DemandOf(p.Name, p.Graph.TotalWork))];
        _packageLimited = machine.PackageBandwidthGBps > 0;
        _modules = machine.CoresPerModule == 2 && (machine.FpuStretch > 0 || machine.SharedStretch > 0);
    }

    /// <summary>A task of program <paramref name="program"/> starts on <paramref name="core"/>: registers it and returns its stretch (at least 1).</summary>
    /// <param name="core">Simulated core of the thread.</param>
    /// <param name="program">Program index.</param>
    /// <returns>The factor its recorded duration is multiplied by.</returns>
    public double Begin(int core, int program)
    {
        var demand = _demand[program];
        int die = _die[core];
        if (_coreBusy[core]++ == 0)
        {
            _dieCores[die]++;
        }

        _dieThreads[die]++;
        _dieDemand[die] += demand.BandwidthGBps;
        double factor = 1;
        if (demand.BandwidthGBps > 0 && demand.MemoryBoundFraction > 0)
        {
            double packageDemand = 0;
            if (_packageLimited)
            {
                int first = die / _machine.DiesPerPackage * _machine.DiesPerPackage;
                for (int d = first; d < first + _machine.DiesPerPackage; d++)
                {
                    packageDemand += Effective(d);
                }
            }

            factor = _machine.BandwidthStretch(demand.MemoryBoundFraction, Effective(die), packageDemand);
        }

        if (_modules && _sibling[core] >= 0)
        {
            factor *= _machine.ModuleStretch(demand.FpuFraction, _coreBusy[_sibling[core]] > 0);
        }

        return factor;
    }

    /// <summary>The task that <see cref="Begin"/> registered ends.</summary>
    /// <param name="core">Simulated core of the thread.</param>
    /// <param name="program">Program index.</param>
    public void End(int core, int program)
    {
        int die = _die[core];
        if (--_coreBusy[core] == 0)
        {
            _dieCores[die]--;
        }

        if (--_dieThreads[die] == 0)
        {
            _dieDemand[die] = 0;
        }
        else
        {
            _dieDemand[die] -= _demand[program].BandwidthGBps;
        }
    }

    /// <summary>The die's demand with only running threads drawing: busy threads' demand x busy cores / busy threads.</summary>
    private double Effective(int die) =>
        _dieThreads[die] == 0 ? 0 : _dieThreads[die] == _dieCores[die] ? _dieDemand[die] : _dieDemand[die] * _dieCores[die] / _dieThreads[die];
}
