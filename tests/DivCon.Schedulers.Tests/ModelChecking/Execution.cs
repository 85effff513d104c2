namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// The context of one step of one thread: its call frames, and the memory operations a handler may perform
/// under the chosen <see cref="ModelChecking.MemoryModel"/>. At most one shared access per handler (checked).
/// </summary>
/// <remarks>
/// A step runs on a private copy of the state; when the thread turns out not to be able to move (a locked
/// instruction with stores still buffered, a wait on a semaphore at zero) the step reports
/// <see cref="IsBlocked"/> and the copy is discarded, so handlers may carry on with dummy values after such a call.
/// </remarks>
internal sealed class Execution
{
    private readonly Model _model;
    private int _accesses;
    private bool _coin;
    private int[] _state = [];

    /// <summary>Creates a context for <paramref name="model"/>.</summary>
    /// <param name="model">The model.</param>
    /// <param name="memoryModel">The memory model.</param>
    public Execution(Model model, MemoryModel memoryModel)
    {
        _model = model;
        MemoryModel = memoryModel;
    }

    /// <summary>The memory model.</summary>
    public MemoryModel MemoryModel { get; }

    /// <summary>The current thread.</summary>
    public int Thread { get; private set; }

    /// <summary>Whether the step cannot happen now.</summary>
    public bool IsBlocked { get; private set; }

    /// <summary>The invariant the step violated, if any.</summary>
    public string? Violation { get; private set; }

    /// <summary>Receives a line per operation while a counterexample is replayed; null during the search.</summary>
    public List<string>? Log { get; set; }

    /// <summary>The code the current handler mirrors (file:line and statement), for traces.</summary>
    public string Where { get; set; } = string.Empty;

    /// <summary>Whether a shared access happened in this step.</summary>
    public bool HasAccessed => _accesses > 0;

    /// <summary>Whether the current step made a nondeterministic choice (<see cref="Choose"/>).</summary>
    public bool ChoseThisStep { get; private set; }

    /// <summary>The current thread's call depth (0: the thread has finished).</summary>
    public int Depth => _state[ThreadBase];

    /// <summary>The top frame's routine.</summary>
    public int Routine => _state[FrameBase];

    /// <summary>The top frame's program counter.</summary>
    public int Pc
    {
        get => _state[FrameBase + 1];
        set => _state[FrameBase + 1] = value;
    }

    private int ThreadBase => _model.ThreadBase(Thread);

    private int BufferLength
    {
        get => _state[ThreadBase + 1];
        set => _state[ThreadBase + 1] = value;
    }

    private int FrameBase => ThreadBase + 2 + (2 * _model.BufferCapacity) + ((Depth - 1) * _model.FrameSize);

    /// <summary>A local of the top frame (local 0 receives callees' return values).</summary>
    /// <param name="local">The local's index.</param>
    public int this[int local]
    {
        get => _state[FrameBase + 2 + local];
        set => _state[FrameBase + 2 + local] = value;
    }

    /// <summary>Starts a step of <paramref name="thread"/> over <paramref name="state"/> (modified in place).</summary>
    /// <param name="state">The state.</param>
    /// <param name="thread">The thread.</param>
    /// <param name="coin">The outcome <see cref="Choose"/> returns during this step.</param>
    public void Begin(int[] state, int thread, bool coin = false)
    {
        _state = state;
        Thread = thread;
        _coin = coin;
        ChoseThisStep = false;
        _accesses = 0;
        IsBlocked = false;
        Violation = null;
    }

    /// <summary>Calls a routine: the caller resumes at <paramref name="returnPc"/> with the result in local 0.</summary>
    /// <param name="routine">The routine.</param>
    /// <param name="returnPc">Where the caller resumes.</param>
    /// <param name="arg1">Local 1 of the callee.</param>
    /// <param name="arg2">Local 2 of the callee.</param>
    /// <param name="arg3">Local 3 of the callee.</param>
    public void Call(int routine, int returnPc, int arg1 = 0, int arg2 = 0, int arg3 = 0)
    {
        if (Depth > 0)
        {
            Pc = returnPc;
        }

        if (Depth == _model.MaxFrames)
        {
            throw new InvalidOperationException($"{_model.Name}: call stack deeper than {_model.MaxFrames} frames.");
        }

        _state[ThreadBase]++;
        int frame = FrameBase;
        Array.Clear(_state, frame, _model.FrameSize);
        _state[frame] = routine;
        _state[frame + 3] = arg1;
        _state[frame + 4] = arg2;
        _state[frame + 5] = arg3;
    }

    /// <summary>Returns from the top frame, storing <paramref name="value"/> in the caller's local 0.</summary>
    /// <param name="value">The result.</param>
    public void Return(int value = 0)
    {
        Array.Clear(_state, FrameBase, _model.FrameSize);
        _state[ThreadBase]--;
        if (Depth > 0)
        {
            this[0] = value;
        }
    }

