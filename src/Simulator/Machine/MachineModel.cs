namespace DivCon.Simulator.Machine;

/// <summary>Where the simulated cores sit on a machine with more cores than are simulated.</summary>
public enum CorePlacement
{
    /// <summary>Simulated core i is the machine's core i: dies and modules fill up one after another.</summary>
    Contiguous,

    /// <summary>
    /// Round robin over the dies, and within a die over its modules first: 16 cores on 8 dies of 4 modules are two per
    /// die, each on a module of its own.
    /// </summary>
    Dispersed,
}

/// <summary>How a program loads the machine (one calibration's values; see <see cref="MachineDescription"/>).</summary>
/// <param name="BandwidthGBps">Memory traffic of one of its tasks running alone, GB/s (bytes per ns); 0: none.</param>
/// <param name="MemoryBoundFraction">The part of a task's time that stretches when its die's bandwidth is oversubscribed (0..1).</param>
/// <param name="FpuFraction">The part of a task's time that stretches with the module's FPU shared (0..1); the rest stretches with the shared L2 and front end.</param>
public sealed record ProgramDemand(double BandwidthGBps, double MemoryBoundFraction, double FpuFraction)
{
    /// <summary>A program that loads nothing (a program the description does not name).</summary>
    public static ProgramDemand None { get; } = new(0, 0, 0);
}

/// <summary>
/// A machine and the costs the recorded task trees do not contain, at one calibration (low, middle or high) and one
/// placement: the numbers the simulator uses. Built from a description file by <see cref="MachineDescription.Resolve"/>,
/// or directly (tests). Every cost is zero when off: <see cref="MachineModel.Neutral"/> reproduces the simulator without a machine.
/// </summary>
/// <remarks>
/// <para><b>(a) Memory bandwidth (roofline rule).</b> A task that starts on die d, with the die's running tasks
/// demanding D GB/s (its own included) of a die that supplies S, takes
/// <c>d x (1 + m x (max(1, D / S, D_pkg / S_pkg) - 1))</c>: its memory-bound part m stretched by demand over supply,
/// the package likewise. A running task demands its program's <see cref="ProgramDemand.BandwidthGBps"/>; where a
/// die has more runnable threads than busy cores (time sharing), the die's demand is scaled by busy cores over busy
/// threads (only running threads draw bandwidth).</para>
/// <para><b>(b) Oversubscription and handover.</b> Threads time-sharing a capacity c with r &gt; c runnable run at
/// <c>c / r x Q / (Q + ContextSwitchNs + CacheRefillNs) / (1 + PreemptionPenalty x (r / c - 1))</c>: a context
/// switch and a cache refill per quantum Q, and a loss growing with the oversubscription for preempted thieves and
/// lock holders (work others wait for while its thread is off the CPU). A standby handover's new thread pays
/// <see cref="HandoverRefillNs"/> on its first task (it finds a cold cache).</para>
/// <para><b>(c) Modules.</b> A task that starts while the other core of its module is busy takes
/// <c>d x (1 + f x FpuStretch + (1 - f) x SharedStretch)</c>, f its program's <see cref="ProgramDemand.FpuFraction"/>.</para>
/// <para>Each factor is fixed when the task starts, from the state at that moment (O(1) per task, as the work
/// inflation knob): a task that starts alone and is joined later is not slowed, one that starts in company and is
/// left alone keeps its stretch.</para>
/// </remarks>
public sealed record MachineModel
{
    /// <summary>The machine's name.</summary>
    public string Name { get; init; } = "neutral";

    /// <summary>Which values of the description these are (informative).</summary>
    public Calibration Calibration { get; init; } = Calibration.Middle;

    /// <summary>Packages (sockets).</summary>
    public int Packages { get; init; } = 1;

    /// <summary>Dies (NUMA nodes, memory controllers) per package.</summary>
    public int DiesPerPackage { get; init; } = 1;

    /// <summary>Modules per die.</summary>
    public int ModulesPerDie { get; init; } = 4096;

    /// <summary>Cores per module (1: no sharing; 2: Bulldozer's pair sharing an FPU and L2).</summary>
    public int CoresPerModule { get; init; } = 1;

    /// <summary>Sustained memory bandwidth of one die, GB/s; 0: unlimited.</summary>
    public double DieBandwidthGBps { get; init; }

    /// <summary>Sustained memory bandwidth of one package (all its dies), GB/s; 0: unlimited.</summary>
    public double PackageBandwidthGBps { get; init; }

