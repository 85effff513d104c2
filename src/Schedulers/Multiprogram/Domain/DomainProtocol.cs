#if NET8_0_OR_GREATER
using System.Buffers.Binary;
using System.Text;
using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>What a peer of the domain sent that the decoder refused.</summary>
internal enum DomainProtocolError
{
    /// <summary>The frame does not start with the domain's magic number.</summary>
    BadMagic,

    /// <summary>The peer speaks another version of the protocol.</summary>
    VersionMismatch,

    /// <summary>An unknown message type.</summary>
    UnknownType,

    /// <summary>A length or count beyond its bound.</summary>
    TooLarge,

    /// <summary>A field out of range, bytes missing or left over, or text that is not UTF-8.</summary>
    Malformed,
}

/// <summary>The only exception the domain's decoder throws: the input was not a valid message.</summary>
internal sealed class DomainProtocolException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="error">What was wrong.</param>
    /// <param name="message">One line saying where.</param>
    /// <param name="peerVersion">For <see cref="DomainProtocolError.VersionMismatch"/>, the version the peer speaks.</param>
    public DomainProtocolException(DomainProtocolError error, string message, int peerVersion = 0)
        : base(message)
    {
        Error = error;
        PeerVersion = peerVersion;
    }

    /// <summary>Creates an exception with no detail (for serializers).</summary>
    public DomainProtocolException()
        : this(DomainProtocolError.Malformed, "Malformed domain message.")
    {
    }

    /// <summary>Creates an exception with a message.</summary>
    /// <param name="message">The message.</param>
    public DomainProtocolException(string message)
        : this(DomainProtocolError.Malformed, message)
    {
    }

    /// <summary>Creates an exception with a message and a cause.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public DomainProtocolException(string message, Exception innerException)
        : base(message, innerException)
    {
        Error = DomainProtocolError.Malformed;
    }

    /// <summary>What was wrong.</summary>
    public DomainProtocolError Error { get; }

    /// <summary>The peer's version, for a version mismatch; otherwise 0.</summary>
    public int PeerVersion { get; }
}

/// <summary>
/// The wire format: a 12-byte header (magic "DVCD", version, type, flags = 0, payload length), then the payload,
/// little-endian. Encoding and strict decoding; see the README beside this file.
/// </summary>
/// <remarks>
/// The decoder bounds every length and count before it allocates and checks that the remaining bytes can hold
/// them, so input can make it allocate at most <see cref="MaxPayload"/> plus small arrays; it throws nothing but
/// <see cref="DomainProtocolException"/>. The header and the <see cref="RejectMessage"/> payload are frozen across
/// versions, so that a peer of another version is always told why it was refused.
/// </remarks>
internal static partial class DomainProtocol
{
    /// <summary>"DVCD" read as a little-endian integer.</summary>
    public const uint Magic = 0x44435644;

    /// <summary>The version this build speaks.</summary>
    public const ushort Version = 1;

    /// <summary>Bytes of the header.</summary>
    public const int HeaderSize = 12;

    /// <summary>Largest payload accepted.</summary>
    public const int MaxPayload = 1 << 20;

    /// <summary>Most CPUs in a CPU list.</summary>
    public const int MaxCpus = 4096;

    /// <summary>Largest CPU id.</summary>
    public const int MaxCpuId = 65535;

    /// <summary>Most programs in a report or grant.</summary>
    public const int MaxPrograms = 256;

    /// <summary>Most UTF-8 bytes of a name or reason.</summary>
    public const int MaxText = 1024;

    /// <summary>Most points of a scalability table or estimate curve.</summary>
    public const int MaxCurve = MaxCpus + 1;

    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Encodes a message with its header.</summary>
    /// <param name="message">The message.</param>
    /// <param name="version">The version to stamp (tests write other versions).</param>
    /// <returns>The frame.</returns>
    public static byte[] Encode(DomainMessage message, ushort version = Version)
    {
        ArgumentNullException.ThrowIfNull(message);
        var w = new Writer();
        w.U32(Magic);
        w.U16(version);
        w.U8((byte)message.Type);
        w.U8(0);
        w.U32(0); // payload length, patched below
        switch (message)
        {
            case HelloMessage h:
                w.I32(h.ProcessId);
                w.I64(h.TimestampFrequency);
                w.CpuList(h.AllowedCpus);
                break;
            case WelcomeMessage m:
                w.I32(m.CoordinatorProcessId);
                w.I64(m.DecisionIntervalTicks);
                w.I64(m.LeaseTicks);
                break;
            case RejectMessage r:
                w.U16((ushort)r.Code);
                w.Text(r.Reason);
                break;
            case ReportMessage r:
                w.I64(r.AppliedEpoch);
                w.Count(r.Programs.Count, MaxPrograms);
                foreach (var p in r.Programs)
                {
                    WriteProgram(w, p);
                }

                break;
            case GrantMessage g:
                WriteGrant(w, g);
                break;
            case LeaveMessage:
                break;
            default:
                throw new ArgumentException($"Unknown message {message.GetType().Name}.", nameof(message));
        }

        byte[] frame = w.ToArray();
        if (frame.Length - HeaderSize > MaxPayload)
        {
            throw new ArgumentException($"Message of {frame.Length - HeaderSize} bytes exceeds {MaxPayload}.", nameof(message));
        }

        BinaryPrimitives.WriteUInt32LittleEndian(frame.AsSpan(8), (uint)(frame.Length - HeaderSize));
        return frame;
    }

