using System.Buffers.Binary;
using System.Diagnostics;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>
/// A process's view of the domain's guest board: what it publishes about the CPUs it holds, and whether the holder
/// of a CPU withheld from it is idle (the Domain README, "Guests"). Every member is safe to call from any thread,
/// before, during and after disposal, and never throws: a board that cannot be read answers "not idle".
/// </summary>
internal interface IGuestBoard : IDisposable
{
    /// <summary>
    /// The watcher, every poll: renews this process's heartbeat when due and rereads which rows are live.
    /// </summary>
    /// <param name="now">Now (Stopwatch ticks).</param>
    /// <returns>False when the board is no longer usable (unreadable, or this process's row was taken over).</returns>
    bool Refresh(long now);

    /// <summary>Publishes this process's state on one CPU (ignored for CPUs the board has no room for).</summary>
    /// <param name="cpu">The CPU id.</param>
    /// <param name="state">The state.</param>
    void Publish(int cpu, GuestCpuState state);

    /// <summary>Reads the CPU's states afresh: whether another live process holds it and is idle there, and none is busy.</summary>
    /// <param name="cpu">The CPU id.</param>
    /// <returns>Whether a guest may take a task there.</returns>
    bool OwnerIdle(int cpu);
}

#if NET8_0_OR_GREATER
/// <summary>
/// The guest board as a file in the domain directory (<see cref="FileName"/>), read and written with positioned
/// reads and writes (<c>pread</c>/<c>pwrite</c>), never mapped: a mapping of a file that another process truncates
/// faults (SIGBUS) on the next access, which would kill this process, while a short read is only a short read.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
internal sealed class GuestBoard : IGuestBoard
{
    /// <summary>The board's file name in the domain directory.</summary>
    public const string FileName = "guests.board";

    /// <summary>How often a process renews its heartbeat.</summary>
    public static readonly TimeSpan HeartbeatPeriod = TimeSpan.FromMilliseconds(10);

    /// <summary>How long a heartbeat speaks for its row: a process silent for longer counts for nothing.</summary>
    public static readonly TimeSpan Lease = TimeSpan.FromMilliseconds(100);

    /// <summary>How long a row must have been silent before another process takes it over.</summary>
    public static readonly TimeSpan ReclaimAfter = TimeSpan.FromSeconds(1);

    private const int RegularFile = 0x8000;
    private const int FileTypeMask = 0xF000;
    private const int ClaimAttempts = 4;

    private readonly Microsoft.Win32.SafeHandles.SafeFileHandle _file;
    private readonly GuestBoardLayout _layout;
    private readonly long _token;
    private readonly int _row;
    private bool[] _live; // Replaced whole by Refresh (release), read by any thread (acquire).
    private long _lastHeartbeat;
    private int _disposed;

    private GuestBoard(Microsoft.Win32.SafeHandles.SafeFileHandle file, GuestBoardLayout layout, long token, int row)
    {
        _file = file;
        _layout = layout;
        _token = token;
        _row = row;
        _live = new bool[layout.Rows];
    }

    /// <summary>This process's row.</summary>
    public int Row => _row;

    /// <summary>The board's layout.</summary>
    public GuestBoardLayout Layout => _layout;

