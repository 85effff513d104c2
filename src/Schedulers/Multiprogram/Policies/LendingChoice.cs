namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// The lending rule as a pure function of plain data: which program an idle worker of <c>home</c>, whose own program
/// has nothing queued, is lent to. Deterministic (no random choice); the simulation passes its queue sets' state, the
/// mechanism's director what it reads of the programs' queues lock-free.
/// </summary>
internal static class LendingChoice
{
    /// <summary>The program to lend to, or -1 when no other program has queued tasks.</summary>
    /// <param name="preference">The rule.</param>
    /// <param name="home">The idle worker's program (never chosen).</param>
    /// <param name="queued">Per program: tasks queued.</param>
    /// <param name="rootOnly">Per program: its only queued task is a new run's root (the run has not started).</param>
    /// <param name="runStart">Per program: when its current run started (its root was queued), on any one clock (smaller: earlier).</param>
    /// <param name="order">The last decision's lending order (program numbers, first preferred), or null: round-robin.</param>
    /// <param name="cursor">The round-robin cursor (non-negative): the scan starts there and moves past the program chosen.</param>
    public static int Choose(
        LendingPreference preference, int home, ReadOnlySpan<int> queued, ReadOnlySpan<bool> rootOnly, ReadOnlySpan<long> runStart,
        int[]? order, ref int cursor)
    {
        int count = queued.Length;
        if (preference == LendingPreference.OldestRun)
        {
            // Runs in progress before roots; among each, the earliest start; ties to the earlier program.
            int best = -1;
            for (int s = 0; s < count; s++)
            {
                if (s != home && queued[s] > 0 &&
                    (best < 0 || (rootOnly[s], runStart[s]).CompareTo((rootOnly[best], runStart[best])) < 0))
                {
                    best = s;
                }
            }

            return best;
        }

        // Pass 0 takes only programs whose run is in progress (RunsInProgress); pass 1 takes any.
        for (int pass = preference == LendingPreference.RunsInProgress ? 0 : 1; pass < 2; pass++)
        {
            if (order is not null)
            {
                foreach (int s in order)
                {
                    if (s != home && queued[s] > 0 && (pass == 1 || !rootOnly[s]))
                    {
                        return s;
                    }
                }

                continue;
            }

            for (int i = 0; i < count; i++)
            {
                int s = (cursor + i) % count;
                if (s != home && queued[s] > 0 && (pass == 1 || !rootOnly[s]))
                {
                    cursor = s + 1;
                    return s;
                }
            }
        }

        return -1;
    }
}
