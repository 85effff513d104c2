using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

public sealed class CatalogTests
{
    [Fact]
    public void The_catalog_holds_the_eight_programs_and_three_thesis_forms()
    {
        Assert.Equal(
            ["sumsq", "pi", "strassen", "quicksort", "mergesort", "pmergesort", "fib", "nqueens", "strassen-thesis", "quicksort-thesis", "mergesort-thesis"],
            ProgramCatalog.Names);
    }

    [Theory]
    [InlineData("QuickSort", "quicksort")]
    [InlineData("mergesort-parallel", "pmergesort")]
    [InlineData(" pmergesort ", "pmergesort")]
    [InlineData("sum-of-squares", "sumsq")]
    [InlineData("N-Queens", "nqueens")]
    [InlineData("QuickSort-Thesis", "quicksort-thesis")]
    [InlineData("mergesort-sequential", "mergesort-thesis")]
    [InlineData("strassen-sequential", "strassen-thesis")]
    public void Names_and_aliases_are_case_insensitive(string asked, string canonical)
    {
        Assert.Equal(canonical, ProgramCatalog.Find(asked).Name);
        Assert.Equal(canonical, ProgramCatalog.Create(asked, SizePreset.Quick).Name);
    }

    [Theory]
    [InlineData("bogosort")]
    [InlineData("")]
    public void An_unknown_name_is_rejected_with_the_list_of_names(string name)
    {
        var error = Assert.Throws<ArgumentException>(() => ProgramCatalog.Create(name, SizePreset.Quick));
        Assert.Equal("name", error.ParamName);
        Assert.Contains("quicksort", error.Message, StringComparison.Ordinal);
        Assert.False(ProgramCatalog.TryFind(name, out _));
    }

    [Theory]
    [InlineData("sumsq", 0)]
    [InlineData("sumsq", -1)]
    [InlineData("pi", 0)]
    [InlineData("strassen", 0)]
    [InlineData("strassen", 2053)]
    [InlineData("quicksort", -5)]
    [InlineData("mergesort", 0)]
    [InlineData("pmergesort", (long)int.MaxValue + 1)]
    [InlineData("fib", 0)]
    [InlineData("fib", 93)]
    [InlineData("nqueens", 0)]
    [InlineData("nqueens", 21)]
    public void Bad_sizes_are_rejected_naming_the_parameter_and_value(string name, long size)
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => ProgramCatalog.Create(name, size));
        Assert.Equal("size", error.ParamName);
        Assert.Equal(size, error.ActualValue);
    }

    [Fact]
    public void The_largest_strassen_order_keeps_products_within_int()
    {
        Assert.Equal(2052, DivCon.Programs.Matrices.StrassenProgram.MaxOrder);
        Assert.True(2052L * 1023 * 1023 <= int.MaxValue);
        Assert.True(2053L * 1023 * 1023 > int.MaxValue);
    }

    [Fact]
    public void Presets_give_the_documented_sizes()
    {
        Assert.Equal(1L << 27, ProgramCatalog.Find("sumsq").SizeOf(SizePreset.Thesis));
        Assert.Equal(1L << 30, ProgramCatalog.Find("pi").SizeOf(SizePreset.Thesis));
        Assert.Equal(1536, ProgramCatalog.Find("strassen").SizeOf(SizePreset.Thesis));
        Assert.Equal(1L << 26, ProgramCatalog.Find("quicksort").SizeOf(SizePreset.Thesis));
        Assert.Equal(15, ProgramCatalog.Find("nqueens").SizeOf(SizePreset.Thesis));
        Assert.Equal(40, ProgramCatalog.Find("fib").SizeOf(SizePreset.Thesis));
        Assert.Throws<ArgumentOutOfRangeException>(() => ProgramCatalog.Find("pi").SizeOf((SizePreset)9));
    }

    [Fact]
    public void Explicit_sizes_and_seeds_build_the_same_input_deterministically()
    {
        var first = ProgramCatalog.Create("quicksort", 1000, seed: 3);
        var again = ProgramCatalog.Create("quicksort", 1000, seed: 3);
        var other = ProgramCatalog.Create("quicksort", 1000, seed: 4);
        Assert.Equal(1000, first.ProblemSize);
        Assert.Equal(3, first.Seed);
        Assert.Equal(first.ComputeInputChecksum(), again.ComputeInputChecksum());
        Assert.NotEqual(first.ComputeInputChecksum(), other.ComputeInputChecksum());
    }

    [Fact]
    public void New_programs_default_to_automatic_granularity_by_time()
    {
        foreach (var name in ProgramCatalog.Names)
        {
            var program = ProgramCatalog.Create(name, SizePreset.Quick);
            Assert.Equal(Granularity.Automatic(), program.Granularity);
            Assert.False(program.HasResult);
        }
    }
}
