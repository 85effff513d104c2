using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using DivCon.Harness.Measurement;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Harness.Workload;

/// <summary>
/// A scheme that runs each program of the workload in its own OS process (<see cref="ProgramChild"/>): the parent keeps
/// the cyclic protocol (it times every run, start to <c>done</c>, so the rounds, C_SP and the metrics are exactly those
/// of <c>cyclic</c>), the children run the programs. Optionally kills one child with SIGKILL every
/// <see cref="ProcessSchemeOptions.KillEvery"/> and starts a new one in its place: the run that was in flight is run
/// again in the new child, and its time (start to the new child's <c>done</c>) includes the restart. A child is killed
/// only after it has completed a run, so every program makes progress whatever the interval.
/// </summary>
public sealed class ProcessScheme : IWorkloadScheme
{
    private readonly ProcessMode _mode;
    private readonly IReadOnlyList<WorkloadProgram> _workload;
    private readonly ProcessSchemeOptions _options;
    private readonly ConcurrentDictionary<string, byte> _statuses = new(StringComparer.Ordinal);
    private int _sessions;
    private long _kills;

    /// <summary>Creates the scheme.</summary>
    /// <param name="mode">Independent or joined (one-process is an in-process scheme).</param>
    /// <param name="workload">Catalog programs.</param>
    /// <param name="options">CPUs, folders, faults.</param>
    /// <exception cref="ArgumentException">The mode is one-process, or a program is not a catalog program.</exception>
    public ProcessScheme(ProcessMode mode, IReadOnlyList<WorkloadProgram> workload, ProcessSchemeOptions options)
    {
        ArgumentNullException.ThrowIfNull(workload);
        ArgumentNullException.ThrowIfNull(options);
        if (mode == ProcessMode.OneProcess)
        {
            throw new ArgumentException("One-process runs in this process: use the dynamic scheme.", nameof(mode));
        }

        if (workload.FirstOrDefault(p => !p.IsCatalogProgram) is { } synthetic)
        {
            throw new ArgumentException($"'{synthetic.Name}' is not a catalog program: a child process cannot build it.", nameof(workload));
        }

        _mode = mode;
        _workload = workload;
        _options = options;
    }

    /// <inheritdoc />
    public string Name => ProcessModes.NameOf(_mode);

    /// <summary>What the children said about their machine domain (distinct), for the report.</summary>
    public IReadOnlyCollection<string> DomainStatuses => [.. _statuses.Keys.Order(StringComparer.Ordinal)];

    /// <summary>Children killed by the fault option so far.</summary>
    public long Kills => Interlocked.Read(ref _kills);