    /// <summary>Ends the thread (every frame), for a thread that leaves the modelled code for good.</summary>
    public void Finish()
    {
        while (Depth > 0)
        {
            Return();
        }
    }

    /// <summary>A plain or volatile load (both are plain loads on x64).</summary>
    /// <param name="location">The cell.</param>
    /// <returns>The newest value of the cell in this thread's store buffer, otherwise memory's.</returns>
    public int Load(int location)
    {
        Access();
        int value = Read(location);
        Log?.Add($"{Where}: load {_model.LocationName(location)} = {value}");
        return value;
    }

    /// <summary>
    /// A load of a cell only this thread writes (its own deque's bottom, its own queue-set field): the value does
    /// not depend on other threads, so it is not a step of its own.
    /// </summary>
    /// <param name="location">The cell.</param>
    /// <returns>Its value as this thread sees it.</returns>
    public int LoadPrivate(int location) => Read(location);

    /// <summary>A plain or volatile store (release on x64): into the store buffer under TSO.</summary>
    /// <param name="location">The cell.</param>
    /// <param name="value">The value.</param>
    public void Store(int location, int value)
    {
        Access();
        if (MemoryModel == MemoryModel.SequentialConsistency)
        {
            _state[location] = value;
            Log?.Add($"{Where}: store {_model.LocationName(location)} = {value}");
            return;
        }

        int length = BufferLength;
        if (length == _model.BufferCapacity)
        {
            throw new InvalidOperationException($"{_model.Name}: store buffer of {_model.ThreadName(Thread)} overflows.");
        }

        int entry = ThreadBase + 2 + (2 * length);
        _state[entry] = location;
        _state[entry + 1] = value;
        BufferLength = length + 1;
        Log?.Add($"{Where}: store {_model.LocationName(location)} = {value} (buffered)");
    }

    /// <summary>Interlocked.CompareExchange (a locked instruction).</summary>
    /// <param name="location">The cell.</param>
    /// <param name="value">The new value.</param>
    /// <param name="comparand">The expected value.</param>
    /// <returns>The value found.</returns>
    public int CompareExchange(int location, int value, int comparand)
    {
        if (!Locked())
        {
            return comparand == 0 ? 1 : 0;
        }

        int found = _state[location];
        if (found == comparand)
        {
            _state[location] = value;
        }

        Log?.Add($"{Where}: CAS {_model.LocationName(location)} {comparand} -> {value}: " +
                 (found == comparand ? "succeeded" : $"failed (found {found})"));
        return found;
    }

    /// <summary>Interlocked.Exchange (a locked instruction).</summary>
    /// <param name="location">The cell.</param>
    /// <param name="value">The new value.</param>
    /// <returns>The old value.</returns>
    public int Exchange(int location, int value)
    {
        if (!Locked())
        {
            return 0;
        }

        int old = _state[location];
        _state[location] = value;
        Log?.Add($"{Where}: exchange {_model.LocationName(location)} = {value} (was {old})");
        return old;
    }

    /// <summary>Interlocked.Add / Increment / Decrement (a locked instruction).</summary>
    /// <param name="location">The cell.</param>
    /// <param name="delta">The amount.</param>
    /// <returns>The new value.</returns>
    public int Add(int location, int delta)
    {
        if (!Locked())
        {
            return 0;
        }

        int value = _state[location] + delta;
        _state[location] = value;
        Log?.Add($"{Where}: interlocked add {_model.LocationName(location)} {delta:+0;-0} = {value}");
        return value;
    }

    /// <summary>Interlocked.MemoryBarrier (mfence): waits for the own store buffer to drain.</summary>
    public void Fence()
    {
        if (Locked())
        {
            Log?.Add($"{Where}: full fence");
        }
    }

    /// <summary>
    /// One thread's share of Interlocked.MemoryBarrierProcessWide: <paramref name="thread"/> executes a full fence
    /// (its store buffer drains to memory) at this point of the caller's call.
    /// </summary>
    /// <param name="thread">The thread interrupted.</param>
    public void FlushThread(int thread)
    {
        Access();
        int saved = Thread;
        Thread = thread;
        int drained = BufferLength;
        while (BufferLength > 0)
        {
            DrainOldest();
        }

        Thread = saved;
        Log?.Add($"{Where}: {_model.ThreadName(thread)} fences ({drained} buffered store(s) reach memory)");
    }

    /// <summary>SemaphoreSlim.Wait on a (0, 1) semaphore: takes its lock, so the own buffer drains first.</summary>
    /// <param name="location">The semaphore's count.</param>
    public void Wait(int location)
    {
        if (!Locked())
        {
            return;
        }

        if (_state[location] == 0)
        {
            IsBlocked = true;
            return;
        }

        _state[location]--;
        Log?.Add($"{Where}: semaphore {_model.LocationName(location)} acquired");
    }

