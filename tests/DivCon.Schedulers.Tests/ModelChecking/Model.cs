namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// A protocol under check: threads written as routines (a program counter and a few integer locals per call
/// frame) over a flat integer memory. Each handler (one program counter of one routine) performs at most one
/// shared-memory access; the explorer runs one thread's handlers until one has accessed memory, which makes one
/// atomic step.
/// </summary>
/// <remarks>
/// State layout (one <see cref="int"/> array): the memory cells first (shared locations and ghost cells used only
/// by invariants), then per thread: frame depth, store-buffer length, <see cref="BufferCapacity"/> (location,
/// value) pairs, and <see cref="MaxFrames"/> frames of (routine, pc, <see cref="Locals"/> locals). Unused cells
/// are kept at zero so that equal states have equal arrays.
/// </remarks>
internal abstract class Model
{
    private readonly List<string> _locationNames = [];
    private readonly List<int> _initialValues = [];

    /// <summary>Initializes a model.</summary>
    /// <param name="name">Shown in results.</param>
    /// <param name="locals">Locals per frame; local 0 receives a callee's return value.</param>
    /// <param name="maxFrames">The deepest call stack of any thread.</param>
    /// <param name="bufferCapacity">Store-buffer entries per thread (exceeding it is a model error).</param>
    protected Model(string name, int locals, int maxFrames, int bufferCapacity)
    {
        // Local 0 takes return values and locals 1-3 the arguments of Execution.Call.
        ArgumentOutOfRangeException.ThrowIfLessThan(locals, 4);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxFrames, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(bufferCapacity);
        Name = name;
        Locals = locals;
        MaxFrames = maxFrames;
        BufferCapacity = bufferCapacity;
    }

    /// <summary>The model's name (with its scenario and mutation).</summary>
    public string Name { get; }

    /// <summary>Locals per frame.</summary>
    public int Locals { get; }

    /// <summary>Frames per thread.</summary>
    public int MaxFrames { get; }

    /// <summary>Store-buffer entries per thread.</summary>
    public int BufferCapacity { get; }

    /// <summary>Number of memory cells (shared and ghost).</summary>
    public int MemorySize => _locationNames.Count;

    /// <summary>The thread count; fixed once <see cref="InitialState"/> is built.</summary>
    public abstract int ThreadCount { get; }

    /// <summary>Ints per frame.</summary>
    public int FrameSize => 2 + Locals;

    /// <summary>Ints per thread.</summary>
    public int ThreadSize => 2 + (2 * BufferCapacity) + (MaxFrames * FrameSize);

    /// <summary>Index of thread <paramref name="thread"/>'s first cell.</summary>
    /// <param name="thread">The thread.</param>
    /// <returns>The index.</returns>
    public int ThreadBase(int thread) => MemorySize + (thread * ThreadSize);

    /// <summary>Name of memory cell <paramref name="location"/>, for traces.</summary>
    /// <param name="location">The cell.</param>
    /// <returns>Its name.</returns>
    public string LocationName(int location) => _locationNames[location];

    /// <summary>Name of a thread, for traces.</summary>
    /// <param name="thread">The thread.</param>
    /// <returns>Its name.</returns>
    public abstract string ThreadName(int thread);

    /// <summary>Builds the initial state: memory from the allocations, then each thread's first frame.</summary>
    /// <returns>The state.</returns>
    public int[] InitialState()
    {
        int[] state = new int[MemorySize + (ThreadCount * ThreadSize)];
        for (int i = 0; i < _initialValues.Count; i++)
        {
            state[i] = _initialValues[i];
        }

        var execution = new Execution(this, MemoryModel.SequentialConsistency);
        for (int thread = 0; thread < ThreadCount; thread++)
        {
            execution.Begin(state, thread);
            StartThread(execution, thread);
        }

        return state;
    }

    /// <summary>Runs the handler at (<paramref name="routine"/>, <paramref name="pc"/>) of the current thread.</summary>
    /// <param name="x">The step context (current thread, memory operations, frames).</param>
    /// <param name="routine">The top frame's routine.</param>
    /// <param name="pc">The top frame's program counter.</param>
    public abstract void Execute(Execution x, int routine, int pc);

    /// <summary>Checks a state where no thread can move and every store buffer is empty.</summary>
    /// <param name="x">A context over the state (read with <see cref="Execution.Peek"/>).</param>
    /// <returns>A description of the violated invariant, or null.</returns>
    public abstract string? CheckTerminal(Execution x);

    /// <summary>Checks an invariant of every reachable state (after each transition); null when it holds.</summary>
    /// <param name="x">A context over the state (read with <see cref="Execution.Peek"/> and <see cref="Execution.TopOf"/>).</param>
    /// <returns>A description of the violated invariant, or null.</returns>
    public virtual string? CheckState(Execution x) => null;

    /// <summary>Whether some step calls <see cref="Execution.Choose"/> (the explorer then also tries each step's other branch).</summary>
    public virtual bool MakesChoices => false;

    /// <summary>Pushes thread <paramref name="thread"/>'s first frame(s) (<see cref="Execution.Call"/>).</summary>
    /// <param name="x">A context whose current thread is <paramref name="thread"/>.</param>
    /// <param name="thread">The thread.</param>
    protected abstract void StartThread(Execution x, int thread);

    /// <summary>Allocates one memory cell.</summary>
    /// <param name="name">Its name in traces.</param>
    /// <param name="initial">Its initial value.</param>
    /// <returns>Its location.</returns>
    protected int Allocate(string name, int initial = 0)
    {
        _locationNames.Add(name);
        _initialValues.Add(initial);
        return _locationNames.Count - 1;
    }

    /// <summary>Sets the initial value of an allocated cell.</summary>
    /// <param name="location">The cell.</param>
    /// <param name="value">The value.</param>
    protected void SetInitial(int location, int value) => _initialValues[location] = value;
}
