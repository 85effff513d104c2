namespace DivCon.Programs;

/// <summary>Named problem sizes of the catalog.</summary>
public enum SizePreset
{
    /// <summary>Small: well under a second sequentially, for tests and demos.</summary>
    Quick = 0,

    /// <summary>The sizes of the reference thesis (for fib and nqueens, which it did not have, sizes of a similar run time).</summary>
    Thesis = 1,
}
