using System.Diagnostics;
using System.Numerics;
using System.Runtime.InteropServices;

namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// An explicit-state model checker: a breadth-first search over every interleaving of the model's thread steps
/// and (under TSO) store-buffer drains, with visited states remembered by a 128-bit fingerprint. Safety
/// invariants are checked on every step (the model calls <see cref="Execution.Fail"/>) and in every terminal
/// state (no thread can move, every buffer is empty). The first violation found is returned with the shortest
/// trace that reaches it.
/// </summary>
internal static class ModelChecker
{
    /// <summary>Explores every reachable state of <paramref name="model"/>.</summary>
    /// <param name="model">The model.</param>
    /// <param name="memoryModel">The memory model.</param>
    /// <param name="maxStates">A bound on distinct states: exceeding it throws (the model is too big for CI).</param>
    /// <returns>The statistics and the first violation with its trace, if any.</returns>
    public static CheckResult Check(Model model, MemoryModel memoryModel, int maxStates = 3_000_000)
    {
        var clock = Stopwatch.StartNew();
        int threads = model.ThreadCount;
        var x = new Execution(model, memoryModel);
        int[] initial = model.InitialState();
        int length = initial.Length;
        var parents = new Dictionary<StateId, (StateId Parent, int Choice)>();
        var frontier = new Queue<(byte[] State, int Depth)>();
        StateId root = Fingerprint(initial);
        parents[root] = (root, -1);
        frontier.Enqueue((Pack(initial), 0));
        long transitions = 0;
        long terminal = 0;
        int maxDepth = 0;
        int[] state = new int[length];
        int[] next = new int[length];
        while (frontier.Count > 0)
        {
            (byte[] packed, int depth) = frontier.Dequeue();
            Unpack(packed, state);
            StateId id = Fingerprint(state);
            maxDepth = Math.Max(maxDepth, depth);
            bool moved = false;
            for (int choice = 0; choice < (model.MakesChoices ? 3 : 2) * threads; choice++)
            {
                Array.Copy(state, next, length);
                if (!TryStep(model, x, next, choice))
                {
                    continue;
                }

                moved = true;
                transitions++;
                if (x.Violation is { } violation)
                {
                    List<int> path = PathTo(parents, id);
                    path.Add(choice);
                    return Result(model, memoryModel, parents.Count, transitions, terminal, maxDepth, clock,
                        Replay(model, memoryModel, path, violation));
                }

                StateId nextId = Fingerprint(next);
                if (parents.TryAdd(nextId, (id, choice)))
                {
                    x.Begin(next, 0);
                    if (model.CheckState(x) is { } broken)
                    {
                        List<int> path = PathTo(parents, nextId);
                        return Result(model, memoryModel, parents.Count, transitions, terminal, maxDepth, clock,
                            Replay(model, memoryModel, path, broken));
                    }

                    if (parents.Count > maxStates)
                    {
                        throw new InvalidOperationException(
                            $"{model.Name}: more than {maxStates} states; reduce the scenario.");
                    }

                    frontier.Enqueue((Pack(next), depth + 1));
                }
            }

            if (!moved)
            {
                terminal++;
                x.Begin(state, 0);
                if (model.CheckTerminal(x) is { } violation)
                {
                    Counterexample found = Replay(model, memoryModel, PathTo(parents, id), violation);
                    found = found with { Trace = [.. found.Trace, "  -- end: no thread can move and every store buffer is empty"] };
                    return Result(model, memoryModel, parents.Count, transitions, terminal, maxDepth, clock, found);
                }
            }
        }

        return Result(model, memoryModel, parents.Count, transitions, terminal, maxDepth, clock, null);
    }

    /// <summary>
    /// Runs one transition on <paramref name="state"/> in place: choice t &lt; threads is a step of thread t (a
    /// nondeterministic choice in it says no), choice threads + t drains the oldest store of thread t's buffer, choice
    /// 2 threads + t is a step of thread t whose choice says yes (enabled only when the step makes a choice). Returns
    /// false when the transition is not enabled.
    /// </summary>
    private static bool TryStep(Model model, Execution x, int[] state, int choice)
    {
        int threads = model.ThreadCount;
        bool coin = choice >= 2 * threads;
        if (coin)
        {
            choice -= 2 * threads;
        }
        else if (choice >= threads)
        {
            x.Begin(state, choice - threads);
            if (!x.HasBufferedStores(choice - threads))
            {
                return false;
            }

            x.DrainOldest();
            return true;
        }

        x.Begin(state, choice, coin);
        if (x.Depth == 0)
        {
            return false;
        }

        for (int handlers = 0; ; handlers++)
        {
            if (handlers > 10_000)
            {
                throw new InvalidOperationException(
                    $"{model.Name}: {model.ThreadName(choice)} loops without accessing memory at '{x.Where}'.");
            }

            model.Execute(x, x.Routine, x.Pc);
            if (x.IsBlocked)
            {
                return false;
            }

            if (x.Violation is not null || x.Depth == 0 || x.HasAccessed)
            {
                // The yes-branch of a step exists only when the step chose (otherwise it repeats the plain step).
                return !coin || x.ChoseThisStep;
            }
        }
    }

    private static List<int> PathTo(Dictionary<StateId, (StateId Parent, int Choice)> parents, StateId id)
    {
        var path = new List<int>();
        while (parents[id] is { Choice: >= 0 } link)
        {
            path.Add(link.Choice);
            id = link.Parent;
        }

        path.Reverse();
        return path;
    }

