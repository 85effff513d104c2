namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// A self-test of nondeterministic choices and state invariants: one thread makes two choices in a row and records
/// each in a ghost cell. The explorer must reach all four outcomes; with <c>forbidBothYes</c>, the state invariant
/// (<see cref="Model.CheckState"/>) rejects the state where both choices said yes.
/// </summary>
internal sealed class ChoiceLitmus : Model
{
    private readonly bool _forbidBothYes;
    private readonly int _first;
    private readonly int _second;

    /// <summary>Creates the test model.</summary>
    /// <param name="forbidBothYes">Whether the state invariant rejects two yes answers.</param>
    public ChoiceLitmus(bool forbidBothYes)
        : base(forbidBothYes ? "two choices, not both yes" : "two choices", locals: 4, maxFrames: 1, bufferCapacity: 1)
    {
        _forbidBothYes = forbidBothYes;
        _first = Allocate("first choice", -1);
        _second = Allocate("second choice", -1);
    }

    /// <inheritdoc />
    public override int ThreadCount => 1;

    /// <inheritdoc />
    public override bool MakesChoices => true;

    /// <inheritdoc />
    public override string ThreadName(int thread) => "chooser";

    /// <inheritdoc />
    public override void Execute(Execution x, int routine, int pc)
    {
        x.Where = pc == 0 ? "first" : "second";
        x.SetGhost(pc == 0 ? _first : _second, x.Choose(x.Where) ? 1 : 0);
        if (pc == 0)
        {
            x.Pc = 1;
            return;
        }

        x.Return();
    }

    /// <inheritdoc />
    public override string? CheckState(Execution x) =>
        _forbidBothYes && x.Peek(_first) == 1 && x.Peek(_second) == 1 ? "both choices said yes" : null;

    /// <inheritdoc />
    public override string? CheckTerminal(Execution x) => null;

    /// <inheritdoc />
    protected override void StartThread(Execution x, int thread) => x.Call(0, returnPc: 0);
}
