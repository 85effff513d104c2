namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>Deliberate defects that the deque model can carry, to show that the checker finds them.</summary>
[Flags]
internal enum DequeMutation
{
    /// <summary>The deque as written.</summary>
    None = 0,

    /// <summary><c>LocalPop</c> publishes its reservation of <c>bottom</c> with a plain store instead of Interlocked.Exchange.</summary>
    PopWithoutFence = 1,

    /// <summary><c>LocalPop</c> takes the last item without the compare-and-swap on <c>top</c>.</summary>
    PopLastWithoutCas = 2,

    /// <summary><c>TrySteal</c> claims its item with a plain store of <c>top + 1</c> instead of a compare-and-swap.</summary>
    StealWithoutCas = 4,
}

/// <summary>The memory cells of one modelled <c>WorkStealingDeque</c>.</summary>
/// <param name="Top">The <c>_top</c> cell.</param>
/// <param name="Bottom">The <c>_bottom</c> cell.</param>
/// <param name="ArrayRef">The <c>_array</c> cell (an array id), or -1 when the deque never grows (one array, id 0).</param>
/// <param name="SlotBase">For each array id, its first slot cell.</param>
/// <param name="Capacity">For each array id, its length (a power of two).</param>
internal sealed record DequeCells(int Top, int Bottom, int ArrayRef, int[] SlotBase, int[] Capacity)
{
    /// <summary>The cell of index <paramref name="index"/> in array <paramref name="array"/>.</summary>
    /// <param name="array">The array id.</param>
    /// <param name="index">The deque index (masked like the code does).</param>
    /// <returns>The cell.</returns>
    public int Slot(int array, int index) => SlotBase[array] + (index & (Capacity[array] - 1));
}

/// <summary>
/// The three operations of <c>src/Schedulers/Collections/WorkStealingDeque.cs</c>, one handler per shared access,
/// each labelled with the line it mirrors. Shared by the deque model and the worker-pool model. Frame locals:
/// 1 = the pushed item; 4-7 = the routine's variables (locals 2-3 are free for the caller's arguments).
/// Return values: LocalPop returns the item or 0 (null); TrySteal returns the item, <see cref="Empty"/> or
/// <see cref="Retry"/>.
/// </summary>
internal static class DequeRoutines
{
    /// <summary>TrySteal found the deque empty.</summary>
    public const int Empty = 0;

    /// <summary>TrySteal lost the race (StealResult.Retry).</summary>
    public const int Retry = -1;

    private const int Item = 1;
    private const int VarBottom = 4;
    private const int VarTop = 5;
    private const int VarArray = 6;
    private const int VarExtra = 7;

    /// <summary>LocalPush (lines 101-116), with Grow (lines 238-256) inlined.</summary>
    /// <param name="x">The step context.</param>
    /// <param name="pc">The handler.</param>
    /// <param name="d">The deque.</param>
    public static void LocalPush(Execution x, int pc, DequeCells d)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkStealingDeque.cs:104 long bottom = _bottom.Value (own cell)";
                x[VarBottom] = x.LoadPrivate(d.Bottom);
                x.Pc = 1;
                return;
            case 1:
                x.Where = "WorkStealingDeque.cs:106 long top = Volatile.Read(ref _top.Value)";
                x[VarTop] = x.Load(d.Top);
                x.Pc = 2;
                return;
            case 2:
                x.Where = "WorkStealingDeque.cs:107-111 array = _array; grow when full";
                x[VarArray] = d.ArrayRef < 0 ? 0 : x.LoadPrivate(d.ArrayRef);
                if (x[VarBottom] - x[VarTop] > d.Capacity[x[VarArray]] - 1)
                {
                    if (x[VarArray] + 1 >= d.Capacity.Length)
                    {
                        throw new InvalidOperationException("The modelled deque has no larger array to grow into.");
                    }

                    x[VarExtra] = x[VarTop];
                    x.Pc = 10;
                    return;
                }