    /// <summary>Direct cost of a context switch between time-shared threads, ns (the simulator's default is 5,000).</summary>
    public long ContextSwitchNs { get; init; } = 5_000;

    /// <summary>Cache refill a preempted thread pays when it gets the CPU back, per quantum, ns.</summary>
    public long CacheRefillNs { get; init; }

    /// <summary>Loss per unit of oversubscription beyond one thread per CPU (preempted thieves and lock holders).</summary>
    public double PreemptionPenalty { get; init; }

    /// <summary>Cold-cache cost of a standby handover's first task, ns.</summary>
    public long HandoverRefillNs { get; init; }

    /// <summary>Stretch of a task's floating-point part while the other core of its module is busy (0.11: 11% longer).</summary>
    public double FpuStretch { get; init; }

    /// <summary>Stretch of the rest of a task while the other core of its module is busy (shared L2 and front end).</summary>
    public double SharedStretch { get; init; }

    /// <summary>Where the simulated cores sit.</summary>
    public CorePlacement Placement { get; init; }

    /// <summary>Per program name (case-insensitive), how it loads the machine; unnamed programs load nothing.</summary>
    public IReadOnlyDictionary<string, ProgramDemand> Programs { get; init; } = new Dictionary<string, ProgramDemand>(StringComparer.OrdinalIgnoreCase);

    /// <summary>Per program name, bytes one run moves from memory; its demand is this over the graph's total work (see <see cref="DemandOf"/>).</summary>
    public IReadOnlyDictionary<string, double> BytesPerRun { get; init; } = new Dictionary<string, double>(StringComparer.OrdinalIgnoreCase);

    /// <summary>
    /// Per program name (case-insensitive, exact: <c>mergesort-thesis</c> is not <c>mergesort</c>), the split and merge
    /// shares its runs had on this machine; the simulator scales the program's recorded phases to them (see
    /// <see cref="Calibrate"/>). Unnamed programs are replayed as recorded.
    /// </summary>
    public IReadOnlyDictionary<string, PhaseProfile> PhaseProfiles { get; init; } = new Dictionary<string, PhaseProfile>(StringComparer.OrdinalIgnoreCase);

    /// <summary>A machine with every cost off and the simulator's default context switch: the same results as no machine.</summary>
    public static MachineModel Neutral { get; } = new();

    /// <summary>Cores of the whole machine.</summary>
    public int Cores => Packages * DiesPerPackage * ModulesPerDie * CoresPerModule;

    /// <summary>Cores per die.</summary>
    public int CoresPerDie => ModulesPerDie * CoresPerModule;

    /// <summary>Dies of the whole machine.</summary>
    public int Dies => Packages * DiesPerPackage;

    /// <summary>
    /// The machine core that simulated core <paramref name="core"/> stands for, under <see cref="Placement"/> (cores
    /// numbered die by die, module by module).
    /// </summary>
    /// <param name="core">Simulated core, below <see cref="Cores"/>.</param>
    /// <returns>The machine core.</returns>
    public int PhysicalCore(int core)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(core);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(core, Cores);
        if (Placement == CorePlacement.Contiguous)
        {
            return core;
        }