    /// <inheritdoc />
    public async ValueTask<IWorkloadSession> OpenAsync(CancellationToken cancellationToken)
    {
        int session = Interlocked.Increment(ref _sessions);
        var opened = new Session(this, session);
        try
        {
            await opened.StartAllAsync(cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await opened.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        return opened;
    }

    private ChildLaunch LaunchOf(WorkloadProgram program, int session, int generation) => new(
        program.Program.Name,
        program.Program.ProblemSize,
        program.Program.Seed,
        _mode,
        _options.Cpus,
        _options.Pin,
        (int)_options.RebalanceInterval.TotalMilliseconds,
        ProcessModes.IsJoined(_mode) ? _options.DomainDirectory : null,
        Path.Combine(_options.ChildrenFolder, string.Create(CultureInfo.InvariantCulture, $"{Name}-{session:000}-{program.Name}-{generation}.csv")))
    {
        // A block's children warm up before it starts; a replacement for a killed child is timed from its start (its
        // run in flight includes the restart), so it warms up as little as a process that restarts would: one run.
        WarmupRuns = generation == 1 ? ChildLaunch.DefaultWarmupRuns : 1,
        WarmupMilliseconds = generation == 1 ? (int)_options.ChildWarmup.TotalMilliseconds : 0,
    };

    private sealed class Session : IWorkloadSession
    {
        private readonly ProcessScheme _scheme;
        private readonly int _number;
        private readonly ProgramChild?[] _children;
        private readonly int[] _generations;
        private readonly Lock _gate = new();
        private readonly CancellationTokenSource _stop = new();
        private readonly List<ProgramChild> _killed = []; // Disposed with the session (a run may still be reading one).
        private Task _killer = Task.CompletedTask;

        public Session(ProcessScheme scheme, int number)
        {
            _scheme = scheme;
            _number = number;
            _children = new ProgramChild?[scheme._workload.Count];
            _generations = new int[scheme._workload.Count];
            Programs = [.. scheme._workload.Select((p, i) => new WorkloadProgram(p.Name, ct => RunAsync(i, ct)))];
        }

        public IReadOnlyList<WorkloadProgram> Programs { get; }

        /// <summary>
        /// Joined: the children's cross-process moves so far (<see cref="CrossProcessMoves"/>, timed from the grant's
        /// receipt to the worker's arrival), read from their files each time, so that the experiment reports them as the
        /// in-process moves; no allocation samples. Independent: null.
        /// </summary>
        public AllocationTrace? Allocations => ProcessModes.IsJoined(_scheme._mode) ? ReadMoves() : null;

        private AllocationTrace ReadMoves()
        {
            var trace = new AllocationTrace([.. _scheme._workload.Select(p => p.Name)]);
            string[] files = Directory.Exists(_scheme._options.ChildrenFolder)
                ? [.. Directory.GetFiles(_scheme._options.ChildrenFolder, string.Create(CultureInfo.InvariantCulture, $"{_scheme.Name}-{_number:000}-*-moves.csv")).Order(StringComparer.Ordinal)]
                : [];
            IReadOnlyList<MoveSample> moves = CrossProcessMoves.Read(files);
            if (moves.Count > 0)
            {
                trace.RecordMoves(new RecordedMoveArrivals([.. moves.Select(m => m.Latency)]), [.. moves.Select(m => m.Label)]);
            }

            return trace;
        }

        public async Task StartAllAsync(CancellationToken cancellationToken)
        {
            Directory.CreateDirectory(_scheme._options.ChildrenFolder);
            ProgramChild[] started = await Task.WhenAll(_children.Select((_, i) => StartAsync(i, cancellationToken))).ConfigureAwait(false);
            lock (_gate)
            {
                started.CopyTo(_children, 0);
            }

            if (_scheme._options.KillEvery is { } every)
            {
                _killer = Task.Run(() => KillLoopAsync(every, _stop.Token), CancellationToken.None);
            }
        }

        public async ValueTask DisposeAsync()
        {
            await _stop.CancelAsync().ConfigureAwait(false);
            try
            {
                await _killer.ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
            }

            ProgramChild?[] children;
            lock (_gate)
            {
                children = [.. _children, .. _killed];
                Array.Clear(_children);
                _killed.Clear();
            }

            await Task.WhenAll(children.OfType<ProgramChild>().Select(c => c.DisposeAsync().AsTask())).ConfigureAwait(false);
            _stop.Dispose();
        }

        private async Task<ProgramChild> StartAsync(int index, CancellationToken cancellationToken)
        {
            while (true)
            {
                int generation;
                lock (_gate)
                {
                    generation = ++_generations[index];
                }

                ChildLaunch launch = _scheme.LaunchOf(_scheme._workload[index], _number, generation);
                ProcessStartInfo info = (_scheme._options.ChildStart ?? ProgramChild.StartInfoOf)(launch);
                if (await ProgramChild.StartAsync(launch, info, _scheme._options.ChildTimeout, cancellationToken).ConfigureAwait(false) is { } child)
                {
                    _scheme._statuses.TryAdd(child.Status, 0);
                    return child;
                }

                // Killed while starting: start another.
            }
        }

        private async Task RunAsync(int index, CancellationToken cancellationToken)
        {
            while (true)
            {
                ProgramChild? child;
                lock (_gate)
                {
                    child = _children[index];
                }

                if (child is not null && await child.RunOnceAsync(cancellationToken).ConfigureAwait(false))
                {
                    return;
                }

                if (child is not null)
                {
                    lock (_gate)
                    {
                        if (ReferenceEquals(_children[index], child))
                        {
                            // Not killed by the fault option: it crashed. Never restarted in a loop: the test fails.
                            throw new InvalidOperationException($"The child running {_scheme._workload[index].Name} (pid {child.Id}) exited during a run: {child.LastErrors}");
                        }
                    }
                }

                // The child was killed (before or during the run): a new one takes its place and runs it again.
                ProgramChild replacement = await StartAsync(index, cancellationToken).ConfigureAwait(false);
                lock (_gate)
                {
                    _children[index] = replacement;
                }
            }
        }

        private async Task KillLoopAsync(TimeSpan every, CancellationToken cancellationToken)
        {
            var random = new Random(_number);
            string log = Path.Combine(_scheme._options.ChildrenFolder, "kills.csv");
            var clock = Stopwatch.StartNew();
            while (true)
            {
                await Task.Delay(every, cancellationToken).ConfigureAwait(false);
                int index = -1;
                ProgramChild? victim = null;
                lock (_gate)
                {
                    // Only a ready child is killed, once: its slot stays empty until its run starts a replacement.
                    // A child that has not completed a run yet is spared, so every program makes progress however
                    // often children are killed (each kill costs a program at most the run in flight).
                    int[] ready = [.. Enumerable.Range(0, _children.Length).Where(i => _children[i] is { Runs: > 0 })];
                    if (ready.Length > 0)
                    {
                        index = ready[random.Next(ready.Length)];
                        victim = _children[index];
                        _children[index] = null;
                        _killed.Add(victim!);
                    }
                }

                if (victim is null)
                {
                    continue;
                }

                victim.Kill();
                Interlocked.Increment(ref _scheme._kills);
                bool header = !File.Exists(log);
                await File.AppendAllTextAsync(log, (header ? "scheme,session,seconds,program,pid\r\n" : string.Empty) + string.Create(
                    CultureInfo.InvariantCulture, $"{_scheme.Name},{_number},{clock.Elapsed.TotalSeconds:0.###},{_scheme._workload[index].Name},{victim.Id}\r\n"),
                    CancellationToken.None).ConfigureAwait(false);
            }
        }
    }
}

/// <summary>Where and how the children of a <see cref="ProcessScheme"/> run.</summary>
/// <param name="Cpus">The CPUs of the run.</param>
/// <param name="Pin">Whether joined children pin their workers.</param>
/// <param name="RebalanceInterval">The joined children's rebalancing interval.</param>
/// <param name="ChildrenFolder">Where the children write their completions (and the kill log goes).</param>
/// <param name="DomainDirectory">The machine domain's directory shared by the joined children.</param>
/// <param name="KillEvery">Kill one child (SIGKILL) this often and start a new one; null: never.</param>
public sealed record ProcessSchemeOptions(
    IReadOnlyList<int> Cpus, bool Pin, TimeSpan RebalanceInterval, string ChildrenFolder, string DomainDirectory, TimeSpan? KillEvery)
{
    /// <summary>The default of <see cref="ChildTimeout"/>.</summary>
    public static readonly TimeSpan DefaultChildTimeout = TimeSpan.FromMinutes(5);

    /// <summary>
    /// How long a child may take to say ready and to answer each run: past it the child is killed and the test fails
    /// with one line naming it (a starved or hung child is never waited for forever). Default 5 minutes.
    /// </summary>
    public TimeSpan ChildTimeout { get; init; } = DefaultChildTimeout;

    /// <summary>
    /// The least time each child of a block spends on unrecorded runs (at least <see cref="ChildLaunch.DefaultWarmupRuns"/>
    /// of them) before the block starts, so that its code is as warm as the one-process mode's. Default 5 s.
    /// </summary>
    public TimeSpan ChildWarmup { get; init; } = TimeSpan.FromMilliseconds(ChildLaunch.DefaultWarmupMilliseconds);

    /// <summary>How a child is started; null: the harness itself (<see cref="ProgramChild.StartInfoOf"/>). Tests start stand-ins.</summary>
    public Func<ChildLaunch, ProcessStartInfo>? ChildStart { get; init; }
}

/// <summary>Moves whose latencies were measured elsewhere (in a child process): fixed, read from its records.</summary>
/// <param name="latencies">Each move's latency; null: it did not arrive.</param>
internal sealed class RecordedMoveArrivals(IReadOnlyList<TimeSpan?> latencies) : IMoveArrivals
{
    public int Count => latencies.Count;

    public int ArrivedCount => latencies.Count(l => l is not null);

    public IReadOnlyList<TimeSpan?> Latencies => latencies;

    public TimeSpan? LatencyOf(int move)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(move);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(move, Count);
        return latencies[move];
    }
}
