namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// <c>WorkStealingDeque</c> alone: one owner thread runs a script of pushes and pops, each thief thread a number
/// of steal attempts. Invariants: a taken item was pushed and is taken once (checked on every take, with the
/// thief's <c>Debug.Assert</c>); at the end every pushed item was taken exactly once or is still in
/// <c>[top, bottom)</c>, and <c>top &lt;= bottom</c>.
/// </summary>
internal sealed class DequeModel : Model
{
    private const int OwnerScript = 0;
    private const int ThiefScript = 1;
    private const int Push = 2;
    private const int Pop = 3;
    private const int Steal = 4;

    private readonly int[] _ownerOps;
    private readonly int[] _thiefSteals;
    private readonly DequeMutation _mutation;
    private readonly DequeCells _deque;
    private readonly int _takenBase;
    private readonly int _items;

    /// <summary>Creates the model.</summary>
    /// <param name="ownerOps">The owner's script: a positive number pushes that item, 0 pops.</param>
    /// <param name="thiefSteals">For each thief, its number of TrySteal calls.</param>
    /// <param name="initialCapacity">The first array's length (a power of two); one growth to twice that is modelled.</param>
    /// <param name="mutation">Defects to inject.</param>
    public DequeModel(int[] ownerOps, int[] thiefSteals, int initialCapacity = 2, DequeMutation mutation = DequeMutation.None)
        : base(Describe(ownerOps, thiefSteals, initialCapacity, mutation), locals: 8, maxFrames: 2, bufferCapacity: 12)
    {
        _ownerOps = ownerOps;
        _thiefSteals = thiefSteals;
        _mutation = mutation;
        _items = ownerOps.Where(op => op > 0).DefaultIfEmpty(0).Max();
        int top = Allocate("top");
        int bottom = Allocate("bottom");
        int arrayRef = Allocate("_array");
        int[] capacity = [initialCapacity, 2 * initialCapacity];
        int[] slotBase = new int[2];
        for (int array = 0; array < 2; array++)
        {
            slotBase[array] = MemorySize;
            for (int i = 0; i < capacity[array]; i++)
            {
                Allocate($"array{array}[{i}]");
            }
        }

        _deque = new DequeCells(top, bottom, arrayRef, slotBase, capacity);
        _takenBase = MemorySize;
        for (int item = 1; item <= _items; item++)
        {
            Allocate($"taken({item})");
        }
    }

    /// <inheritdoc />
    public override int ThreadCount => 1 + _thiefSteals.Length;

    /// <inheritdoc />
    public override string ThreadName(int thread) => thread == 0 ? "owner" : $"thief{thread}";

    /// <inheritdoc />
    public override void Execute(Execution x, int routine, int pc)
    {
        switch (routine)
        {
            case Push:
                DequeRoutines.LocalPush(x, pc, _deque);
                return;
            case Pop:
                DequeRoutines.LocalPop(x, pc, _deque, _mutation);
                return;
            case Steal:
                DequeRoutines.TrySteal(x, pc, _deque, _mutation);
                return;
            case OwnerScript:
                // Local 1: the next op. pc 1: the op returned (local 0: a popped item or 0).
                if (pc == 1 && _ownerOps[x[1] - 1] == 0 && x[0] != 0)
                {
                    Take(x, x[0], "LocalPop");
                }

                if (x[1] == _ownerOps.Length)
                {
                    x.Return();
                    return;
                }

                int op = _ownerOps[x[1]++];
                x.Where = op > 0 ? $"owner: LocalPush({op})" : "owner: LocalPop()";
                x.Call(op > 0 ? Push : Pop, returnPc: 1, arg1: op);
                return;
            case ThiefScript:
                // Local 1: attempts made. pc 1: TrySteal returned (local 0: an item, Empty or Retry).
                if (pc == 1 && x[0] > 0)
                {
                    Take(x, x[0], "TrySteal");
                }

                if (x[1] == _thiefSteals[x.Thread - 1])
                {
                    x.Return();
                    return;
                }

                x[1]++;
                x.Where = $"{ThreadName(x.Thread)}: TrySteal()";
                x.Call(Steal, returnPc: 1);
                return;
            default:
                throw new InvalidOperationException($"No routine {routine}.");
        }
    }

    /// <inheritdoc />
    public override string? CheckTerminal(Execution x)
    {
        for (int thread = 0; thread < ThreadCount; thread++)
        {
            if (x.DepthOf(thread) != 0)
            {
                return $"{ThreadName(thread)} cannot finish";
            }
        }

        int top = x.Peek(_deque.Top);
        int bottom = x.Peek(_deque.Bottom);
        if (top > bottom)
        {
            return $"the deque rests with top {top} above bottom {bottom}";
        }

        int array = x.Peek(_deque.ArrayRef);
        foreach (int item in _ownerOps.Where(op => op > 0))
        {
            int copies = x.Peek(_takenBase + item - 1);
            for (int i = top; i < bottom; i++)
            {
                copies += x.Peek(_deque.Slot(array, i)) == item ? 1 : 0;
            }

            if (copies != 1)
            {
                return copies == 0
                    ? $"item {item} was lost: never taken and not in the deque"
                    : $"item {item} exists {copies} times (taken and still in the deque)";
            }
        }

        return null;
    }

    /// <inheritdoc />
    protected override void StartThread(Execution x, int thread) =>
        x.Call(thread == 0 ? OwnerScript : ThiefScript, returnPc: 0);

    private static string Describe(int[] ownerOps, int[] thiefSteals, int capacity, DequeMutation mutation) =>
        $"deque(owner: {string.Join(' ', ownerOps.Select(op => op > 0 ? $"push{op}" : "pop"))}; " +
        $"thieves: {string.Join(", ", thiefSteals.Select(n => $"{n} steal(s)"))}; capacity {capacity}; {mutation})";

    private void Take(Execution x, int item, string how)
    {
        if (item < 1 || item > _items)
        {
            x.Fail($"{how} returned {item}, which was never pushed");
            return;
        }

        int taken = x.Peek(_takenBase + item - 1) + 1;
        x.SetGhost(_takenBase + item - 1, taken);
        if (taken > 1)
        {
            x.Fail($"item {item} taken twice (the second time by {ThreadName(x.Thread)}'s {how})");
        }
    }
}
