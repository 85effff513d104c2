namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// The store-buffering litmus test (the shape of every Dekker handshake in the schedulers): thread 0 stores x then
/// loads y, thread 1 stores y then loads x. Sequential consistency forbids both loads reading 0; x86-TSO allows it
/// unless a full fence (or a locked instruction) separates each store from the load after it. The terminal
/// "invariant" is that at least one thread saw the other's store, so the checker reports the TSO outcome.
/// </summary>
internal sealed class StoreBufferingLitmus : Model
{
    private readonly bool _fenced;
    private readonly int _x;
    private readonly int _y;
    private readonly int _seen0;
    private readonly int _seen1;

    /// <summary>Creates the litmus test.</summary>
    /// <param name="fenced">Whether each thread runs Interlocked.MemoryBarrier between its store and its load.</param>
    public StoreBufferingLitmus(bool fenced)
        : base(fenced ? "store buffering, fenced" : "store buffering", locals: 4, maxFrames: 1, bufferCapacity: 2)
    {
        _fenced = fenced;
        _x = Allocate("x");
        _y = Allocate("y");
        _seen0 = Allocate("r0 (y seen by thread 0)", -1);
        _seen1 = Allocate("r1 (x seen by thread 1)", -1);
    }

    /// <inheritdoc />
    public override int ThreadCount => 2;

    /// <inheritdoc />
    public override string ThreadName(int thread) => $"thread{thread}";

    /// <inheritdoc />
    public override void Execute(Execution x, int routine, int pc)
    {
        int mine = x.Thread == 0 ? _x : _y;
        int theirs = x.Thread == 0 ? _y : _x;
        switch (pc)
        {
            case 0:
                x.Where = "store mine = 1";
                x.Store(mine, 1);
                x.Pc = _fenced ? 1 : 2;
                return;
            case 1:
                x.Where = "Interlocked.MemoryBarrier()";
                x.Fence();
                x.Pc = 2;
                return;
            default:
                x.Where = "r = load theirs";
                x.SetGhost(x.Thread == 0 ? _seen0 : _seen1, x.Load(theirs));
                x.Return();
                return;
        }
    }

    /// <inheritdoc />
    public override string? CheckTerminal(Execution x) =>
        x.Peek(_seen0) == 0 && x.Peek(_seen1) == 0 ? "both threads read 0: neither saw the other's store" : null;

    /// <inheritdoc />
    protected override void StartThread(Execution x, int thread) => x.Call(0, returnPc: 0);
}
