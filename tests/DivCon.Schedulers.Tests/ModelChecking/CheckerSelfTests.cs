using Xunit.Abstractions;

namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>
/// The checker's memory models on the store-buffering litmus test, whose outcomes are known, and its
/// nondeterministic choices and state invariants on <see cref="ChoiceLitmus"/>.
/// </summary>
public sealed class CheckerSelfTests(ITestOutputHelper output)
{
    [Fact]
    public void Sequential_consistency_forbids_both_loads_reading_zero() =>
        ModelAssert.Holds(new StoreBufferingLitmus(fenced: false), MemoryModel.SequentialConsistency, output);

    [Fact]
    public void Total_store_order_lets_both_loads_read_zero() =>
        ModelAssert.Violated(new StoreBufferingLitmus(fenced: false), MemoryModel.TotalStoreOrder, output, "both threads read 0");

    [Fact]
    public void A_fence_between_store_and_load_restores_the_handshake_under_total_store_order() =>
        ModelAssert.Holds(new StoreBufferingLitmus(fenced: true), MemoryModel.TotalStoreOrder, output);

    [Fact]
    public void Every_outcome_of_a_nondeterministic_choice_is_explored()
    {
        CheckResult result = ModelAssert.Holds(new ChoiceLitmus(forbidBothYes: false), MemoryModel.TotalStoreOrder, output);
        Assert.Equal(4, result.TerminalStates);
    }

    [Fact]
    public void A_state_invariant_reports_the_state_that_breaks_it_with_its_choices() =>
        Assert.Contains(
            ModelAssert.Violated(new ChoiceLitmus(forbidBothYes: true), MemoryModel.TotalStoreOrder, output, "both choices said yes").Trace,
            line => line.Contains("second: chose yes", StringComparison.Ordinal));
}
