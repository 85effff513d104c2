using System.Buffers.Binary;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>What a process says about one CPU on the guest board (one byte per process row and CPU).</summary>
internal enum GuestCpuState : byte
{
    /// <summary>The process does not hold the CPU (or says nothing about it).</summary>
    None = 0,

    /// <summary>The process holds the CPU by grant and its worker there is running or looking for work.</summary>
    Busy = 1,

    /// <summary>The process holds the CPU by grant and its worker there is asleep: nothing of it to run.</summary>
    Idle = 2,
}

/// <summary>
/// The guest board's file layout and the pure rules read from it (the Domain README, "Guests"). Little-endian:
/// <code>
/// header (32 bytes): magic "DVCG" u32, version u16 = 1, header length u16 = 32, rows u16 (1..256), 0 u16,
///                    cpus u32 (1..4096), creator token u64, 0 u64
/// row table        : rows x (token u64: pid &lt;&lt; 32 | nonce, 0 = free; heartbeat i64: Stopwatch timestamp)
/// states           : cpus x rows bytes, CPU-major: the byte of (cpu, row) is at states + cpu * rows + row
/// </code>
/// The file's length is exactly the sum; anything else is not a board. CPU-major states let a guest read every
/// process's word on one CPU with one small read.
/// </summary>
internal readonly record struct GuestBoardLayout(int Rows, int Cpus)
{
    /// <summary>The magic, "DVCG" as bytes.</summary>
    public const uint Magic = 0x47435644; // 'D' 'V' 'C' 'G' little-endian

    /// <summary>The layout's version.</summary>
    public const ushort Version = 1;

    /// <summary>The header's length.</summary>
    public const int HeaderLength = 32;

    /// <summary>The length of a row of the row table.</summary>
    public const int RowLength = 16;

    /// <summary>The most rows a board may have.</summary>
    public const int MaxRows = 256;

    /// <summary>The most CPUs a board may have.</summary>
    public const int MaxCpus = 4096;

    /// <summary>Rows of a board this version creates: processes that may lend and borrow at once.</summary>
    public const int DefaultRows = 64;

    /// <summary>CPUs of a board this version creates: CPU ids from 0 to 1023 (higher ids are never lent).</summary>
    public const int DefaultCpus = 1024;

    /// <summary>Where the row table starts.</summary>
    public static long RowTable => HeaderLength;

    /// <summary>Where the states start.</summary>
    public long States => HeaderLength + ((long)Rows * RowLength);

    /// <summary>The file's exact length.</summary>
    public long Length => States + ((long)Rows * Cpus);

    /// <summary>Where the states of one CPU start (<see cref="Rows"/> bytes, one per row).</summary>
    /// <param name="cpu">The CPU id (0 to <see cref="Cpus"/> - 1).</param>
    /// <returns>The offset.</returns>
    public long ColumnOf(int cpu) => States + ((long)cpu * Rows);

    /// <summary>Where a row's token is (its heartbeat follows at + 8).</summary>
    /// <param name="row">The row.</param>
    /// <returns>The offset.</returns>
    public static long RowOf(int row) => RowTable + ((long)row * RowLength);

    /// <summary>Writes a header of this layout.</summary>
    /// <param name="header">At least <see cref="HeaderLength"/> bytes.</param>
    /// <param name="creator">The creator's token.</param>
    public void WriteHeader(Span<byte> header, long creator)
    {
        header[..HeaderLength].Clear();
        BinaryPrimitives.WriteUInt32LittleEndian(header, Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(header[4..], Version);
        BinaryPrimitives.WriteUInt16LittleEndian(header[6..], HeaderLength);
        BinaryPrimitives.WriteUInt16LittleEndian(header[8..], (ushort)Rows);
        BinaryPrimitives.WriteUInt32LittleEndian(header[12..], (uint)Cpus);
        BinaryPrimitives.WriteInt64LittleEndian(header[16..], creator);
    }

    /// <summary>
    /// Decodes a header read from a file of <paramref name="fileLength"/> bytes. Never throws: anything that is not a
    /// whole board of this version (short, another magic or version, counts out of bounds, a length that does not
    /// match) is refused with a reason, and the caller treats the board as absent.
    /// </summary>
    /// <param name="header">The bytes read from the start of the file (possibly fewer than a header).</param>
    /// <param name="fileLength">The file's length.</param>
    /// <param name="layout">The layout, when valid.</param>
    /// <param name="reason">Why not, otherwise.</param>
    /// <returns>Whether the file is a board.</returns>
    public static bool TryDecode(ReadOnlySpan<byte> header, long fileLength, out GuestBoardLayout layout, out string? reason)
    {
        layout = default;
        reason = null;
        if (header.Length < HeaderLength)
        {
            reason = $"{header.Length} bytes, shorter than a header";
            return false;
        }

        uint magic = BinaryPrimitives.ReadUInt32LittleEndian(header);
        ushort version = BinaryPrimitives.ReadUInt16LittleEndian(header[4..]);
        ushort headerLength = BinaryPrimitives.ReadUInt16LittleEndian(header[6..]);
        int rows = BinaryPrimitives.ReadUInt16LittleEndian(header[8..]);
        uint cpus = BinaryPrimitives.ReadUInt32LittleEndian(header[12..]);
        if (magic != Magic)
        {
            reason = $"magic 0x{magic:X8}, not a guest board";
        }
        else if (version != Version)
        {
            reason = $"version {version}, this one reads {Version}";
        }
        else if (headerLength != HeaderLength)
        {
            reason = $"header length {headerLength}, want {HeaderLength}";
        }
        else if (rows is < 1 or > MaxRows)
        {
            reason = $"{rows} rows, want 1 to {MaxRows}";
        }
        else if (cpus is < 1 or > MaxCpus)
        {
            reason = $"{cpus} CPUs, want 1 to {MaxCpus}";
        }
        else
        {
            var candidate = new GuestBoardLayout(rows, (int)cpus);
            if (candidate.Length != fileLength)
            {
                reason = $"{fileLength} bytes, a board of {rows} rows and {cpus} CPUs has {candidate.Length}";
            }
            else
            {
                layout = candidate;
                return true;
            }
        }

        return false;
    }
}

/// <summary>The guest board's rules, pure functions of values read from it (tested on plain data).</summary>
internal static class GuestRules
{
    /// <summary>
    /// Whether a row speaks for a live process: it has a token and its heartbeat is within <paramref name="lease"/>
    /// of <paramref name="now"/> (either way: a heartbeat from the future is as suspect as an old one).
    /// </summary>
    /// <param name="token">The row's token.</param>
    /// <param name="heartbeat">Its heartbeat (Stopwatch ticks).</param>
    /// <param name="now">Now (Stopwatch ticks).</param>
    /// <param name="lease">How long a heartbeat speaks for its row (ticks).</param>
    /// <returns>Whether the row counts.</returns>
    public static bool IsLive(long token, long heartbeat, long now, long lease) =>
        token != 0 && heartbeat > now - lease && heartbeat < now + lease;

    /// <summary>
    /// Whether a process may run a guest task on a CPU: some other live row says it holds the CPU and is idle, and no
    /// other live row says anything else about it (busy, or a byte this version does not know: the safe reading of a
    /// damaged or newer board is to stay away). Dead rows count for nothing, so a killed process neither keeps
    /// guests away nor invites them for longer than its lease.
    /// </summary>
    /// <param name="column">Every row's byte on the CPU.</param>
    /// <param name="live">Which rows are live (at least as long as <paramref name="column"/>).</param>
    /// <param name="self">The asking process's own row (-1: none).</param>
    /// <returns>Whether a guest may take a task there.</returns>
    public static bool OwnerIdle(ReadOnlySpan<byte> column, ReadOnlySpan<bool> live, int self)
    {
        bool idle = false;
        for (int row = 0; row < column.Length && row < live.Length; row++)
        {
            if (row == self || !live[row] || column[row] == (byte)GuestCpuState.None)
            {
                continue;
            }

            if (column[row] != (byte)GuestCpuState.Idle)
            {
                return false;
            }

            idle = true;
        }

        return idle;
    }

    /// <summary>
    /// The row a process should claim: the first, from <paramref name="start"/> on (wrapping), that is free (no token)
    /// or abandoned (its heartbeat older than <paramref name="reclaimAfter"/>, or from the future by as much).
    /// </summary>
    /// <param name="tokens">Every row's token.</param>
    /// <param name="heartbeats">Every row's heartbeat.</param>
    /// <param name="now">Now (Stopwatch ticks).</param>
    /// <param name="reclaimAfter">How old a heartbeat must be for its row to be taken over (ticks).</param>
    /// <param name="start">Where to start looking (spreads concurrent claimers over the rows).</param>
    /// <returns>The row, or -1 when every row is held.</returns>
    public static int ChooseRow(ReadOnlySpan<long> tokens, ReadOnlySpan<long> heartbeats, long now, long reclaimAfter, int start)
    {
        int rows = Math.Min(tokens.Length, heartbeats.Length);
        for (int i = 0; i < rows; i++)
        {
            int row = (int)((uint)(start + i) % (uint)rows);
            if (!IsLive(tokens[row], heartbeats[row], now, reclaimAfter))
            {
                return row;
            }
        }

        return -1;
    }

    /// <summary>What a process publishes for one of its CPUs: nothing when it does not hold it, else idle or busy.</summary>
    /// <param name="granted">Whether the CPU's home is one of its programs (not withheld).</param>
    /// <param name="asleep">Whether its server is parked at home.</param>
    /// <returns>The state.</returns>
    public static GuestCpuState StateOf(bool granted, bool asleep) =>
        !granted ? GuestCpuState.None : asleep ? GuestCpuState.Idle : GuestCpuState.Busy;
}
