using Xunit.Abstractions;

namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// Exhaustive checks of the Chase-Lev deque model (<see cref="DequeModel"/>, mirroring
/// <c>WorkStealingDeque.cs</c>) under x86-TSO: the code as written keeps every item exactly once; each injected
/// defect is found with a trace.
/// </summary>
public sealed class DequeModelTests(ITestOutputHelper output)
{
    public static TheoryData<string, int[], int[], int> Scenarios => new()
    {
        // Owner pops both items while one thief steals twice: races on the last item and on a stale bottom.
        { "push2-pop2-vs-2steals", [1, 2, 0, 0], [2], 2 },
        // The third push grows the array (capacity 2 to 4) while a thief may read either array.
        { "grow-vs-2steals", [1, 2, 3, 0], [2], 2 },
        // Two thieves race each other and the owner for the same items.
        { "push2-pop-vs-2thieves", [1, 2, 0], [1, 1], 2 },
        // Pushes interleaved with pops: indices move up and down while a thief steals.
        { "push-pop-push-pop-vs-2steals", [1, 0, 2, 3, 0, 0], [2], 4 },
    };

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void The_deque_as_written_takes_every_item_exactly_once(string name, int[] owner, int[] thieves, int capacity)
    {
        output.WriteLine(name);
        ModelAssert.Holds(new DequeModel(owner, thieves, capacity), MemoryModel.TotalStoreOrder, output);
    }

    [Fact]
    public void Pop_without_its_fence_lets_a_thief_take_the_item_the_owner_took()
    {
        var model = new DequeModel([1, 2, 0, 0], [2], mutation: DequeMutation.PopWithoutFence);
        ModelAssert.Violated(model, MemoryModel.TotalStoreOrder, output, "taken twice");
    }

    [Fact]
    public void Pop_without_its_fence_is_correct_under_sequential_consistency_so_only_a_store_buffer_model_finds_it()
    {
        var model = new DequeModel([1, 2, 0, 0], [2], mutation: DequeMutation.PopWithoutFence);
        ModelAssert.Holds(model, MemoryModel.SequentialConsistency, output);
    }

    [Fact]
    public void Pop_of_the_last_item_without_its_compare_and_swap_lets_a_thief_claim_it_too()
    {
        // The owner takes item 1 and clears its slot; the thief's CAS still succeeds on the same index.
        var model = new DequeModel([1, 0], [1], mutation: DequeMutation.PopLastWithoutCas);
        ModelAssert.Violated(model, MemoryModel.TotalStoreOrder, output, "a thief claimed an empty slot");
    }

    [Fact]
    public void Steal_without_its_compare_and_swap_duplicates_an_item()
    {
        var model = new DequeModel([1, 2, 0], [1, 1], mutation: DequeMutation.StealWithoutCas);
        ModelAssert.Violated(model, MemoryModel.TotalStoreOrder, output, "taken twice");
    }
}
