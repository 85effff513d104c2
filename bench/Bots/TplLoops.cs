namespace DivCon.Bench.Bots;

/// <summary>
/// The suite's parallel loops as its OpenMP versions write them (split the range in halves until a piece is at most
/// the grain, one task per half), in the two TPL idioms.
/// </summary>
internal static class TplLoops
{
    /// <summary><c>Parallel.Invoke</c> on the two halves until a piece has at most <paramref name="grain"/> indices.</summary>
    public static void InvokeFor(int from, int to, int grain, Action<int, int> body)
    {
        if (to - from <= grain)
        {
            if (to > from)
            {
                body(from, to);
            }

            return;
        }

        int middle = from + ((to - from) / 2);
        Parallel.Invoke(() => InvokeFor(from, middle, grain, body), () => InvokeFor(middle, to, grain, body));
    }

    /// <summary><c>Task.Run</c> on each half and <c>Task.WhenAll</c> until a piece has at most <paramref name="grain"/> indices.</summary>
    public static Task TaskFor(int from, int to, int grain, Action<int, int> body)
    {
        if (to - from <= grain)
        {
            if (to > from)
            {
                body(from, to);
            }

            return Task.CompletedTask;
        }

        int middle = from + ((to - from) / 2);
        return Task.WhenAll(
            Task.Run(() => TaskFor(from, middle, grain, body)),
            Task.Run(() => TaskFor(middle, to, grain, body)));
    }
}
