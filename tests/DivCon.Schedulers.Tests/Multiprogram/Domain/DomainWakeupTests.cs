#if NET8_0_OR_GREATER
using System.Diagnostics;
using System.Net.Sockets;
using DivCon.Schedulers.Multiprogram.Domain;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>The joined client's wake-up: an eventfd waited on beside the coordinator's socket.</summary>
[Collection(DomainSocketsGroup.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class DomainWakeupTests
{
    // Loose on purpose: a behaviour test on a loaded machine (a wait that returns, or not, before a long timeout).
    private const int LongWaitMs = 20_000;

    [SkippableFact]
    public void A_signal_sent_before_the_wait_ends_it_at_once()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "eventfd is Linux only.");
        using var pair = new SocketPair();
        using var wakeup = new DomainWakeup();
        Assert.True(wakeup.IsAvailable);

        wakeup.Signal();
        wakeup.Signal(); // two signals are one wake-up: the counter is read whole
        var clock = Stopwatch.StartNew();
        Assert.False(wakeup.Wait(pair.Reader, LongWaitMs), "the socket is not readable");
        Assert.True(clock.ElapsedMilliseconds < LongWaitMs / 2, $"the signal did not end the wait ({clock.ElapsedMilliseconds} ms)");
    }

    [SkippableFact]
    public void A_signal_from_another_thread_wakes_a_waiting_thread()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "eventfd is Linux only.");
        using var pair = new SocketPair();
        using var wakeup = new DomainWakeup();
        using var waiting = new ManualResetEventSlim();
        var waiter = Task.Factory.StartNew(
            () =>
            {
                waiting.Set();
                var clock = Stopwatch.StartNew();
                bool readable = wakeup.Wait(pair.Reader, LongWaitMs);
                return (readable, clock.ElapsedMilliseconds);
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);
        waiting.Wait();
        Thread.Sleep(20); // most likely inside poll by now; if not, the signal is kept for it
        wakeup.Signal();
        Assert.True(waiter.Wait(TimeSpan.FromMilliseconds(LongWaitMs / 2)), "the waiting thread was not woken");
        Assert.False(waiter.Result.readable);
    }

    [SkippableFact]
    public void A_readable_socket_ends_the_wait_and_says_so()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "eventfd is Linux only.");
        using var pair = new SocketPair();
        using var wakeup = new DomainWakeup();
        pair.Writer.Send([1, 2, 3]);
        Assert.True(wakeup.Wait(pair.Reader, LongWaitMs));

        // A closed peer is readable too (the receive returns 0): the client learns of the close.
        var buffer = new byte[8];
        Assert.Equal(3, pair.Reader.Receive(buffer));
        pair.Writer.Shutdown(SocketShutdown.Send);
        Assert.True(wakeup.Wait(pair.Reader, LongWaitMs));
        Assert.Equal(0, pair.Reader.Receive(buffer));
    }

    [SkippableFact]
    public void After_disposal_a_signal_does_nothing_and_a_wait_is_a_plain_wait_on_the_socket()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "eventfd is Linux only.");
        using var pair = new SocketPair();
        var wakeup = new DomainWakeup();
        wakeup.Dispose();
        Assert.False(wakeup.IsAvailable);
        wakeup.Signal();
        Assert.False(wakeup.Wait(pair.Reader, 10));
        pair.Writer.Send([1]);
        Assert.True(wakeup.Wait(pair.Reader, LongWaitMs));
    }

    /// <summary>Two connected Unix stream sockets.</summary>
    private sealed class SocketPair : IDisposable
    {
        private readonly string _path = Path.Combine(Path.GetTempPath(), $"divcon-wakeup-{Guid.NewGuid():N}.sock");

        public SocketPair()
        {
            using var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
            listener.Bind(new UnixDomainSocketEndPoint(_path));
            listener.Listen(1);
            Writer = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
            Writer.Connect(new UnixDomainSocketEndPoint(_path));
            Reader = listener.Accept();
        }

        public Socket Reader { get; }

        public Socket Writer { get; }

        public void Dispose()
        {
            Reader.Dispose();
            Writer.Dispose();
            File.Delete(_path);
        }
    }
}
#endif
