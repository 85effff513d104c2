namespace DivCon.Programs.Sorting;

/// <summary>The argument checks shared by the non-destructive sorts (source into a separate output).</summary>
internal static class SortArguments
{
    /// <summary>Throws unless <paramref name="output"/> is a different array of <paramref name="source"/>'s length.</summary>
    /// <param name="source">The elements to sort.</param>
    /// <param name="output">The array that receives them sorted.</param>
    /// <exception cref="ArgumentNullException">An array is null.</exception>
    /// <exception cref="ArgumentException">The lengths differ or the arrays are the same.</exception>
    public static void ThrowIfNotSeparateOutput(int[] source, int[] output)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(output);
        if (output.Length != source.Length || ReferenceEquals(source, output))
        {
            throw new ArgumentException("The output must be a different array of the source's length.", nameof(output));
        }
    }
}