    /// <summary>Reads one frame from the start of <paramref name="buffer"/>, if it is complete.</summary>
    /// <param name="buffer">Received bytes.</param>
    /// <param name="message">The message, when a whole frame was there.</param>
    /// <param name="consumed">Bytes of the frame, when a whole frame was there.</param>
    /// <returns>Whether a whole frame was there (false: read more bytes, the header so far is valid).</returns>
    /// <exception cref="DomainProtocolException">The bytes are not a valid frame (checked as soon as the header is in).</exception>
    public static bool TryDecode(ReadOnlySpan<byte> buffer, out DomainMessage? message, out int consumed)
    {
        message = null;
        consumed = 0;
        if (buffer.Length < HeaderSize)
        {
            return false;
        }

        var header = new Reader(buffer[..HeaderSize]);
        uint magic = header.U32();
        if (magic != Magic)
        {
            throw new DomainProtocolException(DomainProtocolError.BadMagic, FormattableString.Invariant($"Bad magic 0x{magic:x8}."));
        }

        int version = header.U16();
        byte type = header.U8();
        byte flags = header.U8();
        uint length = header.U32();
        if (version != Version && type != (byte)DomainMessageType.Reject)
        {
            throw new DomainProtocolException(
                DomainProtocolError.VersionMismatch,
                FormattableString.Invariant($"Peer speaks protocol version {version}; this build speaks {Version}."),
                version);
        }

        if (type is < (byte)DomainMessageType.Hello or > (byte)DomainMessageType.Leave)
        {
            throw new DomainProtocolException(DomainProtocolError.UnknownType, FormattableString.Invariant($"Unknown message type {type}."));
        }

        if (flags != 0)
        {
            throw new DomainProtocolException(DomainProtocolError.Malformed, FormattableString.Invariant($"Flags {flags} are not 0."));
        }

        if (length > MaxPayload)
        {
            throw new DomainProtocolException(DomainProtocolError.TooLarge, FormattableString.Invariant($"Payload of {length} bytes exceeds {MaxPayload}."));
        }

        if (buffer.Length - HeaderSize < length)
        {
            return false;
        }

        var r = new Reader(buffer.Slice(HeaderSize, (int)length));
        message = (DomainMessageType)type switch
        {
            DomainMessageType.Hello => new HelloMessage(r.I32(), r.Positive64("timestamp frequency"), r.CpuList()),
            DomainMessageType.Welcome => new WelcomeMessage(r.I32(), r.Positive64("decision interval"), r.Positive64("lease")),
            DomainMessageType.Reject => new RejectMessage((DomainRejectCode)r.U16(), r.Text()),
            DomainMessageType.Report => ReadReport(ref r),
            DomainMessageType.Grant => ReadGrant(ref r),
            _ => new LeaveMessage(),
        };
        r.End();
        consumed = HeaderSize + (int)length;
        return true;
    }

    // Each part of a payload has its writer and its reader side by side, in the order of the wire.
    private static void WriteProgram(Writer w, ProgramState p)
    {
        w.I32(p.Id.Value);
        w.Text(p.Id.Name ?? string.Empty);
        w.F64(p.Speedup);
        w.I32(p.AvailableTasks);
        w.I32(p.RunningTasks);
        w.I32(p.CurrentCores);
        w.I32(p.ServingWorkers);
        WriteTable(w, p.Table);
        WriteEstimate(w, p.Estimate);
    }

    private static ReportMessage ReadReport(ref Reader r)
    {
        long epoch = r.NonNegative64("applied epoch");
        int count = r.Count(MaxPrograms, minBytesEach: 33);
        var programs = new ProgramState[count];
        var seen = new HashSet<int>();
        for (int i = 0; i < count; i++)
        {
            int id = ReadProgramId(ref r, seen);
            string name = r.Text();
            double speedup = r.F64();
            if (!double.IsFinite(speedup) || speedup <= 0)
            {
                throw Malformed($"Speedup {speedup} of program {id} is not positive and finite.");
            }

            int available = r.NonNegative32("available tasks");
            int running = r.NonNegative32("running tasks");
            int current = r.NonNegative32("current cores");
            int serving = r.NonNegative32("serving workers");
            var table = ReadTable(ref r, id);
            var estimate = ReadEstimate(ref r, id);
            programs[i] = new ProgramState(new ProgramId(id, name), speedup, available, current, table, serving, running) { Estimate = estimate };
        }

        return new ReportMessage(epoch, programs);
    }

