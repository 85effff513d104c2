#if NET8_0_OR_GREATER
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>
/// Wakes the domain client's thread out of its wait on the coordinator's socket: an <c>eventfd</c> that
/// <see cref="Signal"/> makes readable, waited on with the socket in one <c>poll</c>. Without it the joined client
/// had to look at the published view every few milliseconds (about 200 wake-ups a second per process, each one
/// preempting a worker on a fully loaded machine); with it the thread wakes only for a message, a report that is due,
/// or a change the scheduler published.
/// </summary>
/// <remarks>
/// <para>No wake-up is lost: the eventfd is a counter that stays readable until it is read, <see cref="Signal"/>
/// writes after the publisher stored its view, and the waiting thread clears the counter (<see cref="Wait"/>) before
/// it reads the view again. So a signal sent while the thread is busy is seen by its next wait, which returns at once.</para>
/// <para>The descriptor is held by a <see cref="SafeHandle"/>: a <see cref="Signal"/> racing with
/// <see cref="Dispose"/> writes to the eventfd or does nothing, never to a descriptor number the process reused.</para>
/// <para>Where <c>eventfd</c> is missing (<see cref="IsAvailable"/> false), <see cref="Signal"/> does nothing and
/// the caller bounds its waits instead.</para>
/// </remarks>
[SupportedOSPlatform("linux")]
internal sealed class DomainWakeup : IDisposable
{
    private const int EfdCloexec = 0x80000;
    private const int EfdNonblock = 0x800;
    private const short PollIn = 0x1;
    private const short PollErr = 0x8;
    private const short PollHup = 0x10;
    private readonly EventFdHandle _handle;

    /// <summary>Creates the eventfd (or an unavailable wake-up, if the system refuses one).</summary>
    public DomainWakeup()
    {
        int fd;
        try
        {
            fd = eventfd(0, EfdCloexec | EfdNonblock);
        }
        catch (EntryPointNotFoundException)
        {
            fd = -1;
        }

        _handle = new EventFdHandle(fd);
    }

    /// <summary>Whether the eventfd exists (else waits must be bounded by the caller).</summary>
    public bool IsAvailable => !_handle.IsInvalid && !_handle.IsClosed;

    /// <summary>Makes the next (or current) <see cref="Wait"/> return. Never blocks; any thread.</summary>
    public void Signal()
    {
        if (_handle.IsInvalid)
        {
            return;
        }

        ulong one = 1;
        try
        {
            _ = write(_handle, ref one, sizeof(ulong)); // EAGAIN only at a counter near 2^64: already readable
        }
        catch (ObjectDisposedException)
        {
            // Disposed meanwhile: nobody waits any more.
        }
    }

    /// <summary>
    /// Waits until <paramref name="socket"/> is readable (or closed, or failed), the wake-up is signalled, or
    /// <paramref name="timeoutMilliseconds"/> pass; clears the signal.
    /// </summary>
    /// <param name="socket">The socket to watch.</param>
    /// <param name="timeoutMilliseconds">The longest wait (0: look and return).</param>
    /// <returns>Whether the socket is readable (a receive will not block).</returns>
    public bool Wait(Socket socket, int timeoutMilliseconds)
    {
        if (!IsAvailable)
        {
            return socket.Poll(timeoutMilliseconds * 1000, SelectMode.SelectRead);
        }

        bool added = false;
        try
        {
            _handle.DangerousAddRef(ref added);
            var fds = new PollFd[]
            {
                new() { Fd = (int)socket.Handle, Events = PollIn },
                new() { Fd = (int)_handle.DangerousGetHandle(), Events = PollIn },
            };
            int ready = poll(fds, (nuint)fds.Length, timeoutMilliseconds);
            if (ready < 0)
            {
                return false; // EINTR (a signal to the thread): the caller's loop looks again
            }

            if ((fds[1].Revents & PollIn) != 0)
            {
                ulong value = 0;
                _ = read(_handle, ref value, sizeof(ulong)); // clears the counter; EAGAIN if another read won
            }

            return (fds[0].Revents & (PollIn | PollErr | PollHup)) != 0;
        }
        catch (ObjectDisposedException)
        {
            return socket.Poll(timeoutMilliseconds * 1000, SelectMode.SelectRead); // disposed while waiting: plain wait
        }
        finally
        {
            if (added)
            {
                _handle.DangerousRelease();
            }
        }
    }

    /// <summary>Closes the eventfd (a concurrent <see cref="Signal"/> finishes first or does nothing).</summary>
    public void Dispose() => _handle.Dispose();

    [DllImport("libc", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int eventfd(uint initval, int flags);

    [DllImport("libc", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern nint write(EventFdHandle fd, ref ulong value, nint count);

    [DllImport("libc", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern nint read(EventFdHandle fd, ref ulong value, nint count);

    [DllImport("libc", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int poll([In, Out] PollFd[] fds, nuint count, int timeout);

    [DllImport("libc", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int close(int fd);

    /// <summary>The C <c>struct pollfd</c>.</summary>
    [StructLayout(LayoutKind.Sequential)]
    private struct PollFd
    {
        public int Fd;
        public short Events;
        public short Revents;
    }

    /// <summary>Owns the eventfd's descriptor (-1: none).</summary>
    private sealed class EventFdHandle : SafeHandle
    {
        public EventFdHandle(int fd)
            : base(-1, ownsHandle: true) => SetHandle(fd);

        public override bool IsInvalid => handle == -1;

        protected override bool ReleaseHandle() => close((int)handle) == 0;
    }
}
#endif