                x.Pc = 3;
                return;
            case 3:
                x.Where = "WorkStealingDeque.cs:113 array[bottom & mask] = item";
                x.Store(d.Slot(x[VarArray], x[VarBottom]), x[Item]);
                x.Pc = 4;
                return;
            case 4:
                x.Where = "WorkStealingDeque.cs:115 Volatile.Write(ref _bottom.Value, bottom + 1)";
                x.Store(d.Bottom, x[VarBottom] + 1);
                x.Return();
                return;
            case 10:
                // Grow: copy [top, bottom) into the next array (fresh memory), then publish it.
                x.Where = "WorkStealingDeque.cs:247-250 Grow: grown[i & mask'] = array[i & mask]";
                int i = x[VarExtra];
                if (i < x[VarBottom])
                {
                    int value = x.LoadPrivate(d.Slot(x[VarArray], i));
                    x.Store(d.Slot(x[VarArray] + 1, i), value);
                    x[VarExtra] = i + 1;
                    return;
                }

                x.Pc = 11;
                return;
            case 11:
                x.Where = "WorkStealingDeque.cs:253 Grow: Volatile.Write(ref _array, grown)";
                x.Store(d.ArrayRef, x[VarArray] + 1);
                x[VarArray]++;
                x.Pc = 3;
                return;
            default:
                throw new InvalidOperationException($"LocalPush has no pc {pc}.");
        }
    }

    /// <summary>LocalPop (lines 120-157).</summary>
    /// <param name="x">The step context.</param>
    /// <param name="pc">The handler.</param>
    /// <param name="d">The deque.</param>
    /// <param name="mutation">Defects to inject.</param>
    public static void LocalPop(Execution x, int pc, DequeCells d, DequeMutation mutation)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkStealingDeque.cs:122-123 bottom = _bottom.Value - 1; array = _array (own cells)";
                x[VarBottom] = x.LoadPrivate(d.Bottom) - 1;
                x[VarArray] = d.ArrayRef < 0 ? 0 : x.LoadPrivate(d.ArrayRef);
                x.Pc = 1;
                return;
            case 1:
                if ((mutation & DequeMutation.PopWithoutFence) != 0)
                {
                    x.Where = "WorkStealingDeque.cs:126 MUTATED: _bottom.Value = bottom (plain store, no fence)";
                    x.Store(d.Bottom, x[VarBottom]);
                }
                else
                {
                    x.Where = "WorkStealingDeque.cs:126 Interlocked.Exchange(ref _bottom.Value, bottom)";
                    x.Exchange(d.Bottom, x[VarBottom]);
                }

                x.Pc = 2;
                return;
            case 2:
                x.Where = "WorkStealingDeque.cs:127 long top = Volatile.Read(ref _top.Value)";
                x[VarTop] = x.Load(d.Top);
                x.Pc = x[VarTop] > x[VarBottom] ? 3 : 4;
                return;
            case 3:
                x.Where = "WorkStealingDeque.cs:132-133 empty: Volatile.Write(ref _bottom.Value, bottom + 1); return null";
                x.Store(d.Bottom, x[VarBottom] + 1);
                x.Return(0);
                return;
            case 4:
                x.Where = "WorkStealingDeque.cs:136-137 item = array[bottom & mask] (own slot)";
                x[Item] = x.LoadPrivate(d.Slot(x[VarArray], x[VarBottom]));
                x.Pc = x[VarTop] < x[VarBottom] ? 5 : 6;
                return;
            case 5:
                x.Where = "WorkStealingDeque.cs:141-143 more than one item: array[slot] = null; return item";
                x.Store(d.Slot(x[VarArray], x[VarBottom]), 0);
                x.Return(x[Item]);
                return;
            case 6:
                if ((mutation & DequeMutation.PopLastWithoutCas) != 0)
                {
                    x.Where = "WorkStealingDeque.cs:147 MUTATED: won = true (no CAS on top)";
                    x[VarExtra] = 1;
                }
                else
                {
                    x.Where = "WorkStealingDeque.cs:147 won = CompareExchange(ref _top.Value, top + 1, top) == top";
                    x[VarExtra] = x.CompareExchange(d.Top, x[VarTop] + 1, x[VarTop]) == x[VarTop] ? 1 : 0;
                }

                x.Pc = x[VarExtra] != 0 ? 7 : 8;
                return;
            case 7:
                x.Where = "WorkStealingDeque.cs:151 won: array[slot] = null";
                x.Store(d.Slot(x[VarArray], x[VarBottom]), 0);
                x.Pc = 8;
                return;
            case 8:
                x.Where = "WorkStealingDeque.cs:155-156 Volatile.Write(ref _bottom.Value, bottom + 1); return won ? item : null";
                x.Store(d.Bottom, x[VarBottom] + 1);
                x.Return(x[VarExtra] != 0 ? x[Item] : 0);
                return;
            default:
                throw new InvalidOperationException($"LocalPop has no pc {pc}.");
        }
    }

    /// <summary>TrySteal (lines 162-189).</summary>
    /// <param name="x">The step context.</param>
    /// <param name="pc">The handler.</param>
    /// <param name="d">The deque.</param>
    /// <param name="mutation">Defects to inject.</param>
    public static void TrySteal(Execution x, int pc, DequeCells d, DequeMutation mutation)
    {
        switch (pc)
        {
            case 0:
                x.Where = "WorkStealingDeque.cs:165 long top = Volatile.Read(ref _top.Value)";
                x[VarTop] = x.Load(d.Top);
                x.Pc = 1;
                return;
            case 1:
                x.Where = "WorkStealingDeque.cs:167 Interlocked.MemoryBarrier()";
                x.Fence();
                x.Pc = 2;
                return;
            case 2:
                x.Where = "WorkStealingDeque.cs:169-174 long bottom = Volatile.Read(ref _bottom.Value); top >= bottom: Empty";
                x[VarBottom] = x.Load(d.Bottom);
                if (x[VarTop] >= x[VarBottom])
                {
                    x.Return(Empty);
                    return;
                }

                x.Pc = 3;
                return;
            case 3:
                // Without growth the array never changes: the load of _array reads a constant and is no step.
                x.Where = "WorkStealingDeque.cs:177 T?[] array = Volatile.Read(ref _array)";
                x[VarArray] = d.ArrayRef < 0 ? 0 : x.Load(d.ArrayRef);
                x.Pc = 4;
                return;
            case 4:
                x.Where = "WorkStealingDeque.cs:178 candidate = array[top & mask]";
                x[VarExtra] = x.Load(d.Slot(x[VarArray], x[VarTop]));
                x.Pc = 5;
                return;
            case 5:
                bool won;
                if ((mutation & DequeMutation.StealWithoutCas) != 0)
                {
                    x.Where = "WorkStealingDeque.cs:180 MUTATED: _top.Value = top + 1 (plain store, no CAS)";
                    x.Store(d.Top, x[VarTop] + 1);
                    won = true;
                }
                else
                {
                    x.Where = "WorkStealingDeque.cs:180 CompareExchange(ref _top.Value, top + 1, top) != top: Retry";
                    won = x.CompareExchange(d.Top, x[VarTop] + 1, x[VarTop]) == x[VarTop];
                }

                if (!won)
                {
                    x.Return(Retry);
                    return;
                }

                if (x[VarExtra] == 0 && !x.IsBlocked)
                {
                    x.Fail("Debug.Assert(candidate is not null) fails: a thief claimed an empty slot");
                }

                x.Return(x[VarExtra]);
                return;
            default:
                throw new InvalidOperationException($"TrySteal has no pc {pc}.");
        }
    }
}
