#if NET8_0_OR_GREATER
using System.Buffers.Binary;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>The domain's directory was refused: it could let another user in or impersonate the coordinator.</summary>
internal sealed class DomainSecurityException : Exception
{
    /// <summary>Creates the exception.</summary>
    public DomainSecurityException()
    {
    }

    /// <summary>Creates the exception.</summary>
    /// <param name="message">What was refused and why.</param>
    public DomainSecurityException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    /// <param name="message">What was refused and why.</param>
    /// <param name="innerException">The cause.</param>
    public DomainSecurityException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

/// <summary>The credentials of the process at the other end of a Unix domain socket (Linux <c>SO_PEERCRED</c>).</summary>
/// <param name="ProcessId">Its process id.</param>
/// <param name="UserId">Its effective user id.</param>
/// <param name="GroupId">Its effective group id.</param>
internal readonly record struct PeerCredentials(int ProcessId, uint UserId, uint GroupId);

/// <summary>
/// The per-user directory of a domain (the lock file that elects the coordinator and the coordinator's socket),
/// with the checks that keep other users out: the directory is created 0700 (0710 when a group is allowed), and an
/// existing one is refused unless it is a real directory (not a link) owned by this user and writable by nobody
/// else. Linux only.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class DomainDirectory
{
    private const int AtFdCwd = -100;
    private const int AtSymlinkNoFollow = 0x100;
    private const uint StatxBasicStats = 0x7ff;
    private const int SolSocket = 1;
    private const int SoPeerCred = 17;
    private const int SIfMt = 0xF000;
    private const int SIfDir = 0x4000;

    private DomainDirectory(string path, uint? allowedGroup)
    {
        Path = path;
        AllowedGroup = allowedGroup;
        LockPath = System.IO.Path.Combine(path, "coordinator.lock");
        SocketPath = System.IO.Path.Combine(path, "coordinator.sock");
    }

    /// <summary>The directory.</summary>
    public string Path { get; }

    /// <summary>The group whose processes may also join, if any.</summary>
    public uint? AllowedGroup { get; }

    /// <summary>The lock file: whoever holds its exclusive lock is the coordinator.</summary>
    public string LockPath { get; }

    /// <summary>The coordinator's socket.</summary>
    public string SocketPath { get; }

    /// <summary>This process's effective user id.</summary>
    public static uint CurrentUserId => geteuid();

    /// <summary>The default directory: <c>$XDG_RUNTIME_DIR/divcon</c>, else <c>/tmp/divcon-&lt;uid&gt;</c>.</summary>
    /// <returns>The path.</returns>
    public static string DefaultPath()
    {
        string? runtime = Environment.GetEnvironmentVariable("XDG_RUNTIME_DIR");
        return !string.IsNullOrEmpty(runtime) && System.IO.Path.IsPathRooted(runtime)
            ? System.IO.Path.Combine(runtime, "divcon")
            : System.IO.Path.Combine(System.IO.Path.GetTempPath(), FormattableString.Invariant($"divcon-{CurrentUserId}"));
    }

    /// <summary>Creates (0700, or 0710 with a group) or checks the directory.</summary>
    /// <param name="path">The directory; null for <see cref="DefaultPath"/>.</param>
    /// <param name="allowedGroup">A group whose processes may also join; null: this user only.</param>
    /// <returns>The checked directory.</returns>
    /// <exception cref="DomainSecurityException">The directory exists and is not this user's private directory.</exception>
    /// <exception cref="PlatformNotSupportedException">Not Linux.</exception>
    public static DomainDirectory Open(string? path, uint? allowedGroup)
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException("The cross-process domain needs Linux.");
        }

        path = System.IO.Path.GetFullPath(path ?? DefaultPath());
        var mode = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
            | (allowedGroup is null ? UnixFileMode.None : UnixFileMode.GroupExecute);
        if (!Exists(path))
        {
            try
            {
                // Created with the mode (the umask can only remove bits); another process creating it first is fine:
                // the checks below then judge what is there.
                Directory.CreateDirectory(path, mode);
            }
            catch (IOException e) when (Exists(path))
            {
                _ = e;
            }
        }

        var stat = Stat(path) ?? throw new DomainSecurityException($"Domain directory {path} cannot be inspected.");
        if ((stat.Mode & SIfMt) != SIfDir)
        {
            throw new DomainSecurityException($"Domain directory {path} is not a directory (a link or a file): refused.");
        }

        uint self = CurrentUserId;
        if (stat.UserId != self)
        {
            throw new DomainSecurityException($"Domain directory {path} is owned by uid {stat.UserId}, not by this user (uid {self}): refused.");
        }

