#if NET8_0_OR_GREATER
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net.Sockets;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Model;
using static DivCon.Schedulers.Tests.Multiprogram.Domain.DomainTestKit;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

[Collection(DomainSocketsGroup.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class DomainClientTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);

    private static void SkipUnlessLinux() => Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");

    [SkippableFact]
    public void Two_clients_get_disjoint_grants_covering_the_machine()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        int[] cpus = [0, 1, 2, 3];
        var a = kit.Client(cpus);
        var b = kit.Client(cpus);
        Assert.True(
            WaitUntil([a, b], () => Held(a).Length == 2 && Held(b).Length == 2, Patience),
            $"grants: a=[{string.Join(",", Held(a))}] b=[{string.Join(",", Held(b))}]{Environment.NewLine}{kit.LogText()}");
        AssertDisjoint([(a, cpus), (b, cpus)]);
        Assert.True(a.IsCoordinator ^ b.IsCoordinator, "exactly one process coordinates");
        Assert.Equal(2, (a.HostedCoordinator ?? b.HostedCoordinator)!.JoinedCount);
    }

    [SkippableFact]
    public void A_process_under_a_cpu_quota_offers_at_most_its_ceiling_and_the_rest_goes_to_others()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        using var cgroup = new SysfsFixture();
        cgroup.Write("cpu.max", "50000 100000"); // half a CPU: ceil = 1
        int[] cpus = [0, 1, 2, 3];
        var limited = kit.Own(new DomainClient(kit.Options() with { CgroupRoot = cgroup.Root }));
        Publish(limited, cpus, 1);
        var free = kit.Client(cpus);

        Assert.True(
            WaitUntil([limited, free], () => Held(limited).Length == 1 && Held(free).Length == 3, Patience),
            $"grants: limited=[{string.Join(",", Held(limited))}] free=[{string.Join(",", Held(free))}]{Environment.NewLine}{kit.LogText()}");
        AssertDisjoint([(limited, cpus), (free, cpus)]);
        Assert.Contains("at most 1 CPUs offered", kit.LogText(), StringComparison.Ordinal);
        Assert.Contains(" with CPUs 0-3", kit.LogText(), StringComparison.Ordinal); // the free one offers all four

        // Grants from the socket carry their receipt time (the start of a cross-process move).
        long receivedAt = limited.LatestGrant!.ReceivedAt;
        Assert.InRange(receivedAt, 1, Stopwatch.GetTimestamp());
    }

    [SkippableFact]
    public void Four_clients_with_their_own_cpu_sets_get_disjoint_grants_inside_their_sets()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        int[] all = [0, 1, 2, 3, 4, 5, 6, 7];
        (DomainClient Client, int[] Cpus)[] members =
        [
            (kit.Client(all, programs: 2), all),
            (kit.Client([0, 1, 2, 3]), [0, 1, 2, 3]),
            (kit.Client([4, 5, 6, 7]), [4, 5, 6, 7]),
            (kit.Client([2, 3, 4, 5]), [2, 3, 4, 5]),
        ];
        var clients = members.Select(m => m.Client).ToArray();
        Assert.True(
            WaitUntil(clients, () => clients.Sum(c => Held(c).Length) == 8 && clients.All(c => Held(c).Length > 0), Patience),
            kit.LogText());
        AssertDisjoint([.. members.Select(m => ((ICpuArbiter)m.Client, m.Cpus))]);

        // Five programs of equal speedup on 8 CPUs: the two-program process gets two programs' shares.
        var grant = members[0].Client.LatestGrant!;
        Assert.Equal(2, grant.CpusByProgram.Count);
        Assert.Equal("p1", grant.CpusByProgram.Keys.Single(k => k.Value == 1).Name);
    }

    [SkippableFact]
    public void A_peer_whose_connection_dies_loses_its_cpus_at_once()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        var (a, peer) = ClientAndRawPeerHoldingHalf(kit);
        peer.Close(); // what the kernel does for a killed process
        Assert.True(WaitUntil([a], () => Held(a).Length == 4, Patience), $"not reassigned before the lease ran out{Environment.NewLine}{kit.LogText()}");
    }

    [SkippableFact]
    public void A_peer_found_closed_by_a_send_loses_its_cpus_at_once_not_at_its_lease()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        var (a, peer) = ClientAndRawPeerHoldingHalf(kit);

        // The coordinator learns of the close from a send, not a receive: a killed process's socket can close between
        // the coordinator's last read and its next grant. The peer stops receiving (the coordinator's next send fails
        // with EPIPE) and reports its program idle, which makes the coordinator decide and send at once. It never
        // acknowledged its 2 CPUs: were the failed send taken for silence, they would stay blocked for the 30 s lease.
        peer.Shutdown(SocketShutdown.Receive);
        peer.Send(DomainProtocol.Encode(new ReportMessage(0, [new ProgramState(new ProgramId(1), 4, 0, 0)])));
        Assert.True(WaitUntil([a], () => Held(a).Length == 4, Patience), $"not reassigned before the lease ran out{Environment.NewLine}{kit.LogText()}");
        Assert.Contains("connection failed on send", kit.LogText(), StringComparison.Ordinal);
    }

    /// <summary>
    /// A client on CPUs 0-3 (coordinating) and a raw peer joined with a busy program, once the peer's half has been handed
    /// over to it (granted, not acknowledged). A long interval (10 s, lease 30 s): a reassignment within Patience (20 s,
    /// shorter than the lease) can only come from the peer's death being detected. The bound is deliberately loose:
    /// these are behaviour tests, not timing ones (the latency is measured by the harness's domain-faults command).
    /// </summary>
    private static (DomainClient Client, Socket Peer) ClientAndRawPeerHoldingHalf(DomainTestKit kit)
    {
        int[] cpus = [0, 1, 2, 3];
        var a = kit.Client(cpus, interval: TimeSpan.FromSeconds(10));
        Assert.True(WaitUntil([a], () => a.IsJoined && Held(a).Length == 4, Patience), kit.LogText());

        var peer = kit.Connect();
        peer.Send(DomainProtocol.Encode(new HelloMessage(Environment.ProcessId, Stopwatch.Frequency, cpus)));
        Assert.IsType<WelcomeMessage>(ReadFrame(peer));
        peer.Send(DomainProtocol.Encode(new ReportMessage(0, [new ProgramState(new ProgramId(1), 4, 1000, 0)])));
        Assert.IsType<GrantMessage>(ReadFrame(peer));

        // The peer's share is withheld from a until a acknowledges giving it up: wait until a holds exactly 2.
        Assert.True(WaitUntil([a], () => Held(a).Length == 2, Patience), kit.LogText());
        return (a, peer);
    }

    [SkippableFact]
    public void A_handover_and_a_program_going_idle_are_decided_at_once_not_at_the_interval()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        int[] cpus = [0, 1, 2, 3];

        // A 10 s interval and a raw peer that reads with a 5 s timeout: every grant the peer receives below comes from
        // a decision made at once, on an acknowledgement or on a change of the busy programs, not from the interval.
        var a = kit.Client(cpus, interval: TimeSpan.FromSeconds(10));
        Assert.True(WaitUntil([a], () => a.IsJoined && Held(a).Length == 4, Patience), kit.LogText());

        var peer = kit.Connect();
        peer.Send(DomainProtocol.Encode(new HelloMessage(Environment.ProcessId, Stopwatch.Frequency, cpus)));
        Assert.IsType<WelcomeMessage>(ReadFrame(peer));
        peer.Send(DomainProtocol.Encode(new ReportMessage(0, [new ProgramState(new ProgramId(1), 4, 1000, 0)])));

        // First decision (on the join): the peer's share is still in a's grant, so withheld from it.
        var first = Assert.IsType<GrantMessage>(ReadFrame(peer));
        Assert.Empty(first.Programs.SelectMany(p => p.Cpus));

        // a acknowledges its smaller grant at once, which frees the share: a second decision at once gives it over.
        var handedOver = Assert.IsType<GrantMessage>(ReadFrame(peer));
        Assert.Equal(2, handedOver.Programs.SelectMany(p => p.Cpus).Count());

        // a's program runs out of work: a reports at once and the coordinator decides at once.
        var idle = new ProgramState(new ProgramId(1, "p1"), 4, 0, 2);
        a.Publish(new AllocationSnapshot(cpus.Length, [idle]), cpus, new Dictionary<ProgramId, string> { [idle.Id] = "p1" });
        Assert.IsType<GrantMessage>(ReadFrame(peer));
    }

    [SkippableFact]
    public void A_cpu_withheld_by_a_silent_holder_is_decided_again_when_that_holder_acknowledges_not_on_every_acknowledgement()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();

        // a (a real client, hosting the coordinator, acknowledging every grant at once) may use CPUs 0-1; the raw peers
        // b and c may use 2-3 only, so whatever c is given comes from b. The interval is a minute: every grant below
        // comes from a decision made at once.
        var a = kit.Client([0, 1], interval: TimeSpan.FromMinutes(1));
        Assert.True(WaitUntil([a], () => a.IsJoined && Held(a).Length == 2, Patience), kit.LogText());
        var program = new ProgramState(new ProgramId(1), 4, 1000, 0);

        var b = kit.Connect();
        b.Send(DomainProtocol.Encode(new HelloMessage(Environment.ProcessId, Stopwatch.Frequency, [2, 3])));
        Assert.IsType<WelcomeMessage>(ReadFrame(b));
        b.Send(DomainProtocol.Encode(new ReportMessage(0, [program])));
        var held = Assert.IsType<GrantMessage>(ReadFrame(b));
        Assert.Equal([2, 3], held.Programs.SelectMany(p => p.Cpus));
        b.Send(DomainProtocol.Encode(new ReportMessage(held.Epoch, [program])));

        // c joins: the decision splits 2-3 between b and c, but c's CPU is withheld until b acknowledges giving it up.
        var c = kit.Connect();
        c.Send(DomainProtocol.Encode(new HelloMessage(Environment.ProcessId, Stopwatch.Frequency, [2, 3])));
        Assert.IsType<WelcomeMessage>(ReadFrame(c));
        c.Send(DomainProtocol.Encode(new ReportMessage(0, [program])));
        var withheld = Assert.IsType<GrantMessage>(ReadFrame(c));
        Assert.Empty(withheld.Programs.SelectMany(p => p.Cpus));
        var smaller = Assert.IsType<GrantMessage>(ReadFrame(b));
        int moving = Assert.Single(new[] { 2, 3 }.Except(smaller.Programs.SelectMany(p => p.Cpus)));

        // b stays silent (killed, its socket not closed yet; or hung). a acknowledges the same decision's grant at once,
        // which frees nothing withheld: no decision may follow (before, each acknowledgement while a CPU was withheld
        // made one, whose grants a acknowledged again: a decision every few milliseconds until b's lease ran out).
        Assert.False(c.Poll((int)TimeSpan.FromSeconds(2).TotalMicroseconds, SelectMode.SelectRead), "a decision followed an acknowledgement that freed nothing withheld");

        // b acknowledges: the CPU is free, and the handover is completed at once: c gets the decision's CPU under the
        // decision's lease, with no new decision (no policy run, no rate limit, nothing sent to anyone else).
        var coordinator = a.HostedCoordinator!;
        long decisions = coordinator.Decisions, handovers = coordinator.Handovers;
        b.Send(DomainProtocol.Encode(new ReportMessage(smaller.Epoch, [program])));
        var handedOver = Assert.IsType<GrantMessage>(ReadFrame(c));
        Assert.Equal([moving], handedOver.Programs.SelectMany(p => p.Cpus));
        Assert.Equal(withheld.LeaseExpiresAt, handedOver.LeaseExpiresAt);
        Assert.True(handedOver.Epoch > withheld.Epoch, "a completion is a newer grant");
        Assert.Equal(decisions, coordinator.Decisions);
        Assert.Equal(handovers + 1, coordinator.Handovers);
        Assert.False(b.Poll((int)TimeSpan.FromMilliseconds(300).TotalMicroseconds, SelectMode.SelectRead), "the completion was sent to the giver too");

        // c acknowledges: nothing is withheld any more, so nothing follows.
        c.Send(DomainProtocol.Encode(new ReportMessage(handedOver.Epoch, [program])));
        Assert.False(c.Poll((int)TimeSpan.FromMilliseconds(300).TotalMicroseconds, SelectMode.SelectRead), "an acknowledgement freeing nothing made a grant");
        Assert.Equal(handovers + 1, coordinator.Handovers);
    }

    [SkippableFact]
    public void A_killed_child_process_loses_its_cpus_before_its_lease_runs_out()
    {
        SkipUnlessLinux();
        string? python = Python;
        Skip.If(python is null, "/usr/bin/python3 is not installed: no child process to kill.");
        using var kit = new DomainTestKit();
        int[] cpus = [0, 1, 2, 3];
        // As above: a 10 s interval and a 30 s lease, so reassignment within Patience (20 s) comes from the death.
        var interval = TimeSpan.FromSeconds(10);
        var a = kit.Client(cpus, interval: interval);
        Assert.True(WaitUntil([a], () => a.IsJoined && Held(a).Length == 4, Patience), kit.LogText());

        var lines = new BlockingCollection<string>();
        var child = kit.StartPythonPeer(python!, cpus, lines);
        Assert.True(WaitUntil([a], () => Held(a).Length == 2, Patience), kit.LogText());
        Assert.True(lines.TryTake(out string? line, Patience), "the child printed nothing");
        Assert.StartsWith("granted", line, StringComparison.Ordinal);

        child.Kill(); // SIGKILL: the kernel closes its socket
        Assert.True(WaitUntil([a], () => Held(a).Length == 4, Patience), $"not reassigned before the lease ran out{Environment.NewLine}{kit.LogText()}");
    }

    [SkippableFact]
    public void When_the_coordinator_goes_the_others_fall_back_then_elect_one_and_rejoin()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        int[] cpus = [0, 1, 2, 3, 4, 5];
        var first = kit.Client(cpus);
        Assert.True(WaitUntil([first], () => first.IsCoordinator && Held(first).Length == 6, Patience), kit.LogText());
        var b = kit.Client(cpus);
        var c = kit.Client(cpus);
        DomainClient[] rest = [b, c];
        Assert.True(WaitUntil([first, b, c], () => Held(first).Length == 2 && Held(b).Length == 2 && Held(c).Length == 2, Patience), kit.LogText());

        var fellBack = new CountdownEvent(2);
        void OnB()
        {
            if (b.LatestGrant is null && !fellBack.IsSet)
            {
                fellBack.Signal();
                b.GrantChanged -= OnB;
            }
        }

        void OnC()
        {
            if (c.LatestGrant is null && !fellBack.IsSet)
            {
                fellBack.Signal();
                c.GrantChanged -= OnC;
            }
        }

        b.GrantChanged += OnB;
        c.GrantChanged += OnC;
        first.Dispose(); // leaves and stops the coordinator: the lock is released, connections close
        Assert.True(fellBack.Wait(Patience), $"the others did not fall back{Environment.NewLine}{kit.LogText()}");

        Assert.True(
            WaitUntil(rest, () => rest.Count(r => r.IsCoordinator) == 1 && Held(b).Length == 3 && Held(c).Length == 3, Patience),
            $"no re-election and rejoin{Environment.NewLine}{kit.LogText()}");
        AssertDisjoint([(b, cpus), (c, cpus)]);
    }

    [SkippableFact]
    public void A_peer_of_another_version_is_rejected_with_the_reason()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        var a = kit.Client([0, 1]);
        Assert.True(WaitUntil([a], () => a.IsJoined, Patience), kit.LogText());

        var peer = kit.Connect();
        peer.Send(DomainProtocol.Encode(new HelloMessage(1, Stopwatch.Frequency, [0]), version: DomainProtocol.Version + 1));
        var reject = Assert.IsType<RejectMessage>(ReadFrame(peer));
        Assert.Equal(DomainRejectCode.VersionMismatch, reject.Code);
        Assert.Contains("version 2", reject.Reason, StringComparison.Ordinal);
        Assert.Equal(0, peer.Receive(new byte[1])); // and the connection is closed
        Assert.Equal(1, a.HostedCoordinator!.JoinedCount);
    }

    [SkippableFact]
    public void Hostile_bytes_on_the_socket_neither_crash_the_coordinator_nor_disturb_its_members()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        int[] cpus = [0, 1, 2, 3];
        var a = kit.Client(cpus);
        Assert.True(WaitUntil([a], () => a.IsJoined && Held(a).Length == 4, Patience), kit.LogText());

        var random = new Random(5);
        for (int i = 0; i < 50; i++)
        {
            var peer = kit.Connect();
            byte[] garbage = new byte[random.Next(1, 2048)];
            random.NextBytes(garbage);
            if (i % 2 == 0)
            {
                // A valid header first, so that the payload decoders see the garbage.
                byte[] frame = DomainProtocol.Encode(new HelloMessage(1, Stopwatch.Frequency, [0]));
                garbage = [.. frame.AsSpan(0, DomainProtocol.HeaderSize), .. garbage];
                System.Buffers.Binary.BinaryPrimitives.WriteUInt32LittleEndian(garbage.AsSpan(8), (uint)(garbage.Length - DomainProtocol.HeaderSize));
                garbage[6] = (byte)random.Next(1, 7);
            }

            try
            {
                peer.Send(garbage);
                var reply = ReadFrame(peer);
                Assert.IsType<RejectMessage>(reply);
            }
            catch (SocketException)
            {
                // Refused and closed before the garbage was all sent or read: as good.
            }

            peer.Dispose();
        }

        Assert.True(a.HostedCoordinator!.IsRunning);
        Assert.Equal(1, a.HostedCoordinator.JoinedCount);
        var b = kit.Client(cpus);
        Assert.True(WaitUntil([a, b], () => Held(a).Length == 2 && Held(b).Length == 2, Patience), kit.LogText());
        AssertDisjoint([(a, cpus), (b, cpus)]);
    }

    [SkippableFact]
    public void A_client_facing_a_coordinator_of_another_version_falls_back_and_says_why()
    {
        SkipUnlessLinux();
        using var kit = new DomainTestKit();
        var directory = DomainDirectory.Open(kit.DomainPath, null);
        using var lockFile = directory.TryLock(); // a coordinator of another version holds the domain
        Assert.NotNull(lockFile);
        using var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        listener.Bind(new UnixDomainSocketEndPoint(kit.SocketPath));
        listener.Listen(1);

        var client = kit.Client([0, 1]);
        using var accepted = listener.Accept();
        accepted.ReceiveTimeout = 5000;
        Assert.IsType<HelloMessage>(ReadFrame(accepted));
        accepted.Send(DomainProtocol.Encode(new WelcomeMessage(1, 1000, 3000), version: 9));
        Assert.Equal(0, accepted.Receive(new byte[1])); // the client hangs up

        Assert.NotNull(client.Refusal);
        Assert.Contains("version 9", client.Refusal, StringComparison.Ordinal);
        Assert.Null(client.LatestGrant);
        Assert.Contains("version 9", kit.LogText(), StringComparison.Ordinal);
    }

    [SkippableFact]
    public void A_process_of_another_user_cannot_join()
    {
        SkipUnlessLinux();
        Skip.IfNot(DomainDirectory.CurrentUserId == 0, "Running a client as another user needs root; this test runs unprivileged, so it cannot create one.");
        string? python = Python;
        Skip.If(python is null, "/usr/bin/python3 is not installed: no client to run as another user.");
        Skip.IfNot(File.Exists("/usr/bin/setpriv"), "setpriv is not installed: cannot run a client as another user.");
        string user = EnsureThrowawayUser();

        using var kit = new DomainTestKit();
        var a = kit.Client([0, 1]);
        Assert.True(WaitUntil([a], () => a.IsJoined, Patience), kit.LogText());

        // First line of defence: the directory is 0700, so the other user cannot reach the socket.
        var lines = new BlockingCollection<string>();
        kit.StartPythonPeer(python!, [0, 1], lines, asUser: user);
        Assert.True(lines.TryTake(out string? line, Patience), "the other user's client printed nothing");
        Assert.StartsWith("connect-failed 13", line, StringComparison.Ordinal); // EACCES

        // Second line: with the directory and socket opened up by mistake, the credentials check still refuses.
        File.SetUnixFileMode(kit.DomainPath, (UnixFileMode)0b111_001_001);
        File.SetUnixFileMode(kit.SocketPath, (UnixFileMode)0b110_110_110);
        var second = new BlockingCollection<string>();
        kit.StartPythonPeer(python!, [0, 1], second, asUser: user);
        Assert.True(second.TryTake(out line, Patience), "the other user's client printed nothing");
        while (line.StartsWith("stderr", StringComparison.Ordinal) && second.TryTake(out string? more, 2000))
        {
            line += Environment.NewLine + more;
        }

        Assert.Equal($"reject {(int)DomainRejectCode.PermissionDenied}", line);
        Assert.Equal(1, a.HostedCoordinator!.JoinedCount);
        Assert.Contains("refused a process of another user", kit.LogText(), StringComparison.Ordinal);
    }

    private static string EnsureThrowawayUser()
    {
        const string name = "divcon-domain-test";
        if (!File.ReadAllLines("/etc/passwd").Any(l => l.StartsWith(name + ":", StringComparison.Ordinal)))
        {
            using var add = Process.Start(new ProcessStartInfo("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name]) { UseShellExecute = false })!;
            Assert.True(add.WaitForExit(20_000));
            Skip.If(add.ExitCode != 0, $"useradd failed ({add.ExitCode}): cannot create a second user here.");
        }

        return name;
    }
}
#endif