    /// <summary>
    /// Opens the board of a checked domain directory, creating it when absent, and claims a row. Never throws.
    /// </summary>
    /// <param name="directory">The domain directory (already checked by <see cref="DomainDirectory.Open"/>).</param>
    /// <param name="allowedGroup">The domain's group, if any (the file may then be group-readable and writable).</param>
    /// <param name="reason">Why there is no board, when null is returned.</param>
    /// <returns>The board, or null: the process then lends and borrows nothing across processes.</returns>
    public static GuestBoard? TryOpen(string directory, uint? allowedGroup, out string? reason)
    {
        string path = Path.Combine(directory, FileName);
        try
        {
            if (DomainDirectory.Stat(path) is null)
            {
                Create(path, allowedGroup);
            }

            if (CheckFile(path, allowedGroup) is { } refused)
            {
                reason = refused;
                return null;
            }

            var file = File.OpenHandle(path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite);
            try
            {
                Span<byte> header = stackalloc byte[GuestBoardLayout.HeaderLength];
                int read = RandomAccess.Read(file, header, 0);
                if (!GuestBoardLayout.TryDecode(header[..read], RandomAccess.GetLength(file), out GuestBoardLayout layout, out reason))
                {
                    reason = $"{path}: {reason}; treated as absent";
                    file.Dispose();
                    return null;
                }

                long token = ((long)Environment.ProcessId << 32) | (uint)Random.Shared.Next(1, int.MaxValue);
                int row = Claim(file, layout, token);
                if (row < 0)
                {
                    reason = $"{path}: every one of its {layout.Rows} rows is held by a live process";
                    file.Dispose();
                    return null;
                }

                reason = null;
                return new GuestBoard(file, layout, token, row);
            }
            catch
            {
                file.Dispose();
                throw;
            }
        }
#pragma warning disable CA1031 // Any failure leaves the process without guests, never fails the scheduler.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            reason = $"{path}: {ex.GetType().Name}: {ex.Message}";
            return null;
        }
    }

    /// <inheritdoc />
    public bool Refresh(long now)
    {
        if (Volatile.Read(ref _disposed) != 0)
        {
            return false;
        }

        try
        {
            int rows = _layout.Rows;
            byte[] table = new byte[rows * GuestBoardLayout.RowLength];
            if (RandomAccess.Read(_file, table, GuestBoardLayout.RowTable) != table.Length)
            {
                return false; // Truncated under us: the caller closes it and opens it again later.
            }

            if (BinaryPrimitives.ReadInt64LittleEndian(table.AsSpan(_row * GuestBoardLayout.RowLength)) != _token)
            {
                return false; // Our row was taken over (we were silent for longer than ReclaimAfter).
            }

            long lease = (long)(Lease.TotalSeconds * Stopwatch.Frequency);
            bool[] live = new bool[rows];
            for (int row = 0; row < rows; row++)
            {
                ReadOnlySpan<byte> entry = table.AsSpan(row * GuestBoardLayout.RowLength, GuestBoardLayout.RowLength);
                live[row] = row != _row && GuestRules.IsLive(
                    BinaryPrimitives.ReadInt64LittleEndian(entry), BinaryPrimitives.ReadInt64LittleEndian(entry[8..]), now, lease);
            }

            Volatile.Write(ref _live, live); // Release: the array is complete before OwnerIdle reads it.
            if (now - _lastHeartbeat >= (long)(HeartbeatPeriod.TotalSeconds * Stopwatch.Frequency))
            {
                WriteRow(_file, _row, _token, now);
                _lastHeartbeat = now;
            }

            return true;
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    /// <inheritdoc />
    public void Publish(int cpu, GuestCpuState state)
    {
        if ((uint)cpu >= (uint)_layout.Cpus || Volatile.Read(ref _disposed) != 0)
        {
            return;
        }

        try
        {
            ReadOnlySpan<byte> value = [(byte)state];
            RandomAccess.Write(_file, value, _layout.ColumnOf(cpu) + _row);
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or UnauthorizedAccessException)
        {
            // A board that cannot be written only means no guest comes (or one comes late): the watcher's next
            // Refresh finds it broken and reopens it.
        }
    }

    /// <inheritdoc />
    public bool OwnerIdle(int cpu)
    {
        if ((uint)cpu >= (uint)_layout.Cpus || Volatile.Read(ref _disposed) != 0)
        {
            return false;
        }

        try
        {
            Span<byte> column = stackalloc byte[_layout.Rows]; // At most 256 bytes.
            return RandomAccess.Read(_file, column, _layout.ColumnOf(cpu)) == column.Length
                && GuestRules.OwnerIdle(column, Volatile.Read(ref _live), _row);
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    /// <summary>Frees this process's row (its states then count for nothing) and closes the file.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        try
        {
            Span<byte> current = stackalloc byte[8];
            if (RandomAccess.Read(_file, current, GuestBoardLayout.RowOf(_row)) == 8
                && BinaryPrimitives.ReadInt64LittleEndian(current) == _token)
            {
                WriteRow(_file, _row, 0, 0);
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // The row's heartbeat stops anyway: it counts for nothing after the lease.
        }

        _file.Dispose();
    }

    /// <summary>Why an existing board file is refused (not a regular file, another owner, too open), or null.</summary>
    private static string? CheckFile(string path, uint? allowedGroup)
    {
        if (DomainDirectory.Stat(path) is not { } stat)
        {
            return $"{path} cannot be inspected";
        }

        if ((stat.Mode & FileTypeMask) != RegularFile)
        {
            return $"{path} is not a regular file (a link or a device): refused";
        }

        if (stat.UserId != DomainDirectory.CurrentUserId)
        {
            return $"{path} is owned by uid {stat.UserId}, not by this user: refused";
        }

        int others = allowedGroup is null ? 0b000_111_111 : 0b000_000_111;
        return (stat.Mode & others) != 0
            ? FormattableString.Invariant($"{path} has mode {Convert.ToString(stat.Mode & 0x1FF, 8)}: open to others; refused")
            : null;
    }

    /// <summary>
    /// Creates the board whole under a temporary name and links it into place, so that no process ever sees a
    /// partial header; another process that created it first wins and ours is dropped.
    /// </summary>
    private static void Create(string path, uint? allowedGroup)
    {
        var layout = new GuestBoardLayout(GuestBoardLayout.DefaultRows, GuestBoardLayout.DefaultCpus);
        string temporary = FormattableString.Invariant($"{path}.{Environment.ProcessId}.{Random.Shared.Next():x8}.tmp");
        var mode = UnixFileMode.UserRead | UnixFileMode.UserWrite
            | (allowedGroup is null ? UnixFileMode.None : UnixFileMode.GroupRead | UnixFileMode.GroupWrite);
        try
        {
            using (var stream = new FileStream(temporary, new FileStreamOptions
            {
                Mode = FileMode.CreateNew,
                Access = FileAccess.ReadWrite,
                Share = FileShare.None,
                UnixCreateMode = mode,
            }))
            {
                byte[] contents = new byte[layout.Length];
                layout.WriteHeader(contents, ((long)Environment.ProcessId) << 32);
                stream.Write(contents);
            }

            File.Move(temporary, path, overwrite: false);
        }
        catch (IOException) when (File.Exists(path))
        {
            // Another process created it first: use theirs (the caller checks it).
        }
        finally
        {
            File.Delete(temporary);
        }
    }

    /// <summary>
    /// Claims a row: clears its states, writes the token and a heartbeat, and keeps it if the token is still there
    /// a moment later (two processes claiming the same row at once: the later write wins, the other tries the next
    /// row). A row lost later (a double claim that both saw as won) is found by <see cref="Refresh"/>.
    /// </summary>
    private static int Claim(Microsoft.Win32.SafeHandles.SafeFileHandle file, GuestBoardLayout layout, long token)
    {
        int start = Environment.ProcessId;
        Span<byte> check = stackalloc byte[8];
        for (int attempt = 0; attempt < ClaimAttempts; attempt++)
        {
            byte[] table = new byte[layout.Rows * GuestBoardLayout.RowLength];
            if (RandomAccess.Read(file, table, GuestBoardLayout.RowTable) != table.Length)
            {
                return -1;
            }

            long[] tokens = new long[layout.Rows];
            long[] heartbeats = new long[layout.Rows];
            for (int row = 0; row < layout.Rows; row++)
            {
                tokens[row] = BinaryPrimitives.ReadInt64LittleEndian(table.AsSpan(row * GuestBoardLayout.RowLength));
                heartbeats[row] = BinaryPrimitives.ReadInt64LittleEndian(table.AsSpan((row * GuestBoardLayout.RowLength) + 8));
            }

            long now = Stopwatch.GetTimestamp();
            int chosen = GuestRules.ChooseRow(tokens, heartbeats, now, (long)(ReclaimAfter.TotalSeconds * Stopwatch.Frequency), start + attempt);
            if (chosen < 0)
            {
                return -1;
            }

            ReadOnlySpan<byte> none = [(byte)GuestCpuState.None];
            for (int cpu = 0; cpu < layout.Cpus; cpu++)
            {
                RandomAccess.Write(file, none, layout.ColumnOf(cpu) + chosen);
            }

            WriteRow(file, chosen, token, Stopwatch.GetTimestamp());
            Thread.Sleep(2);
            if (RandomAccess.Read(file, check, GuestBoardLayout.RowOf(chosen)) == 8 && BinaryPrimitives.ReadInt64LittleEndian(check) == token)
            {
                return chosen;
            }
        }

        return -1;
    }

    private static void WriteRow(Microsoft.Win32.SafeHandles.SafeFileHandle file, int row, long token, long heartbeat)
    {
        Span<byte> entry = stackalloc byte[GuestBoardLayout.RowLength];
        BinaryPrimitives.WriteInt64LittleEndian(entry, token);
        BinaryPrimitives.WriteInt64LittleEndian(entry[8..], heartbeat);
        RandomAccess.Write(file, entry, GuestBoardLayout.RowOf(row));
    }
}
#endif
