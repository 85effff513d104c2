using System.Runtime.InteropServices;
using DivCon.Programs.Matrices;
using DivCon.Programs.Sorting;

namespace DivCon.Programs.Tests;

/// <summary>Verification catches wrong results (corrupted after a correct run), with a message that says where.</summary>
public sealed class VerificationTests
{
    [Theory]
    [InlineData("quicksort")]
    [InlineData("mergesort")]
    [InlineData("pmergesort")]
    public void An_unsorted_output_fails(string name)
    {
        var sort = ProgramCatalog.Create(name, 5000, seed: 2);
        sort.RunSequential();
        Assert.True(sort.Verify().Succeeded);

        var output = OutputOf(sort);
        (output[10], output[11]) = (output[11] + 1, output[10]);
        var verification = sort.Verify();
        Assert.False(verification.Succeeded);
        Assert.Contains("output[10]", verification.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(sort.VerifyOrThrow);
    }

    [Fact]
    public void A_sorted_output_that_is_not_a_permutation_of_the_source_fails()
    {
        var sort = ProgramCatalog.Create("quicksort", 5000, seed: 2);
        sort.RunSequential();
        var output = OutputOf(sort);
        output[^1] = int.MaxValue; // still sorted (values are below int.MaxValue), different multiset
        var verification = sort.Verify();
        Assert.False(verification.Succeeded);
        Assert.Contains("permutation", verification.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_wrong_product_entry_fails_with_its_position()
    {
        var program = new StrassenProgram(70, seed: 1);
        program.RunSequential();
        Assert.True(program.Verify().Succeeded);
        program.LastResult[3, 5]++;
        var verification = program.Verify();
        Assert.False(verification.Succeeded);
        Assert.Contains("(3, 5)", verification.Message, StringComparison.Ordinal);
    }

    private static Span<int> OutputOf(BenchmarkProgram sort) => sort switch
    {
        QuicksortProgram quicksort => MemoryMarshal.AsMemory(quicksort.Output).Span,
        MergesortProgram mergesort => MemoryMarshal.AsMemory(mergesort.Output).Span,
        _ => throw new ArgumentException("not a sort", nameof(sort)),
    };
}
