#if NET8_0_OR_GREATER
using System.Buffers.Binary;
using System.Diagnostics;
using System.Net.Sockets;
using System.Runtime.Versioning;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Policies;
using DivCon.Schedulers.Topology;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>Domain tests that open sockets, spawn processes or wait for decisions run one at a time.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class DomainSocketsGroup
{
    public const string Name = "Domain sockets";
}

/// <summary>A private temporary domain directory per test, and helpers to drive clients and peers.</summary>
[SupportedOSPlatform("linux")]
internal sealed class DomainTestKit : IDisposable
{
    private readonly List<IDisposable> _owned = [];

    public DomainTestKit()
    {
        Root = Path.Combine(Path.GetTempPath(), $"divcon-domain-tests-{Guid.NewGuid():N}");
        Directory.CreateDirectory(Root);
        File.SetUnixFileMode(Root, (UnixFileMode)0b111_101_101);
        DomainPath = Path.Combine(Root, "domain");
    }

    public string Root { get; }

    public string DomainPath { get; }

    public string SocketPath => Path.Combine(DomainPath, "coordinator.sock");

    public List<string> Log { get; } = [];

    public CpuDomainOptions Options(TimeSpan? interval = null, bool mayCoordinate = true, IAllocationPolicy? policy = null) => new()
    {
        Directory = DomainPath,
        DecisionInterval = interval ?? TimeSpan.FromMilliseconds(50),
        Policy = policy ?? new EqualSharePolicy(),
        Topology = CpuTopologyDetector.Fallback,
        MayCoordinate = mayCoordinate,
        CgroupRoot = null, // the machine's CPU quota, if any, must not change what the tests offer
        Log = line =>
        {
            lock (Log)
            {
                Log.Add(line);
            }
        },
    };

    public string LogText()
    {
        lock (Log)
        {
            return string.Join(Environment.NewLine, Log);
        }
    }

    public DomainClient Client(int[] cpus, int programs = 1, TimeSpan? interval = null, bool mayCoordinate = true)
    {
        var client = new DomainClient(Options(interval, mayCoordinate));
        _owned.Add(client);
        Publish(client, cpus, programs);
        return client;
    }

    public static void Publish(ICpuArbiter client, int[] cpus, int programs)
    {
        var states = Enumerable.Range(1, programs).Select(i => new ProgramState(new ProgramId(i, $"p{i}"), 4, 1000, 0)).ToArray();
        client.Publish(new AllocationSnapshot(cpus.Length, states), cpus, states.ToDictionary(s => s.Id, s => s.Id.Name!));
    }

    /// <summary>Waits (on the clients' GrantChanged events, bounded) until <paramref name="condition"/> holds.</summary>
    public static bool WaitUntil(IEnumerable<ICpuArbiter> clients, Func<bool> condition, TimeSpan timeout)
    {
        using var changed = new AutoResetEvent(false);
        var list = clients.ToArray();
        void Signal() => changed.Set();
        foreach (var c in list)
        {
            c.GrantChanged += Signal;
        }

        try
        {
            var clock = Stopwatch.StartNew();
            while (!condition())
            {
                var left = timeout - clock.Elapsed;
                if (left <= TimeSpan.Zero)
                {
                    return condition();
                }

                // Changes of other state (who coordinates) raise no event: look again at least every 50 ms.
                changed.WaitOne(TimeSpan.FromMilliseconds(Math.Min(50, left.TotalMilliseconds)));
            }

            return true;
        }
        finally
        {
            foreach (var c in list)
            {
                c.GrantChanged -= Signal;
            }
        }
    }

    public static int[] Held(ICpuArbiter client) =>
        client.LatestGrant is { } g ? [.. g.CpusByProgram.Values.SelectMany(c => c).Order()] : [];

    /// <summary>Asserts that the clients' grants are disjoint and each inside its CPUs.</summary>
    public static void AssertDisjoint(IReadOnlyList<(ICpuArbiter Client, int[] Cpus)> members)
    {
        var seen = new HashSet<int>();
        foreach (var (client, cpus) in members)
        {
            foreach (int cpu in Held(client))
            {
                Assert.True(seen.Add(cpu), $"CPU {cpu} granted twice");
                Assert.Contains(cpu, cpus);
            }
        }
    }

    public T Own<T>(T disposable)
        where T : IDisposable
    {
        _owned.Add(disposable);
        return disposable;
    }

    public void Dispose()
    {
        for (int i = _owned.Count - 1; i >= 0; i--)
        {
            _owned[i].Dispose();
        }

        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (IOException)
        {
        }
    }

    /// <summary>Finds <c>/usr/bin/python3</c> (reachable by every user), or null.</summary>
    public static string? Python => File.Exists("/usr/bin/python3") ? "/usr/bin/python3" : null;