    /// <summary>A program's speedup table: a count (0: none), then (cores, speedup) points, cores ascending.</summary>
    private static void WriteTable(Writer w, ScalabilityTable? table)
    {
        if (table is null)
        {
            w.U16(0);
            return;
        }

        w.Count(table.Points.Count, MaxCurve);
        foreach (var point in table.Points)
        {
            w.I32(point.Cores);
            w.F64(point.Speedup);
        }
    }

    private static ScalabilityTable? ReadTable(ref Reader r, int program)
    {
        int points = r.Count(MaxCurve, minBytesEach: 12);
        if (points == 0)
        {
            return null;
        }

        var list = new ScalabilityPoint[points];
        for (int k = 0; k < points; k++)
        {
            int cores = r.I32();
            double s = r.F64();
            if (cores < 1 || (k > 0 && cores <= list[k - 1].Cores) || !double.IsFinite(s) || s <= 0)
            {
                throw Malformed($"Table point {k} ({cores}, {s}) of program {program} is invalid.");
            }

            list[k] = new ScalabilityPoint(cores, s);
        }

        return new ScalabilityTable(list);
    }

    /// <summary>A program's learned estimate: a flag (0: none), then its curve from 1 core, demand, observed core-seconds, settled, phase changes.</summary>
    private static void WriteEstimate(Writer w, ScalabilityEstimate? estimate)
    {
        if (estimate is not { } e)
        {
            w.U8(0);
            return;
        }

        w.U8(1);
        w.Count(e.CoreCount, MaxCurve);
        for (int c = 1; c <= e.CoreCount; c++)
        {
            w.F64(e.SpeedupAt(c));
        }

        w.F64(e.Demand);
        w.F64(e.ObservedCoreSeconds);
        w.U8(e.IsSettled ? (byte)1 : (byte)0);
        w.I32(e.PhaseChanges);
    }

    private static ScalabilityEstimate? ReadEstimate(ref Reader r, int program)
    {
        byte hasEstimate = r.U8();
        if (hasEstimate > 1)
        {
            throw Malformed($"Estimate flag {hasEstimate} of program {program} is not 0 or 1.");
        }

        if (hasEstimate == 0)
        {
            return null;
        }

        int n = r.Count(MaxCurve, minBytesEach: 8);
        if (n < 1)
        {
            throw Malformed($"Estimate of program {program} has no points.");
        }

        var curve = new double[n + 1];
        for (int c = 1; c <= n; c++)
        {
            curve[c] = r.F64();
            if (!double.IsFinite(curve[c]) || curve[c] < 0)
            {
                throw Malformed($"Estimated speedup {curve[c]} at {c} cores of program {program} is invalid.");
            }
        }

        double demand = r.F64();
        double observed = r.F64();
        byte settled = r.U8();
        int phases = r.NonNegative32("phase changes");
        if (!double.IsFinite(demand) || demand < 0 || !double.IsFinite(observed) || observed < 0 || settled > 1)
        {
            throw Malformed($"Estimate of program {program} is invalid.");
        }

        return new ScalabilityEstimate(curve, demand, observed, settled == 1, phases);
    }

    private static void WriteGrant(Writer w, GrantMessage g)
    {
        w.I64(g.Epoch);
        w.I64(g.LeaseExpiresAt);
        w.Count(g.Programs.Count, MaxPrograms);
        foreach (var p in g.Programs)
        {
            w.I32(p.Program);
            w.CpuList(p.Cpus);
        }
    }

    private static GrantMessage ReadGrant(ref Reader r)
    {
        long epoch = r.NonNegative64("epoch");
        long expiry = r.I64();
        int count = r.Count(MaxPrograms, minBytesEach: 6);
        var programs = new GrantedCpus[count];
        var seenPrograms = new HashSet<int>();
        var seenCpus = new HashSet<int>();
        for (int i = 0; i < count; i++)
        {
            int id = ReadProgramId(ref r, seenPrograms);
            var cpus = r.CpuList();
            foreach (int cpu in cpus)
            {
                if (!seenCpus.Add(cpu))
                {
                    throw Malformed($"CPU {cpu} is granted twice.");
                }
            }

            programs[i] = new GrantedCpus(id, cpus);
        }

        return new GrantMessage(epoch, expiry, programs);
    }

    /// <summary>A program's id, which must not repeat within one report or grant.</summary>
    private static int ReadProgramId(ref Reader r, HashSet<int> seen)
    {
        int id = r.I32();
        return seen.Add(id) ? id : throw Malformed($"Program {id} appears twice.");
    }

    private static DomainProtocolException Malformed(string message) =>
        new(DomainProtocolError.Malformed, message);
}
#endif
