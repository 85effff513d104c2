namespace DivCon.Programs.Tests.Infrastructure;

/// <summary>The sorting algorithms under test.</summary>
public enum SortKind
{
    Quicksort,
    Mergesort,
    ParallelMergesort,
}
