#if NET8_0_OR_GREATER
using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Domain;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>
/// The guest board file: two processes' views (two boards in one process, each with its own row) see each other's
/// states, a freed or silent row counts for nothing, and a damaged, truncated, foreign or loose file is refused or
/// read as "not idle" without an exception.
/// </summary>
[Collection(DomainSocketsGroup.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class GuestBoardTests
{
    private static long LeaseTicks => (long)(GuestBoard.Lease.TotalSeconds * Stopwatch.Frequency);

    [SkippableFact]
    public void Two_members_see_each_others_idle_and_busy_states()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        string directory = DomainDirectory.Open(kit.DomainPath, null).Path;
        using GuestBoard a = Open(directory);
        using GuestBoard b = Open(directory);
        Assert.NotEqual(a.Row, b.Row);
        var stat = DomainDirectory.Stat(Path.Combine(directory, GuestBoard.FileName));
        Assert.Equal(0b110_000_000, stat!.Value.Mode & 0x1FF); // owner-only

        long now = Stopwatch.GetTimestamp();
        Assert.True(a.Refresh(now));
        Assert.True(b.Refresh(now));
        Assert.False(b.OwnerIdle(3)); // nobody holds it

        a.Publish(3, GuestCpuState.Idle);
        Assert.True(b.OwnerIdle(3));
        Assert.False(a.OwnerIdle(3)); // its own idle CPU is no loan for itself
        Assert.False(b.OwnerIdle(2));

        a.Publish(3, GuestCpuState.Busy);
        Assert.False(b.OwnerIdle(3));

        a.Publish(3, GuestCpuState.Idle);
        b.Publish(3, GuestCpuState.Busy); // b took the CPU over before a said None: a third process stays away
        using GuestBoard c = Open(directory);
        Assert.True(c.Refresh(Stopwatch.GetTimestamp()));
        Assert.False(c.OwnerIdle(3));
        b.Publish(3, GuestCpuState.None);
        Assert.True(c.OwnerIdle(3));

        Assert.False(b.OwnerIdle(-1));
        Assert.False(b.OwnerIdle(GuestBoardLayout.DefaultCpus)); // no room on the board: never lent
        b.Publish(GuestBoardLayout.DefaultCpus + 5, GuestCpuState.Idle); // ignored, no exception
    }

    [SkippableFact]
    public void A_freed_or_silent_row_neither_invites_nor_keeps_guests_away()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        string directory = DomainDirectory.Open(kit.DomainPath, null).Path;
        using GuestBoard b = Open(directory);
        GuestBoard a = Open(directory);
        GuestBoard busy = Open(directory);
        long now = Stopwatch.GetTimestamp();
        a.Refresh(now);
        busy.Refresh(now);
        a.Publish(1, GuestCpuState.Idle);
        busy.Publish(2, GuestCpuState.Busy);
        a.Publish(2, GuestCpuState.Idle);
        Assert.True(b.Refresh(now));
        Assert.True(b.OwnerIdle(1));
        Assert.False(b.OwnerIdle(2));

        // A process silent for longer than the lease (killed, frozen) counts for nothing.
        Assert.True(b.Refresh(now + (2 * LeaseTicks)));
        Assert.False(b.OwnerIdle(1));

        // Leaving frees the row at once: the busy member's word on CPU 2 is gone.
        busy.Dispose();
        Assert.True(b.Refresh(Stopwatch.GetTimestamp()));
        Assert.True(b.OwnerIdle(2));
        a.Dispose();
        Assert.True(b.Refresh(Stopwatch.GetTimestamp()));
        Assert.False(b.OwnerIdle(1));

        // Disposed: every call answers without an exception.
        a.Publish(1, GuestCpuState.Idle);
        Assert.False(a.OwnerIdle(1));
        Assert.False(a.Refresh(Stopwatch.GetTimestamp()));
    }

    [SkippableFact]
    public void An_abandoned_row_is_claimed_again_with_its_old_states_cleared()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        string directory = DomainDirectory.Open(kit.DomainPath, null).Path;
        string path = Path.Combine(directory, GuestBoard.FileName);
        using GuestBoard first = Open(directory);
        first.Publish(4, GuestCpuState.Idle);
        int row = first.Row;

        // Every other row held by live members, the first row's heartbeat a long time ago: the next member takes it.
        using (var file = File.OpenHandle(path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite))
        {
            var layout = first.Layout;
            long now = Stopwatch.GetTimestamp();
            byte[] entry = new byte[16];
            for (int r = 0; r < layout.Rows; r++)
            {
                BitConverter.TryWriteBytes(entry.AsSpan(0, 8), r == row ? 1234L << 32 : (99L << 32) + r);
                BitConverter.TryWriteBytes(entry.AsSpan(8, 8), r == row ? now - (10 * Stopwatch.Frequency) : now + (Stopwatch.Frequency / 2));
                RandomAccess.Write(file, entry, GuestBoardLayout.RowOf(r));
            }
        }

        using GuestBoard second = Open(directory);
        Assert.Equal(row, second.Row);
        Assert.False(first.Refresh(Stopwatch.GetTimestamp())); // it lost its row and says so

        Assert.Null(GuestBoard.TryOpen(directory, null, out string? full)); // every row held by a live member
        Assert.Contains("every one of its", full, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void A_truncated_board_reads_as_not_idle_and_never_throws()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        string directory = DomainDirectory.Open(kit.DomainPath, null).Path;
        using GuestBoard a = Open(directory);
        using GuestBoard b = Open(directory);
        a.Publish(900, GuestCpuState.Idle);
        Assert.True(b.Refresh(Stopwatch.GetTimestamp()));
        Assert.True(b.OwnerIdle(900));

        File.WriteAllBytes(Path.Combine(directory, GuestBoard.FileName), new byte[10]); // truncated under them

        Assert.False(b.OwnerIdle(900));
        Assert.False(b.Refresh(Stopwatch.GetTimestamp()));
        a.Publish(900, GuestCpuState.Busy); // a write past the end extends the file; nothing throws
        Assert.Null(GuestBoard.TryOpen(directory, null, out string? reason)); // not a board any more
        Assert.Contains("treated as absent", reason, StringComparison.Ordinal);
    }

    [SkippableTheory]
    [InlineData("garbage")]
    [InlineData("other-version")]
    [InlineData("empty")]
    public void A_damaged_board_is_treated_as_absent(string kind)
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        string directory = DomainDirectory.Open(kit.DomainPath, null).Path;
        string path = Path.Combine(directory, GuestBoard.FileName);
        var layout = new GuestBoardLayout(GuestBoardLayout.DefaultRows, GuestBoardLayout.DefaultCpus);
        byte[] contents = kind == "empty" ? [] : new byte[layout.Length];
        if (kind == "garbage")
        {
            new Random(3).NextBytes(contents);
        }
        else if (kind == "other-version")
        {
            layout.WriteHeader(contents, 0);
            contents[4] = 9;
        }

        File.WriteAllBytes(path, contents);
        File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite);

        Assert.Null(GuestBoard.TryOpen(directory, null, out string? reason));
        Assert.Contains("treated as absent", reason, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void A_board_open_to_others_or_a_link_is_refused()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        string directory = DomainDirectory.Open(kit.DomainPath, null).Path;
        string path = Path.Combine(directory, GuestBoard.FileName);
        using (Open(directory))
        {
        }

        File.SetUnixFileMode(path, (UnixFileMode)0b110_110_000);
        Assert.Null(GuestBoard.TryOpen(directory, null, out string? loose));
        Assert.Contains("open to others", loose, StringComparison.Ordinal);

        File.Delete(path);
        string target = Path.Combine(kit.Root, "elsewhere.board");
        File.WriteAllBytes(target, []);
        File.CreateSymbolicLink(path, target);
        Assert.Null(GuestBoard.TryOpen(directory, null, out string? link));
        Assert.Contains("not a regular file", link, StringComparison.Ordinal);
    }

    private static GuestBoard Open(string directory)
    {
        GuestBoard? board = GuestBoard.TryOpen(directory, null, out string? reason);
        Assert.True(board is not null, reason);
        return board;
    }
}
#endif
