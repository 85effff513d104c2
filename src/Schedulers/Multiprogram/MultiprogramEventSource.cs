using System.Diagnostics.Tracing;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The multiprogram scheduler's events for tracing tools (<c>dotnet-trace collect --providers DivCon-Multiprogram</c>,
/// PerfView, an in-process <see cref="EventListener"/>): every decision, every move and its arrival, programs
/// arriving and leaving, and what the scheduler cannot throw to a caller.
/// </summary>
/// <remarks>
/// Nothing is built unless a listener enabled the event's level and keyword (<see cref="EventSource.IsEnabled(EventLevel, EventKeywords)"/>
/// is checked first), so an unobserved scheduler pays one field read per decision and per move. Programs appear by
/// their registered names.
/// </remarks>
[EventSource(Name = SourceName)]
internal sealed class MultiprogramEventSource : EventSource
{
    /// <summary>The provider's name.</summary>
    public const string SourceName = "DivCon-Multiprogram";

    /// <summary>The one instance.</summary>
    public static readonly MultiprogramEventSource Log = new();

    // Precise initialization (no beforefieldinit): the source is created at the first use of Log, never earlier, so
    // that a process with the instrumentation off (every use guarded by Instrumentation.EventsEnabled) never creates it.
#pragma warning disable CA1810 // Deliberately explicit: see above.
    static MultiprogramEventSource()
    {
    }
#pragma warning restore CA1810

    private MultiprogramEventSource()
    {
    }

    /// <summary>Event id of <see cref="Decision"/>.</summary>
    public const int DecisionId = 1;

    /// <summary>Event id of <see cref="Move"/>.</summary>
    public const int MoveId = 2;

    /// <summary>Event id of <see cref="MoveArrived"/>.</summary>
    public const int MoveArrivedId = 3;

    /// <summary>Event id of <see cref="ProgramRegistered"/>.</summary>
    public const int ProgramRegisteredId = 4;

    /// <summary>Event id of <see cref="ProgramDeparted"/>.</summary>
    public const int ProgramDepartedId = 5;

    /// <summary>Event id of <see cref="Failure"/>.</summary>
    public const int FailureId = 6;

    /// <summary>Event id of <see cref="SkippedDecision"/>.</summary>
    public const int SkippedDecisionId = 7;

    /// <summary>Event id of <see cref="DomainGrantSent"/>.</summary>
    public const int DomainGrantSentId = 8;

    /// <summary>Event id of <see cref="DomainGrantInstalled"/>.</summary>
    public const int DomainGrantInstalledId = 9;

    /// <summary>A decision was made and applied (informational; keyword <see cref="Keywords.Decisions"/>).</summary>
    /// <param name="reason">Why (Interval, Arrival, Departure, Manual).</param>
    /// <param name="policy">The policy's name.</param>
    /// <param name="allocation">Cores per program after it, for example <c>mergesort=2 fft=2</c>.</param>
    /// <param name="moves">How many CPUs change owner.</param>
    /// <param name="explanation">How it was reached.</param>
    [Event(DecisionId, Level = EventLevel.Informational, Keywords = Keywords.Decisions, Message = "{0} decision by {1}: {2} ({3} moves); {4}")]
    public void Decision(string reason, string policy, string allocation, int moves, string explanation) =>
        WriteEvent(DecisionId, reason, policy, allocation, moves, explanation);

    /// <summary>An interval check found the previous decision standing (verbose; keyword <see cref="Keywords.Decisions"/>).</summary>
    /// <param name="policy">The policy's name.</param>
    /// <param name="explanation">Why it was skipped.</param>
    [Event(SkippedDecisionId, Level = EventLevel.Verbose, Keywords = Keywords.Decisions, Message = "Interval check skipped by {0}: {1}")]
    public void SkippedDecision(string policy, string explanation) => WriteEvent(SkippedDecisionId, policy, explanation);

    /// <summary>A decision moves a CPU to another program (informational; keyword <see cref="Keywords.Moves"/>).</summary>
    /// <param name="cpu">The CPU (or slot, unpinned).</param>
    /// <param name="from">The program that had it (<c>none</c>: unassigned).</param>
    /// <param name="to">The program that gets it (<c>none</c>: unassigned).</param>
    [Event(MoveId, Level = EventLevel.Informational, Keywords = Keywords.Moves, Message = "cpu {0}: {1} -> {2}")]
    public void Move(int cpu, string from, string to) => WriteEvent(MoveId, cpu, from, to);