        // Dispersed: round robin over the dies; the k-th core of a die goes to module k mod modules, then the next slot.
        int die = core % Dies;
        int k = core / Dies;
        int module = k % ModulesPerDie;
        int slot = k / ModulesPerDie;
        return (die * CoresPerDie) + (module * CoresPerModule) + slot;
    }

    /// <summary>A program's demand; with <see cref="BytesPerRun"/> given, its bandwidth is derived from the graph.</summary>
    /// <param name="program">The program's name.</param>
    /// <param name="totalWorkNs">The graph's total work (one run on one core), ns.</param>
    /// <returns>The demand (<see cref="ProgramDemand.None"/> when the program is not described).</returns>
    public ProgramDemand DemandOf(string program, long totalWorkNs)
    {
        ArgumentNullException.ThrowIfNull(program);
        string name = BaseName(program);
        var demand = Programs.TryGetValue(name, out var d) ? d : ProgramDemand.None;
        if (BytesPerRun.TryGetValue(name, out double bytes) && totalWorkNs > 0)
        {
            // Bytes per run alone describe a streaming program: memory-bound throughout unless stated otherwise.
            demand = d is null ? new ProgramDemand(bytes / totalWorkNs, 1, 0) : demand with { BandwidthGBps = bytes / totalWorkNs };
        }

        return demand;
    }

    /// <summary>
    /// The program as it runs on this machine: its graph's split and merge phases scaled to its
    /// <see cref="PhaseProfiles"/> entry, or the program itself when it has none (symmetric copies, <c>p#2</c>, are <c>p</c>).
    /// </summary>
    /// <param name="program">The program.</param>
    /// <returns>The calibrated program (the same instance when the machine has no profile for it).</returns>
    /// <exception cref="ArgumentException">The profile gives a phase a positive share and the graph has no work in it.</exception>
    public SimulatedProgram Calibrate(SimulatedProgram program)
    {
        ArgumentNullException.ThrowIfNull(program);
        if (!PhaseProfiles.TryGetValue(BaseName(program.Name), out var profile))
        {
            return program;
        }

        TaskGraph graph;
        try
        {
            graph = profile.Calibrate(program.Graph);
        }
        catch (ArgumentException e)
        {
            throw new ArgumentException($"Program '{program.Name}': {e.Message}", nameof(program), e);
        }

        return ReferenceEquals(graph, program.Graph) ? program : program with { Graph = graph };
    }

    /// <summary>
    /// The roofline stretch: <c>1 + memoryBound x (max(1, demand / supply) - 1)</c> for the die and the package, the larger.
    /// </summary>
    /// <param name="memoryBound">The task's memory-bound fraction.</param>
    /// <param name="dieDemandGBps">The die's running tasks' demand, the starting task's included.</param>
    /// <param name="packageDemandGBps">The package's, likewise.</param>
    /// <returns>At least 1.</returns>
    public double BandwidthStretch(double memoryBound, double dieDemandGBps, double packageDemandGBps)
    {
        double ratio = 1;
        if (DieBandwidthGBps > 0)
        {
            ratio = Math.Max(ratio, dieDemandGBps / DieBandwidthGBps);
        }

        if (PackageBandwidthGBps > 0)
        {
            ratio = Math.Max(ratio, packageDemandGBps / PackageBandwidthGBps);
        }

        return 1 + (memoryBound * (ratio - 1));
    }

    /// <summary>The module stretch of a task whose module sibling is busy (1 when it is not).</summary>
    /// <param name="fpuFraction">The task's floating-point fraction.</param>
    /// <param name="siblingBusy">Whether the other core of its module is busy.</param>
    /// <returns>At least 1.</returns>
    public double ModuleStretch(double fpuFraction, bool siblingBusy) =>
        siblingBusy ? 1 + (fpuFraction * FpuStretch) + ((1 - fpuFraction) * SharedStretch) : 1;

    /// <summary>
    /// The rate of each of <paramref name="runnable"/> threads time-sharing <paramref name="capacity"/> CPUs (see the
    /// remarks): 1 while they fit.
    /// </summary>
    /// <param name="capacity">CPUs.</param>
    /// <param name="runnable">Runnable threads.</param>
    /// <param name="quantumNs">The OS time slice, ns.</param>
    /// <returns>The rate, in (0, 1].</returns>
    public double SharingRate(double capacity, int runnable, double quantumNs)
    {
        if (runnable <= capacity)
        {
            return 1;
        }

        return SharingRate(capacity, runnable, SharingEfficiency(quantumNs), PreemptionPenalty);
    }

    /// <summary>The useful fraction of a time-shared CPU: quantum / (quantum + context switch + cache refill).</summary>
    /// <param name="quantumNs">The OS time slice, ns.</param>
    /// <returns>The efficiency.</returns>
    internal double SharingEfficiency(double quantumNs) => quantumNs / (quantumNs + ContextSwitchNs + CacheRefillNs);

    /// <summary>The sharing rate from its parts (the engine's hot path; with no penalty the simulator's rule before machines).</summary>
    internal static double SharingRate(double capacity, int runnable, double efficiency, double penalty)
    {
        if (runnable <= capacity)
        {
            return 1.0;
        }

        double rate = capacity / runnable * efficiency;
        return penalty == 0 ? rate : rate / (1 + (penalty * ((runnable / capacity) - 1)));
    }

    /// <summary>Checks every value; the message names the property.</summary>
    /// <exception cref="ArgumentOutOfRangeException">A value is out of range.</exception>
    public void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(Packages, 1, nameof(Packages));
        ArgumentOutOfRangeException.ThrowIfLessThan(DiesPerPackage, 1, nameof(DiesPerPackage));
        ArgumentOutOfRangeException.ThrowIfLessThan(ModulesPerDie, 1, nameof(ModulesPerDie));
        ArgumentOutOfRangeException.ThrowIfLessThan(CoresPerModule, 1, nameof(CoresPerModule));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(CoresPerModule, 2, nameof(CoresPerModule));
        if ((long)Packages * DiesPerPackage * ModulesPerDie * CoresPerModule > 1 << 20)
        {
            throw new ArgumentOutOfRangeException(nameof(Packages), Packages, "The machine has more than 2^20 cores.");
        }

        NonNegative(DieBandwidthGBps, nameof(DieBandwidthGBps));
        NonNegative(PackageBandwidthGBps, nameof(PackageBandwidthGBps));
        ArgumentOutOfRangeException.ThrowIfNegative(ContextSwitchNs, nameof(ContextSwitchNs));
        ArgumentOutOfRangeException.ThrowIfNegative(CacheRefillNs, nameof(CacheRefillNs));
        ArgumentOutOfRangeException.ThrowIfNegative(HandoverRefillNs, nameof(HandoverRefillNs));
        NonNegative(PreemptionPenalty, nameof(PreemptionPenalty));
        NonNegative(FpuStretch, nameof(FpuStretch));
        NonNegative(SharedStretch, nameof(SharedStretch));
        if (!Enum.IsDefined(Placement))
        {
            throw new ArgumentOutOfRangeException(nameof(Placement), Placement, "Not a defined CorePlacement.");
        }

        ArgumentNullException.ThrowIfNull(Programs, nameof(Programs));
        ArgumentNullException.ThrowIfNull(BytesPerRun, nameof(BytesPerRun));
        foreach (var (name, d) in Programs)
        {
            NonNegative(d.BandwidthGBps, $"{nameof(Programs)}[{name}].{nameof(ProgramDemand.BandwidthGBps)}");
            Fraction(d.MemoryBoundFraction, $"{nameof(Programs)}[{name}].{nameof(ProgramDemand.MemoryBoundFraction)}");
            Fraction(d.FpuFraction, $"{nameof(Programs)}[{name}].{nameof(ProgramDemand.FpuFraction)}");
        }

        ArgumentNullException.ThrowIfNull(PhaseProfiles, nameof(PhaseProfiles));
        foreach (var (name, profile) in PhaseProfiles)
        {
            ArgumentNullException.ThrowIfNull(profile, $"{nameof(PhaseProfiles)}[{name}]");
            profile.Validate($"{nameof(PhaseProfiles)}[{name}]");
        }

        foreach (var (name, bytes) in BytesPerRun)
        {
            NonNegative(bytes, $"{nameof(BytesPerRun)}[{name}]");
        }
    }

    /// <inheritdoc/>
    public override string ToString() => string.Create(System.Globalization.CultureInfo.InvariantCulture,
        $"{Name} ({Calibration}, {Placement}): {Packages} x {DiesPerPackage} dies x {ModulesPerDie} modules x {CoresPerModule} cores; bandwidth die {DieBandwidthGBps} / package {PackageBandwidthGBps} GB/s (0 unlimited); switch {ContextSwitchNs} ns + refill {CacheRefillNs} ns per quantum, preemption penalty {PreemptionPenalty}, handover refill {HandoverRefillNs} ns; module stretch FPU {FpuStretch} / other {SharedStretch}{Profiles()}");

    private string Profiles() => PhaseProfiles.Count == 0 ? string.Empty : "; phase profiles " + string.Join(", ", PhaseProfiles
        .OrderBy(p => p.Key, StringComparer.Ordinal)
        .Select(p => string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"{p.Key} split {(p.Value.SplitShare is { } s ? s.ToString("0.###", System.Globalization.CultureInfo.InvariantCulture) : "as recorded")} / merge {(p.Value.MergeShare is { } m ? m.ToString("0.###", System.Globalization.CultureInfo.InvariantCulture) : "as recorded")}{(p.Value.ProfileLeaves is { } l ? $" at {l} leaves" : string.Empty)}")));

    /// <summary>A copy of a program's name without the instance suffix of symmetric tests ("sumsq#2" is sumsq).</summary>
    private static string BaseName(string program)
    {
        int hash = program.IndexOf('#', StringComparison.Ordinal);
        return hash < 0 ? program : program[..hash];
    }

    private static void NonNegative(double value, string name)
    {
        if (!double.IsFinite(value) || value < 0)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must be a finite number >= 0.");
        }
    }

    private static void Fraction(double value, string name)
    {
        if (!double.IsFinite(value) || value < 0 || value > 1)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must be between 0 and 1.");
        }
    }
}
