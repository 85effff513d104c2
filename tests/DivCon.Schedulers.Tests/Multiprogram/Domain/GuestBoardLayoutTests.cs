using DivCon.Schedulers.Multiprogram.Domain;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>The guest board's layout and rules on plain data: decoding refuses anything but a whole board, never throws.</summary>
public sealed class GuestBoardLayoutTests
{
    private const long Lease = 100;

    [Fact]
    public void A_written_header_decodes_to_its_layout_and_offsets_do_not_overlap()
    {
        var layout = new GuestBoardLayout(64, 1024);
        byte[] header = new byte[GuestBoardLayout.HeaderLength];
        layout.WriteHeader(header, 42);

        Assert.True(GuestBoardLayout.TryDecode(header, layout.Length, out GuestBoardLayout decoded, out string? reason), reason);
        Assert.Equal(layout, decoded);
        Assert.Equal(32 + (64 * 16) + (64 * 1024), layout.Length);
        Assert.Equal(GuestBoardLayout.RowOf(63) + GuestBoardLayout.RowLength, layout.States);
        Assert.Equal(layout.Length, layout.ColumnOf(1023) + 64);
    }

    [Theory]
    [InlineData(0, 0x00, "magic")] // magic
    [InlineData(4, 0x02, "version")]
    [InlineData(6, 0x21, "header length")]
    public void A_header_with_a_wrong_field_is_refused(int offset, byte value, string reason)
    {
        var layout = new GuestBoardLayout(4, 8);
        byte[] header = new byte[GuestBoardLayout.HeaderLength];
        layout.WriteHeader(header, 0);
        header[offset] = value;

        Assert.False(GuestBoardLayout.TryDecode(header, layout.Length, out _, out string? why));
        Assert.Contains(reason, why, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0, 8, "rows")]
    [InlineData(257, 8, "rows")]
    [InlineData(4, 0, "CPUs")]
    [InlineData(4, 4097, "CPUs")]
    public void Counts_out_of_bounds_are_refused(int rows, int cpus, string reason)
    {
        byte[] header = new byte[GuestBoardLayout.HeaderLength];
        new GuestBoardLayout(rows, cpus).WriteHeader(header, 0);

        Assert.False(GuestBoardLayout.TryDecode(header, 1 << 20, out _, out string? why));
        Assert.Contains(reason, why, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(1)]
    [InlineData(-1000)]
    public void A_file_of_another_length_than_its_header_says_is_refused(int delta)
    {
        var layout = new GuestBoardLayout(4, 8);
        byte[] header = new byte[GuestBoardLayout.HeaderLength];
        layout.WriteHeader(header, 0);

        Assert.False(GuestBoardLayout.TryDecode(header, layout.Length + delta, out _, out string? why));
        Assert.Contains("bytes", why, StringComparison.Ordinal);
    }

    [Fact]
    public void A_short_header_is_refused()
    {
        byte[] header = new byte[GuestBoardLayout.HeaderLength];
        new GuestBoardLayout(4, 8).WriteHeader(header, 0);

        Assert.False(GuestBoardLayout.TryDecode(header.AsSpan(0, 31), 1000, out _, out string? why));
        Assert.Contains("shorter than a header", why, StringComparison.Ordinal);
        Assert.False(GuestBoardLayout.TryDecode([], 0, out _, out _));
    }

    [Fact]
    public void Random_bytes_never_throw_and_whatever_decodes_is_within_bounds()
    {
        var random = new Random(7);
        byte[] header = new byte[GuestBoardLayout.HeaderLength];
        for (int i = 0; i < 20_000; i++)
        {
            random.NextBytes(header);
            if (i % 2 == 0)
            {
                new GuestBoardLayout(1 + random.Next(300), 1 + random.Next(5000)).WriteHeader(header, 0); // valid magic, maybe bad counts
                header[random.Next(header.Length)] ^= (byte)random.Next(256);
            }

            long length = random.Next(3) == 0 ? (long)(random.NextDouble() * long.MaxValue) : random.Next(1 << 22);
            if (GuestBoardLayout.TryDecode(header.AsSpan(0, random.Next(header.Length + 1)), length, out GuestBoardLayout layout, out _))
            {
                Assert.InRange(layout.Rows, 1, GuestBoardLayout.MaxRows);
                Assert.InRange(layout.Cpus, 1, GuestBoardLayout.MaxCpus);
                Assert.Equal(length, layout.Length);
            }
        }
    }

    [Theory]
    [InlineData(0, 1000, 1000, false)] // no token: a free row
    [InlineData(5, 1000, 1000, true)]
    [InlineData(5, 901, 1000, true)]
    [InlineData(5, 900, 1000, false)] // silent for a whole lease
    [InlineData(5, 1099, 1000, true)]
    [InlineData(5, 1100, 1000, false)] // from the future by a lease
    public void A_row_is_live_with_a_token_and_a_heartbeat_within_the_lease(long token, long heartbeat, long now, bool live) =>
        Assert.Equal(live, GuestRules.IsLive(token, heartbeat, now, Lease));

    [Theory]
    [InlineData(new byte[] { 0, 2, 0 }, new[] { true, true, true }, -1, true)] // one idle holder
    [InlineData(new byte[] { 0, 0, 0 }, new[] { true, true, true }, -1, false)] // nobody holds it
    [InlineData(new byte[] { 1, 2, 0 }, new[] { true, true, true }, -1, false)] // a busy holder (a handover between grants)
    [InlineData(new byte[] { 0, 1, 0 }, new[] { true, true, true }, -1, false)] // busy
    [InlineData(new byte[] { 0, 7, 0 }, new[] { true, true, true }, -1, false)] // a byte this version does not know
    [InlineData(new byte[] { 7, 2, 0 }, new[] { true, true, true }, -1, false)] // unknown beside idle: stay away
    [InlineData(new byte[] { 0, 2, 0 }, new[] { true, false, true }, -1, false)] // the idle holder is dead
    [InlineData(new byte[] { 1, 2, 0 }, new[] { false, true, true }, -1, true)] // the busy one is dead
    [InlineData(new byte[] { 2, 0, 1 }, new[] { true, true, true }, 2, true)] // our own byte does not count
    [InlineData(new byte[] { 2, 0, 0 }, new[] { true, true, true }, 0, false)] // nor our own idle
    [InlineData(new byte[] { 0, 2, 0 }, new[] { true }, -1, false)] // rows beyond the liveness table count for nothing
    public void A_guest_may_run_only_where_a_live_holder_is_idle_and_nobody_says_otherwise(byte[] column, bool[] live, int self, bool expected) =>
        Assert.Equal(expected, GuestRules.OwnerIdle(column, live, self));

    [Fact]
    public void A_row_is_chosen_free_or_abandoned_from_the_start_wrapping()
    {
        long[] tokens = [1, 0, 3, 4];
        long[] beats = [1000, 0, 1000, 500];
        Assert.Equal(1, GuestRules.ChooseRow(tokens, beats, 1000, Lease, 0));
        Assert.Equal(3, GuestRules.ChooseRow(tokens, beats, 1000, Lease, 2)); // silent since 500: abandoned
        Assert.Equal(1, GuestRules.ChooseRow(tokens, beats, 1000, Lease, 5)); // 5 wraps to 1
        Assert.Equal(-1, GuestRules.ChooseRow([1, 2], [1000, 990], 1000, Lease, 0));
        Assert.Equal(-1, GuestRules.ChooseRow([], [], 1000, Lease, -3));
    }

    [Theory]
    [InlineData(false, false, 0)]
    [InlineData(false, true, 0)] // a withheld CPU's worker asleep says nothing: the CPU is not ours
    [InlineData(true, false, 1)]
    [InlineData(true, true, 2)]
    public void A_process_publishes_idle_only_on_a_granted_cpu_whose_server_sleeps(bool granted, bool asleep, byte state) =>
        Assert.Equal((GuestCpuState)state, GuestRules.StateOf(granted, asleep));
}
