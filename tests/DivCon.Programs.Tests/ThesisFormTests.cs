using DivCon.Programs.Matrices;
using DivCon.Programs.Sorting;
using DivCon.Programs.Tests.Infrastructure;
using DivCon.Skeletons;

namespace DivCon.Programs.Tests;

/// <summary>
/// The thesis forms (<c>quicksort-thesis</c>, <c>mergesort-thesis</c>, <c>strassen-thesis</c>): the same programs with
/// every split, merge and matrix sum one sequential sweep, and results identical to the default forms.
/// </summary>
public sealed class ThesisFormTests
{
    // Above the default sweep limit (2^19), so the default forms do cut their top sweeps and the thesis forms do not.
    private const int SortLength = 1 << 20;

    [Theory]
    [InlineData("quicksort-thesis", "quicksort")]
    [InlineData("mergesort-thesis", "mergesort")]
    [InlineData("strassen-thesis", "strassen")]
    public void A_thesis_form_has_the_default_forms_sizes_and_sequential_sweeps(string thesisForm, string defaultForm)
    {
        var thesis = ProgramCatalog.Find(thesisForm);
        var plain = ProgramCatalog.Find(defaultForm);
        Assert.Equal((plain.QuickSize, plain.ThesisSize, plain.SizeMeaning), (thesis.QuickSize, thesis.ThesisSize, thesis.SizeMeaning));

        var program = ProgramCatalog.Create(thesisForm, SizePreset.Quick);
        Assert.Equal(thesisForm, program.Name);
        Assert.True(SequentialSweeps(program), $"{thesisForm} should sweep sequentially");
        Assert.False(SequentialSweeps(ProgramCatalog.Create(defaultForm, SizePreset.Quick)), $"{defaultForm} should cut its sweeps");
    }

    [Theory]
    [InlineData("quicksort-thesis", "quicksort")]
    [InlineData("mergesort-thesis", "mergesort")]
    public async Task A_thesis_form_sort_does_its_top_sweep_as_one_piece_and_sorts_as_the_default_form(string thesisForm, string defaultForm)
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var (thesisLargest, thesisChecksum) = await RunSort(ProgramCatalog.Create(thesisForm, SortLength, seed: 3), lease.Scheduler);
        var (plainLargest, plainChecksum) = await RunSort(ProgramCatalog.Create(defaultForm, SortLength, seed: 3), lease.Scheduler);

        Assert.Equal(SortLength, thesisLargest);
        Assert.True(plainLargest <= 1 << 19, $"{defaultForm}: a piece touched {plainLargest} elements");
        Assert.Equal(plainChecksum, thesisChecksum);
    }

    [Fact]
    public async Task The_thesis_form_of_strassen_gives_the_default_forms_product()
    {
        using var lease = new SchedulerLease(SchedulerKind.TwoWorkers);
        var thesis = ProgramCatalog.Create("strassen-thesis", 320, seed: 9);
        var plain = ProgramCatalog.Create("strassen", 320, seed: 9);
        foreach (var program in new[] { thesis, plain })
        {
            program.Granularity = Granularity.Depth(2);
            await program.RunParallelAsync(lease.Scheduler, ExecutionEngine.Continuation).Bounded();
            Assert.True(program.Verify().Succeeded, program.Verify().Message);
        }

        Assert.Equal(plain.ComputeResultChecksum(), thesis.ComputeResultChecksum());
    }

    [Fact]
    public void A_mergesort_cannot_be_both_the_thesis_form_and_parallel_merge()
    {
        var error = Assert.Throws<ArgumentException>(() => new MergesortProgram(16, seed: 1, parallelMerge: true, sequentialSweeps: true));
        Assert.Equal("sequentialSweeps", error.ParamName);
    }

    [Fact]
    public void A_thesis_form_rejects_a_bad_size_naming_itself()
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => ProgramCatalog.Create("strassen-thesis", 0L));
        Assert.Equal("size", error.ParamName);
        Assert.Contains("strassen-thesis", error.Message, StringComparison.Ordinal);
    }

    private static bool SequentialSweeps(BenchmarkProgram program) => program switch
    {
        QuicksortProgram quicksort => quicksort.HasSequentialSweeps,
        MergesortProgram mergesort => mergesort.HasSequentialSweeps,
        StrassenProgram strassen => strassen.HasSequentialSweeps,
        _ => throw new ArgumentException($"not a program with sweeps: {program.Name}", nameof(program)),
    };

    // Runs a sort on the scheduler with leaves of 2^14 elements; returns the most elements one sequential piece touched.
    private static async Task<(long Largest, ulong Checksum)> RunSort(BenchmarkProgram program, TaskScheduler scheduler)
    {
        long largest = 0;
        void Observe(long elements)
        {
            long seen = Interlocked.Read(ref largest);
            while (elements > seen)
            {
                long previous = Interlocked.CompareExchange(ref largest, elements, seen);
                if (previous == seen)
                {
                    break;
                }

                seen = previous;
            }
        }

        switch (program)
        {
            case QuicksortProgram quicksort:
                ((Quicksort)quicksort.Skeleton).PieceObserver = Observe;
                break;
            case MergesortProgram mergesort:
                ((Mergesort)mergesort.Skeleton).PieceObserver = Observe;
                break;
            default:
                throw new ArgumentException($"not a sort: {program.Name}", nameof(program));
        }

        program.Granularity = Granularity.Fixed(1 << 14);
        await program.RunParallelAsync(scheduler, ExecutionEngine.Continuation).Bounded();
        Assert.True(program.Verify().Succeeded, program.Verify().Message);
        return (Interlocked.Read(ref largest), program.ComputeResultChecksum());
    }
}