        if ((stat.Mode & 0b000_010_010) != 0)
        {
            throw new DomainSecurityException(FormattableString.Invariant($"Domain directory {path} has mode {Convert.ToString(stat.Mode & 0x1FF, 8)}: group or others may write to it; refused (want 700)."));
        }

        if (allowedGroup is null && (stat.Mode & 0b000_111_111) != 0)
        {
            throw new DomainSecurityException(FormattableString.Invariant($"Domain directory {path} has mode {Convert.ToString(stat.Mode & 0x1FF, 8)}: others may enter it; refused (want 700)."));
        }

        if (allowedGroup is { } g && stat.GroupId != g)
        {
            throw new DomainSecurityException($"Domain directory {path} belongs to group {stat.GroupId}, not to the allowed group {g}: refused.");
        }

        return new DomainDirectory(path, allowedGroup);
    }

    /// <summary>Whether a peer may join: the same user, or a member of the allowed group.</summary>
    /// <param name="peer">The peer's credentials.</param>
    /// <returns>Whether to accept it.</returns>
    public bool Admits(PeerCredentials peer) =>
        peer.UserId == CurrentUserId || (AllowedGroup is { } g && peer.GroupId == g);

    /// <summary>Takes the coordinator's lock without waiting.</summary>
    /// <returns>The open lock file (dispose it to release), or null when another process holds the lock.</returns>
    /// <remarks>
    /// .NET opens a file with <see cref="FileShare.None"/> under <c>flock(LOCK_EX | LOCK_NB)</c> on Unix, and the
    /// kernel releases the lock when the holder's last descriptor closes, including when it is killed.
    /// </remarks>
    public FileStream? TryLock()
    {
        try
        {
            var options = new FileStreamOptions
            {
                Mode = FileMode.OpenOrCreate,
                Access = FileAccess.ReadWrite,
                Share = FileShare.None,
                UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite,
            };
            return new FileStream(LockPath, options);
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Reads the credentials of the process at the other end of a connected Unix domain socket.</summary>
    /// <param name="socket">The socket.</param>
    /// <returns>The credentials, or null when the kernel did not give them.</returns>
    public static PeerCredentials? PeerOf(Socket socket)
    {
        ArgumentNullException.ThrowIfNull(socket);
        Span<byte> ucred = stackalloc byte[12];
        try
        {
            int length = socket.GetRawSocketOption(SolSocket, SoPeerCred, ucred);
            if (length < 12)
            {
                return null;
            }
        }
        catch (SocketException)
        {
            return null;
        }

        return new PeerCredentials(
            BinaryPrimitives.ReadInt32LittleEndian(ucred),
            BinaryPrimitives.ReadUInt32LittleEndian(ucred[4..]),
            BinaryPrimitives.ReadUInt32LittleEndian(ucred[8..]));
    }

    /// <summary>Owner, group and mode of a path, without following a final link (<c>statx</c>).</summary>
    /// <param name="path">The path.</param>
    /// <returns>Its owner, group and mode, or null when it cannot be read.</returns>
    internal static (uint UserId, uint GroupId, int Mode)? Stat(string path)
    {
        // struct statx: stx_mask u32 @0, stx_blksize u32 @4, stx_attributes u64 @8, stx_nlink u32 @16,
        // stx_uid u32 @20, stx_gid u32 @24, stx_mode u16 @28; 256 bytes in all. Its layout is the same on every
        // architecture, unlike struct stat.
        byte[] buffer = new byte[256];
        try
        {
            if (statx(AtFdCwd, NullTerminated(path), AtSymlinkNoFollow, StatxBasicStats, buffer) != 0)
            {
                return null;
            }
        }
        catch (EntryPointNotFoundException)
        {
            return null;
        }

        return (BinaryPrimitives.ReadUInt32LittleEndian(buffer.AsSpan(20)),
            BinaryPrimitives.ReadUInt32LittleEndian(buffer.AsSpan(24)),
            BinaryPrimitives.ReadUInt16LittleEndian(buffer.AsSpan(28)));
    }

    private static byte[] NullTerminated(string path)
    {
        byte[] bytes = new byte[Encoding.UTF8.GetByteCount(path) + 1];
        Encoding.UTF8.GetBytes(path, bytes);
        return bytes;
    }

    private static bool Exists(string path) => Directory.Exists(path) || File.Exists(path) || Stat(path) is not null;

    [DllImport("libc", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern uint geteuid();

    [DllImport("libc", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int statx(int dirfd, byte[] path, int flags, uint mask, [Out] byte[] buffer);
}
#endif
