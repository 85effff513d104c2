namespace DivCon.Programs;

/// <summary>The merge of the counting programs: the sum of the children's counts.</summary>
internal static class SubresultSum
{
    /// <summary>Adds up the subresults (indexed loop: no enumerator on the merge path).</summary>
    /// <param name="subresults">The children's counts.</param>
    /// <returns>Their sum.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="subresults"/> is null.</exception>
    public static long Of(IReadOnlyList<long> subresults)
    {
        ArgumentNullException.ThrowIfNull(subresults);
        long total = 0;
        for (int i = 0; i < subresults.Count; i++)
        {
            total += subresults[i];
        }

        return total;
    }
}