    private static Counterexample Replay(Model model, MemoryModel memoryModel, List<int> path, string violation)
    {
        var x = new Execution(model, memoryModel) { Log = [] };
        int[] state = model.InitialState();
        var trace = new List<string>();
        int threads = model.ThreadCount;
        foreach (int choice in path)
        {
            x.Log.Clear();
            bool stepped = TryStep(model, x, state, choice);
            Debug.Assert(stepped, "A recorded transition is enabled on replay.");
            string who = model.ThreadName(choice % threads);
            foreach (string line in x.Log)
            {
                trace.Add($"{trace.Count + 1,3}. {who}: {line}");
            }
        }

        return new Counterexample(violation, trace);
    }

    private static CheckResult Result(
        Model model, MemoryModel memoryModel, int states, long transitions, long terminal, int maxDepth,
        Stopwatch clock, Counterexample? counterexample) =>
        new(model.Name, memoryModel, states, transitions, terminal, maxDepth, clock.Elapsed, counterexample);

    // States are small integers (pcs, indices, task ids): one byte each keeps the frontier small.
    private static byte[] Pack(int[] state)
    {
        byte[] packed = new byte[state.Length];
        for (int i = 0; i < state.Length; i++)
        {
            int value = state[i];
            if (value is < sbyte.MinValue or > sbyte.MaxValue)
            {
                throw new InvalidOperationException($"State cell {i} holds {value}, outside a signed byte.");
            }

            packed[i] = (byte)(sbyte)value;
        }

        return packed;
    }

    private static void Unpack(byte[] packed, int[] state)
    {
        for (int i = 0; i < packed.Length; i++)
        {
            state[i] = (sbyte)packed[i];
        }
    }

    // Two independent 64-bit multiply-rotate hashes with a murmur finaliser: with n states the chance that two of
    // them share a fingerprint (and one is wrongly skipped) is about n^2 / 2^129, below 1e-26 for 10^6 states.
    private static StateId Fingerprint(int[] state)
    {
        ulong a = 0x9E3779B97F4A7C15UL;
        ulong b = 0xC2B2AE3D27D4EB4FUL ^ (ulong)state.Length;
        ReadOnlySpan<ulong> words = MemoryMarshal.Cast<int, ulong>(state.AsSpan(0, state.Length & ~1));
        foreach (ulong word in words)
        {
            a = BitOperations.RotateLeft(a ^ (word * 0xFF51AFD7ED558CCDUL), 29) * 0x9E3779B97F4A7C15UL;
            b = BitOperations.RotateLeft(b + (word * 0xC4CEB9FE1A85EC53UL), 31) * 0x94D049BB133111EBUL;
        }

        if ((state.Length & 1) != 0)
        {
            ulong last = (uint)state[^1];
            a = BitOperations.RotateLeft(a ^ (last * 0xFF51AFD7ED558CCDUL), 29) * 0x9E3779B97F4A7C15UL;
            b = BitOperations.RotateLeft(b + (last * 0xC4CEB9FE1A85EC53UL), 31) * 0x94D049BB133111EBUL;
        }

        return new StateId(Mix(a), Mix(b ^ a));
    }

    private static ulong Mix(ulong h)
    {
        h ^= h >> 33;
        h *= 0xFF51AFD7ED558CCDUL;
        h ^= h >> 33;
        h *= 0xC4CEB9FE1A85EC53UL;
        h ^= h >> 33;
        return h;
    }
}

/// <summary>
/// A state's 128-bit fingerprint. A pair of 64-bit words rather than <c>UInt128</c>, which .NET Framework (the Mono
/// test build) lacks.
/// </summary>
/// <param name="Upper">The first hash.</param>
/// <param name="Lower">The second hash.</param>
internal readonly record struct StateId(ulong Upper, ulong Lower);

/// <summary>A violated invariant and the interleaving that reaches it, one line per memory operation.</summary>
/// <param name="Violation">The invariant and how it failed.</param>
/// <param name="Trace">The steps, numbered.</param>
internal sealed record Counterexample(string Violation, IReadOnlyList<string> Trace)
{
    /// <inheritdoc />
    public override string ToString() => $"{Violation}{Environment.NewLine}{string.Join(Environment.NewLine, Trace)}";
}

/// <summary>What one exhaustive exploration found.</summary>
/// <param name="Model">The model's name.</param>
/// <param name="MemoryModel">The memory model explored.</param>
/// <param name="States">Distinct states visited.</param>
/// <param name="Transitions">Transitions taken.</param>
/// <param name="TerminalStates">States where nothing could move.</param>
/// <param name="MaxDepth">The longest shortest path to a visited state.</param>
/// <param name="Elapsed">Wall time.</param>
/// <param name="Counterexample">The first violation, or null when every reachable state satisfied the invariants.</param>
internal sealed record CheckResult(
    string Model, MemoryModel MemoryModel, int States, long Transitions, long TerminalStates, int MaxDepth,
    TimeSpan Elapsed, Counterexample? Counterexample)
{
    /// <inheritdoc />
    public override string ToString() =>
        $"{Model} [{MemoryModel}]: {States:N0} states, {Transitions:N0} transitions, {TerminalStates:N0} terminal, " +
        $"depth {MaxDepth}, {Elapsed.TotalMilliseconds:N0} ms: " +
        (Counterexample is null ? "no violation" : $"VIOLATION after {Counterexample.Trace.Count} operations");
}