    /// <summary>
    /// A domain client written in Python from the protocol's description: joins with CPUs, reports one program every
    /// 50 ms, acknowledges grants, prints "granted N" on each grant and "reject CODE" on a refusal.
    /// </summary>
    public const string PythonPeer = """
        import socket, struct, sys, time, os
        path, cpus = sys.argv[1], [int(c) for c in sys.argv[2].split(',')]
        MAGIC, VERSION = 0x44435644, 1
        def frame(t, payload): return struct.pack('<IHBBI', MAGIC, VERSION, t, 0, len(payload)) + payload
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except OSError as e:
            print('connect-failed', e.errno, flush=True); sys.exit(0)
        try:
            s.sendall(frame(1, struct.pack('<iqH', os.getpid(), 1000000000, len(cpus)) + b''.join(struct.pack('<i', c) for c in cpus)))
        except OSError:
            pass  # refused at once: the reject waits in the receive queue
        s.settimeout(0.05)
        buf, epoch, last = b'', 0, 0.0
        while True:
            now = time.monotonic()
            if now - last >= 0.05:
                report = struct.pack('<qH', epoch, 1) + struct.pack('<iH', 1, 0) + struct.pack('<diiiiHB', 4.0, 1000, 0, 0, 0, 0, 0)
                try:
                    s.sendall(frame(4, report))
                except OSError:
                    pass
                last = now
            try:
                data = s.recv(65536)
                if not data:
                    print('closed', flush=True); sys.exit(0)
                buf += data
            except socket.timeout:
                continue
            except OSError as e:
                print('error', e.errno, flush=True); sys.exit(0)
            while len(buf) >= 12:
                magic, ver, t, fl, n = struct.unpack_from('<IHBBI', buf)
                if len(buf) < 12 + n: break
                payload, buf = buf[12:12 + n], buf[12 + n:]
                if t == 5:
                    epoch = struct.unpack_from('<q', payload)[0]
                    count = struct.unpack_from('<H', payload, 16)[0]
                    off, held = 18, 0
                    for _ in range(count):
                        k = struct.unpack_from('<H', payload, off + 4)[0]; held += k; off += 6 + 4 * k
                    print('granted', held, flush=True)
                elif t == 3:
                    print('reject', struct.unpack_from('<H', payload)[0], flush=True); sys.exit(0)
        """;

    /// <summary>Starts the Python peer (optionally as another user through <c>setpriv</c>); its output lines go to <paramref name="lines"/>.</summary>
    public Process StartPythonPeer(string python, int[] cpus, System.Collections.Concurrent.BlockingCollection<string> lines, string? asUser = null)
    {
        string script = Path.Combine(Root, "peer.py");
        File.WriteAllText(script, PythonPeer);
        File.SetUnixFileMode(script, (UnixFileMode)0b110_100_100);
        var info = new ProcessStartInfo(asUser is null ? python : "/usr/bin/setpriv")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (asUser is not null)
        {
            foreach (string arg in (string[])["--reuid", asUser, "--regid", asUser, "--clear-groups", python])
            {
                info.ArgumentList.Add(arg);
            }
        }

        info.ArgumentList.Add(script);
        info.ArgumentList.Add(SocketPath);
        info.ArgumentList.Add(string.Join(',', cpus));
        var process = Process.Start(info)!;
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                lines.Add(e.Data);
            }
        };
        process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                lines.Add("stderr: " + e.Data);
            }
        };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        _owned.Add(new Killer(process));
        return process;
    }

    /// <summary>Connects a raw socket to the coordinator (a peer driven by hand).</summary>
    public Socket Connect()
    {
        var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        socket.Connect(new UnixDomainSocketEndPoint(SocketPath));
        socket.ReceiveTimeout = 5000;
        _owned.Add(socket);
        return socket;
    }

    /// <summary>Reads one frame from a raw socket (bounded by its receive timeout).</summary>
    public static DomainMessage ReadFrame(Socket socket)
    {
        byte[] header = ReadExactly(socket, DomainProtocol.HeaderSize);
        int length = (int)BinaryPrimitives.ReadUInt32LittleEndian(header.AsSpan(8));
        byte[] frame = [.. header, .. ReadExactly(socket, length)];
        Assert.True(DomainProtocol.TryDecode(frame, out var message, out _));
        return message!;
    }

    private static byte[] ReadExactly(Socket socket, int count)
    {
        byte[] bytes = new byte[count];
        int read = 0;
        while (read < count)
        {
            int n = socket.Receive(bytes, read, count - read, SocketFlags.None);
            Assert.True(n > 0, "the connection closed");
            read += n;
        }

        return bytes;
    }

    private sealed class Killer(Process process) : IDisposable
    {
        public void Dispose()
        {
            try
            {
                if (!process.HasExited)
                {
                    process.Kill();
                    process.WaitForExit(5000);
                }
            }
            catch (InvalidOperationException)
            {
            }

            process.Dispose();
        }
    }
}
#endif
