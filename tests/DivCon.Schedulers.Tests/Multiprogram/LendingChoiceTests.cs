using DivCon.Schedulers.Multiprogram.Policies;

namespace DivCon.Schedulers.Tests.Multiprogram;

/// <summary>
/// The lending rule (<see cref="LendingChoice"/>) on plain arrays: the one function the mechanism's director and the
/// simulator both call. Each row: the preference, the idle worker's home, per program its queued tasks, whether its
/// only queued task is a new run's root, when its run started, the lending order (or none) and the cursor; then the
/// program expected and the cursor after.
/// </summary>
public sealed class LendingChoiceTests
{
    private const LendingPreference RR = LendingPreference.RoundRobin;
    private const LendingPreference InProgress = LendingPreference.RunsInProgress;
    private const LendingPreference Oldest = LendingPreference.OldestRun;

    public static TheoryData<string, LendingPreference, int, int[], bool[], long[], int[]?, int, int, int> Rows => new()
    {
        // Nothing queued anywhere but at home (or nowhere): -1, cursor untouched.
        { "nothing queued", RR, 0, [0, 0, 0], [false, false, false], [0, 0, 0], null, 1, -1, 1 },
        { "nothing queued", InProgress, 0, [0, 0, 0], [false, false, false], [0, 0, 0], null, 1, -1, 1 },
        { "nothing queued", Oldest, 0, [0, 0, 0], [false, false, false], [0, 0, 0], null, 1, -1, 1 },
        { "only home queued", RR, 1, [0, 5, 0], [false, false, false], [0, 0, 0], null, 0, -1, 0 },
        { "only home queued", InProgress, 1, [0, 5, 0], [false, false, false], [0, 0, 0], [1, 0, 2], 0, -1, 0 },
        { "only home queued, the oldest", Oldest, 1, [0, 5, 0], [false, false, false], [9, 0, 9], null, 0, -1, 0 },
        { "one program, its home", Oldest, 0, [3], [false], [0], null, 0, -1, 0 },

        // Round-robin: from the cursor, wrapping, moving past the choice; home skipped even when the cursor is on it.
        { "cursor at 0", RR, 1, [1, 0, 5], [true, false, false], [0, 0, 10], null, 0, 0, 1 },
        { "cursor on home", RR, 1, [1, 1, 5], [true, false, false], [0, 0, 10], null, 1, 2, 3 },
        { "cursor wraps", RR, 0, [0, 2, 0, 0], [false, false, false, false], [0, 0, 0, 0], null, 2, 1, 2 },
        { "cursor past the end", RR, 3, [4, 0, 0, 0], [false, false, false, false], [0, 0, 0, 0], null, 4, 0, 1 },

        // An order is honoured (first with work, home skipped) and leaves the cursor alone.
        { "order", RR, 1, [1, 0, 4, 4], [true, false, false, false], [0, 0, 0, 0], [0, 3, 2, 1], 2, 0, 2 },
        { "order skips home and empty", RR, 3, [0, 4, 4, 4], [false, false, false, false], [0, 0, 0, 0], [3, 0, 2, 1], 0, 2, 0 },

        // Runs in progress before roots, round-robin or in order within each tier; a root when nothing else has work.
        { "in progress before root", InProgress, 1, [1, 0, 5], [true, false, false], [0, 0, 10], null, 0, 2, 3 },
        { "in progress, order within tier", InProgress, 1, [1, 0, 4, 4], [true, false, false, false], [0, 0, 0, 0], [0, 3, 2, 1], 0, 3, 0 },
        { "in progress, turn within tier", InProgress, 0, [0, 2, 2, 2], [false, false, false, false], [0, 0, 0, 0], null, 2, 2, 3 },
        { "root when alone", InProgress, 1, [1, 0, 0], [true, false, false], [0, 0, 10], null, 0, 0, 1 },
        { "roots only, turn", InProgress, 0, [0, 1, 1], [false, true, true], [0, 0, 0], null, 2, 2, 3 },

        // Oldest run: earliest start among runs in progress, then roots oldest first; ties to the earlier program;
        // neither order nor cursor matters, and the cursor is left alone.
        { "oldest in progress", Oldest, 1, [3, 0, 3, 1], [false, false, false, true], [50, 0, 10, 0], null, 0, 2, 0 },
        { "in progress before an older root", Oldest, 1, [1, 0, 5], [true, false, false], [0, 0, 10], null, 0, 2, 0 },
        { "oldest root", Oldest, 1, [1, 0, 0, 1], [true, false, false, true], [50, 0, 10, 0], null, 0, 3, 0 },
        { "tie: earlier program", Oldest, 1, [2, 0, 2, 0], [false, false, false, false], [7, 0, 7, 0], null, 3, 0, 3 },
        { "order ignored", Oldest, 0, [0, 2, 2, 2], [false, false, false, false], [0, 30, 20, 10], [1, 2, 3, 0], 0, 3, 0 },
        { "home never chosen, even oldest", Oldest, 2, [2, 2, 2], [false, false, false], [20, 30, 10], null, 0, 0, 0 },
        { "negative stamps", Oldest, 0, [0, 2, 2], [false, false, false], [0, -5, -7], null, 0, 2, 0 },
        { "no home (a guest)", Oldest, -1, [2, 2], [true, false], [0, 9], null, 0, 1, 0 },
    };