    /// <summary>SemaphoreSlim.Release on a (0, 1) semaphore; a second release before a wait is a violation.</summary>
    /// <param name="location">The semaphore's count.</param>
    public void Release(int location)
    {
        if (!Locked())
        {
            return;
        }

        if (_state[location] >= 1)
        {
            Fail($"SemaphoreFullException: {_model.LocationName(location)} released twice for one sleep");
            return;
        }

        _state[location]++;
        Log?.Add($"{Where}: semaphore {_model.LocationName(location)} released");
    }

    /// <summary>
    /// A nondeterministic choice (say, whether a task has run long enough): the explorer runs the step once with each
    /// outcome. It ends the step like a memory access, so a step makes at most one choice.
    /// </summary>
    /// <param name="what">What is decided, for traces.</param>
    /// <returns>The outcome of this branch.</returns>
    public bool Choose(string what)
    {
        Access();
        ChoseThisStep = true;
        Log?.Add($"{Where}: chose {(_coin ? "yes" : "no")} ({what})");
        return _coin;
    }

    /// <summary>Reads a ghost cell (or any cell, as memory holds it) without a step: for invariants only.</summary>
    /// <param name="location">The cell.</param>
    /// <returns>Its value in memory.</returns>
    public int Peek(int location) => _state[location];

    /// <summary>Writes a ghost cell (bookkeeping for invariants, not part of the modelled code).</summary>
    /// <param name="location">The cell.</param>
    /// <param name="value">The value.</param>
    public void SetGhost(int location, int value) => _state[location] = value;

    /// <summary>Peeks at a local of another thread's frame (for terminal checks).</summary>
    /// <param name="thread">The thread.</param>
    /// <returns>Its call depth.</returns>
    public int DepthOf(int thread) => _state[_model.ThreadBase(thread)];

    /// <summary>The routine and pc of another thread's top frame (for terminal checks).</summary>
    /// <param name="thread">The thread.</param>
    /// <returns>Routine and pc, or (-1, -1) when the thread has finished.</returns>
    public (int Routine, int Pc) TopOf(int thread)
    {
        int depth = DepthOf(thread);
        if (depth == 0)
        {
            return (-1, -1);
        }

        int frame = _model.ThreadBase(thread) + 2 + (2 * _model.BufferCapacity) + ((depth - 1) * _model.FrameSize);
        return (_state[frame], _state[frame + 1]);
    }

    /// <summary>Records a violated invariant (the explorer reports it with the trace that led here).</summary>
    /// <param name="message">What went wrong.</param>
    public void Fail(string message)
    {
        Violation ??= message;
        Log?.Add($"{Where}: VIOLATION: {message}");
    }

    /// <summary>Whether <paramref name="thread"/>'s store buffer holds stores.</summary>
    /// <param name="thread">The thread.</param>
    /// <returns>Whether a drain step is possible.</returns>
    public bool HasBufferedStores(int thread) => _state[_model.ThreadBase(thread) + 1] > 0;

    /// <summary>The drain step: the oldest store of the current thread's buffer reaches memory.</summary>
    public void DrainOldest()
    {
        int first = ThreadBase + 2;
        int location = _state[first];
        int value = _state[first + 1];
        _state[location] = value;
        int length = BufferLength;
        Array.Copy(_state, first + 2, _state, first, 2 * (length - 1));
        _state[first + (2 * (length - 1))] = 0;
        _state[first + (2 * (length - 1)) + 1] = 0;
        BufferLength = length - 1;
        Log?.Add($"store buffer drains: {_model.LocationName(location)} = {value} reaches memory");
    }

    private int Read(int location)
    {
        if (MemoryModel == MemoryModel.TotalStoreOrder)
        {
            int entry = ThreadBase + 2;
            for (int i = BufferLength - 1; i >= 0; i--)
            {
                if (_state[entry + (2 * i)] == location)
                {
                    return _state[entry + (2 * i) + 1];
                }
            }
        }

        return _state[location];
    }

    private bool Locked()
    {
        Access();
        if (MemoryModel == MemoryModel.TotalStoreOrder && BufferLength > 0)
        {
            // x86: a locked instruction (and mfence) completes only once the store buffer has drained; the drain
            // steps are scheduled separately, so the thread cannot move until they have happened.
            IsBlocked = true;
            return false;
        }

        return true;
    }

    private void Access()
    {
        if (++_accesses > 1)
        {
            throw new InvalidOperationException(
                $"{_model.Name}: a handler of {_model.ThreadName(Thread)} at '{Where}' performs two shared accesses.");
        }
    }
}