    /// <summary>A move arrived: a worker of the CPU serves its new owner (informational; keyword <see cref="Keywords.Moves"/>).</summary>
    /// <param name="cpu">The CPU (or slot).</param>
    /// <param name="to">The new owner.</param>
    /// <param name="latencyMilliseconds">From the decision to the arrival.</param>
    [Event(MoveArrivedId, Level = EventLevel.Informational, Keywords = Keywords.Moves, Message = "cpu {0} serves {1} after {2} ms")]
    public void MoveArrived(int cpu, string to, double latencyMilliseconds) => WriteEvent(MoveArrivedId, cpu, to, latencyMilliseconds);

    /// <summary>A program registered (informational; keyword <see cref="Keywords.Programs"/>).</summary>
    /// <param name="id">Its number.</param>
    /// <param name="name">Its name.</param>
    [Event(ProgramRegisteredId, Level = EventLevel.Informational, Keywords = Keywords.Programs, Message = "{1} (P{0}) registered")]
    public void ProgramRegistered(int id, string name) => WriteEvent(ProgramRegisteredId, id, name);

    /// <summary>A program left, its workers redistributed (informational; keyword <see cref="Keywords.Programs"/>).</summary>
    /// <param name="id">Its number.</param>
    /// <param name="name">Its name.</param>
    [Event(ProgramDepartedId, Level = EventLevel.Informational, Keywords = Keywords.Programs, Message = "{1} (P{0}) left")]
    public void ProgramDeparted(int id, string name) => WriteEvent(ProgramDepartedId, id, name);

    /// <summary>Something the scheduler could not throw to a caller (warning).</summary>
    /// <param name="what">What failed.</param>
    /// <param name="exception">The exception's type and message, or a description.</param>
    [Event(FailureId, Level = EventLevel.Warning, Message = "{0}: {1}")]
    public void Failure(string what, string exception) => WriteEvent(FailureId, what, exception);

    /// <summary>
    /// The machine domain's coordinator sent a process its grant (verbose; keyword <see cref="Keywords.Domain"/>;
    /// written in the process hosting the coordinator).
    /// </summary>
    /// <param name="processId">The process the grant went to.</param>
    /// <param name="epoch">The grant's epoch.</param>
    /// <param name="cpus">The CPUs granted, comma-separated (empty: none).</param>
    /// <param name="withheld">CPUs the decision gave this process but the handover rule withheld, each as
    /// <c>cpu:pid</c> of the process that may still hold it (pid 0: a process dropped for silence), comma-separated.</param>
    /// <param name="decidedAt">The decision's <see cref="System.Diagnostics.Stopwatch"/> timestamp (on Linux the machine's monotonic clock).</param>
    /// <param name="trigger">Why the decision ran (<c>interval</c>, <c>change</c>, <c>release</c>, <c>drop</c>).</param>
    [Event(DomainGrantSentId, Level = EventLevel.Verbose, Keywords = Keywords.Domain, Message = "grant {1} to pid {0}: cpus [{2}], withheld [{3}], decided at {4} ({5})")]
    public void DomainGrantSent(int processId, long epoch, string cpus, string withheld, long decidedAt, string trigger) =>
        WriteEvent(DomainGrantSentId, processId, epoch, cpus, withheld, decidedAt, trigger);

    /// <summary>
    /// This process's domain client received a grant and acknowledged it (verbose; keyword <see cref="Keywords.Domain"/>).
    /// </summary>
    /// <param name="epoch">The grant's epoch.</param>
    /// <param name="cpus">The CPUs granted, comma-separated (empty: none).</param>
    /// <param name="changed">Whether the CPUs changed (false: a renewal, the scheduler is not asked to decide).</param>
    /// <param name="receivedAt">When its bytes were read (<see cref="System.Diagnostics.Stopwatch"/> timestamp).</param>
    /// <param name="acknowledgedAt">When the acknowledging report was sent.</param>
    [Event(DomainGrantInstalledId, Level = EventLevel.Verbose, Keywords = Keywords.Domain, Message = "grant {0} installed: cpus [{1}], changed {2}, received at {3}, acknowledged at {4}")]
    public void DomainGrantInstalled(long epoch, string cpus, bool changed, long receivedAt, long acknowledgedAt) =>
        WriteEvent(DomainGrantInstalledId, epoch, cpus, changed, receivedAt, acknowledgedAt);

    /// <summary>Keywords to enable groups of events.</summary>
    public static class Keywords
    {
        /// <summary>Decisions (and, at verbose level, skipped interval checks).</summary>
        public const EventKeywords Decisions = (EventKeywords)1;

        /// <summary>Moves and their arrivals.</summary>
        public const EventKeywords Moves = (EventKeywords)2;

        /// <summary>Programs arriving and leaving.</summary>
        public const EventKeywords Programs = (EventKeywords)4;

        /// <summary>The machine domain's grants: sent (by the coordinator) and installed (by each client); verbose.</summary>
        public const EventKeywords Domain = (EventKeywords)8;
    }
}