    [Theory]
    [MemberData(nameof(Rows))]
    public void Chooses_by_the_table(
        string row, LendingPreference preference, int home, int[] queued, bool[] rootOnly, long[] runStart, int[]? order, int cursor,
        int expected, int cursorAfter)
    {
        int chosen = LendingChoice.Choose(preference, home, queued, rootOnly, runStart, order, ref cursor);
        Assert.True((expected, cursorAfter) == (chosen, cursor), $"{row}: expected {expected} (cursor {cursorAfter}), got {chosen} (cursor {cursor})");
    }

    [Theory]
    [InlineData(RR)]
    [InlineData(InProgress)]
    [InlineData(Oldest)]
    public void The_home_is_never_chosen_and_a_choice_always_has_queued_tasks(LendingPreference preference)
    {
        // Every combination on three programs: queued 0 or 2, root-only or not, three start times, each home.
        long[] starts = [5, 1, 3];
        for (int mask = 0; mask < 64; mask++)
        {
            int[] queued = [.. Enumerable.Range(0, 3).Select(s => (mask >> s & 1) * 2)];
            bool[] rootOnly = [.. Enumerable.Range(0, 3).Select(s => (mask >> (s + 3) & 1) == 1)];
            for (int home = 0; home < 3; home++)
            {
                int cursor = mask % 3;
                int chosen = LendingChoice.Choose(preference, home, queued, rootOnly, starts, null, ref cursor);
                bool anyOther = Enumerable.Range(0, 3).Any(s => s != home && queued[s] > 0);
                Assert.Equal(anyOther, chosen >= 0);
                if (chosen >= 0)
                {
                    Assert.NotEqual(home, chosen);
                    Assert.True(queued[chosen] > 0);
                    // A root-only program is chosen only when no other candidate has a run in progress (both preferences).
                    if (preference != RR && rootOnly[chosen])
                    {
                        Assert.DoesNotContain(Enumerable.Range(0, 3), s => s != home && queued[s] > 0 && !rootOnly[s]);
                    }
                }

                Assert.InRange(cursor, 0, 3);
            }
        }
    }

    [Theory]
    [InlineData(RR)]
    [InlineData(InProgress)]
    public void Round_robin_spreads_idle_workers_over_every_program_with_work(LendingPreference preference)
    {
        // Home 0, programs 1 to 4 all with work in progress: four successive choices visit each once.
        int cursor = 0;
        var chosen = new List<int>();
        for (int i = 0; i < 4; i++)
        {
            chosen.Add(LendingChoice.Choose(preference, 0, [0, 1, 1, 1, 1], [false, false, false, false, false], [0, 0, 0, 0, 0], null, ref cursor));
        }

        Assert.Equal([1, 2, 3, 4], chosen);
    }
}
