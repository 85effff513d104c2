#if NET8_0_OR_GREATER
using System.Buffers.Binary;
using DivCon.Schedulers.Multiprogram.Domain;
using DivCon.Schedulers.Multiprogram.Estimation;
using DivCon.Schedulers.Multiprogram.Model;
using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

public sealed class DomainProtocolTests
{
    private static ProgramState FullProgram(int id, string name)
    {
        var estimator = new ScalabilityEstimator(4);
        estimator.Observe(TimeSpan.FromMilliseconds(50), running: 3, queued: 5);
        var table = new ScalabilityTable([new ScalabilityPoint(1, 1), new ScalabilityPoint(4, 3.5)]);
        return new ProgramState(new ProgramId(id, name), 3.5, availableTasks: 7, currentCores: 2, table, servingWorkers: 3, runningTasks: 2)
        {
            Estimate = estimator.Current,
        };
    }

    private static T RoundTrip<T>(T message)
        where T : DomainMessage
    {
        byte[] frame = DomainProtocol.Encode(message);
        Assert.True(DomainProtocol.TryDecode(frame, out var decoded, out int consumed));
        Assert.Equal(frame.Length, consumed);

        // Every proper prefix is incomplete, never an error.
        for (int cut = 0; cut < frame.Length; cut++)
        {
            Assert.False(DomainProtocol.TryDecode(frame.AsSpan(0, cut), out _, out _));
        }

        return Assert.IsType<T>(decoded);
    }

    [Fact]
    public void Hello_welcome_reject_leave_round_trip()
    {
        var hello = RoundTrip(new HelloMessage(4242, 1_000_000_000, [0, 1, 5, 65535]));
        Assert.Equal(4242, hello.ProcessId);
        Assert.Equal(1_000_000_000, hello.TimestampFrequency);
        Assert.Equal([0, 1, 5, 65535], hello.AllowedCpus);

        var welcome = RoundTrip(new WelcomeMessage(7, 100, 300));
        Assert.Equal((7, 100L, 300L), (welcome.CoordinatorProcessId, welcome.DecisionIntervalTicks, welcome.LeaseTicks));

        var reject = RoundTrip(new RejectMessage(DomainRejectCode.PermissionDenied, "nö – not you"));
        Assert.Equal(DomainRejectCode.PermissionDenied, reject.Code);
        Assert.Equal("nö – not you", reject.Reason);

        RoundTrip(new LeaveMessage());
    }

    [Fact]
    public void Report_round_trips_every_field_the_policies_read()
    {
        var original = FullProgram(3, "mergesort");
        var plain = new ProgramState(new ProgramId(9), 1.5, 0, 0);
        var report = RoundTrip(new ReportMessage(12, [original, plain]));
        Assert.Equal(12, report.AppliedEpoch);
        Assert.Equal(2, report.Programs.Count);
        var p = report.Programs[0];
        Assert.Equal(3, p.Id.Value);
        Assert.Equal("mergesort", p.Id.Name);
        Assert.Equal(original.Speedup, p.Speedup);
        Assert.Equal(original.AvailableTasks, p.AvailableTasks);
        Assert.Equal(original.RunningTasks, p.RunningTasks);
        Assert.Equal(original.CurrentCores, p.CurrentCores);
        Assert.Equal(original.ServingWorkers, p.ServingWorkers);
        Assert.Equal(original.Table, p.Table);
        Assert.NotNull(p.Estimate);
        Assert.Equal(original.Estimate!.CoreCount, p.Estimate!.CoreCount);
        for (int c = 0; c <= 4; c++)
        {
            Assert.Equal(original.Estimate.SpeedupAt(c), p.Estimate.SpeedupAt(c));
        }

        Assert.Equal(original.Estimate.Demand, p.Estimate.Demand);
        Assert.Equal(original.Estimate.ObservedCoreSeconds, p.Estimate.ObservedCoreSeconds);
        Assert.Equal(original.Estimate.IsSettled, p.Estimate.IsSettled);
        Assert.Equal(original.Estimate.PhaseChanges, p.Estimate.PhaseChanges);

        Assert.Null(report.Programs[1].Id.Name);
        Assert.Null(report.Programs[1].Table);
        Assert.Null(report.Programs[1].Estimate);
    }

    [Fact]
    public void Grant_round_trips()
    {
        var grant = RoundTrip(new GrantMessage(99, 123_456, [new GrantedCpus(1, [0, 2]), new GrantedCpus(2, []), new GrantedCpus(5, [1, 3, 4])]));
        Assert.Equal(99, grant.Epoch);
        Assert.Equal(123_456, grant.LeaseExpiresAt);
        Assert.Equal([1, 2, 5], grant.Programs.Select(p => p.Program));
        Assert.Equal([0, 2], grant.Programs[0].Cpus);
        Assert.Empty(grant.Programs[1].Cpus);
        Assert.Equal([1, 3, 4], grant.Programs[2].Cpus);
    }

    [Fact]
    public void Two_frames_in_one_buffer_decode_one_after_the_other()
    {
        byte[] both = [.. DomainProtocol.Encode(new LeaveMessage()), .. DomainProtocol.Encode(new WelcomeMessage(1, 2, 3))];
        Assert.True(DomainProtocol.TryDecode(both, out var first, out int consumed));
        Assert.IsType<LeaveMessage>(first);
        Assert.True(DomainProtocol.TryDecode(both.AsSpan(consumed), out var second, out _));
        Assert.IsType<WelcomeMessage>(second);
    }

    [Fact]
    public void Another_version_is_reported_as_a_mismatch_never_misread()
    {
        byte[] future = DomainProtocol.Encode(new HelloMessage(1, 1, [0]), version: DomainProtocol.Version + 1);
        var e = Assert.Throws<DomainProtocolException>(() => DomainProtocol.TryDecode(future, out _, out _));
        Assert.Equal(DomainProtocolError.VersionMismatch, e.Error);
        Assert.Equal(DomainProtocol.Version + 1, e.PeerVersion);
        Assert.Contains("version 2", e.Message, StringComparison.Ordinal);

        // The header alone suffices: a mismatch is found before the payload arrives.
        e = Assert.Throws<DomainProtocolException>(() => DomainProtocol.TryDecode(future.AsSpan(0, DomainProtocol.HeaderSize), out _, out _));
        Assert.Equal(DomainProtocolError.VersionMismatch, e.Error);
    }

    [Fact]
    public void A_reject_of_any_version_is_read_so_a_peer_always_learns_why()
    {
        byte[] future = DomainProtocol.Encode(new RejectMessage(DomainRejectCode.VersionMismatch, "speak 7"), version: 7);
        Assert.True(DomainProtocol.TryDecode(future, out var message, out _));
        var reject = Assert.IsType<RejectMessage>(message);
        Assert.Equal("speak 7", reject.Reason);
    }

    [Theory]
    [InlineData(0, (int)DomainProtocolError.BadMagic)]
    [InlineData(6, (int)DomainProtocolError.UnknownType)]
    [InlineData(7, (int)DomainProtocolError.Malformed)]
    [InlineData(8, (int)DomainProtocolError.TooLarge)]
    public void A_bad_header_is_refused_at_once(int field, int expectedError)
    {
        var expected = (DomainProtocolError)expectedError;
        byte[] frame = DomainProtocol.Encode(new LeaveMessage());
        switch (field)
        {
            case 0: frame[0] ^= 0xFF; break;
            case 6: frame[6] = 200; break;
            case 7: frame[7] = 1; break;
            default: BinaryPrimitives.WriteUInt32LittleEndian(frame.AsSpan(8), uint.MaxValue); break;
        }

        var e = Assert.Throws<DomainProtocolException>(() => DomainProtocol.TryDecode(frame, out _, out _));
        Assert.Equal(expected, e.Error);
    }

    [Fact]
    public void Counts_larger_than_the_bytes_that_follow_are_refused_before_allocating()
    {
        // A Hello claiming 4096 CPUs with none following.
        byte[] frame = DomainProtocol.Encode(new HelloMessage(1, 1, []));
        BinaryPrimitives.WriteUInt16LittleEndian(frame.AsSpan(DomainProtocol.HeaderSize + 12), 4096);
        var e = Assert.Throws<DomainProtocolException>(() => DomainProtocol.TryDecode(frame, out _, out _));
        Assert.Equal(DomainProtocolError.Malformed, e.Error);

        BinaryPrimitives.WriteUInt16LittleEndian(frame.AsSpan(DomainProtocol.HeaderSize + 12), 60000);
        e = Assert.Throws<DomainProtocolException>(() => DomainProtocol.TryDecode(frame, out _, out _));
        Assert.Equal(DomainProtocolError.TooLarge, e.Error);
    }

    [Fact]
    public void Invalid_fields_are_refused()
    {
        // Unsorted CPUs, a duplicate CPU across programs, a non-finite speedup, bytes left over, bad UTF-8.
        AssertMalformed(WithPayload(DomainMessageType.Hello, w => { w.I32(1); w.I64(1); w.U16(2); w.I32(3); w.I32(2); }));
        AssertMalformed(WithPayload(DomainMessageType.Grant, w =>
        {
            w.I64(1); w.I64(1); w.U16(2);
            w.I32(1); w.U16(1); w.I32(4);
            w.I32(2); w.U16(1); w.I32(4);
        }));
        var report = DomainProtocol.Encode(new ReportMessage(0, [new ProgramState(new ProgramId(1), 2, 0, 0)]));
        int speedupAt = DomainProtocol.HeaderSize + 8 + 2 + 4 + 2;
        BinaryPrimitives.WriteInt64LittleEndian(report.AsSpan(speedupAt), BitConverter.DoubleToInt64Bits(double.NaN));
        AssertMalformed(report);
        AssertMalformed(WithPayload(DomainMessageType.Leave, w => w.U16(0)));
        AssertMalformed(WithPayload(DomainMessageType.Reject, w => { w.U16(1); w.U16(2); w.U8(0xC3); w.U8(0x28); }));

        static void AssertMalformed(byte[] frame)
        {
            var e = Assert.Throws<DomainProtocolException>(() => DomainProtocol.TryDecode(frame, out _, out _));
            Assert.Equal(DomainProtocolError.Malformed, e.Error);
        }
    }

    [Fact]
    public void Fuzzed_input_only_ever_raises_the_protocol_exception()
    {
        // 1,000,000 inputs: random bytes, random bytes behind a valid header, and mutations of valid frames
        // (bit flips, byte overwrites, truncations, extensions, field splices). Seeded, so a failure reproduces.
        var random = new Random(20261126);
        byte[][] seeds =
        [
            DomainProtocol.Encode(new HelloMessage(17, 1_000_000_000, [0, 1, 2, 3, 8, 9])),
            DomainProtocol.Encode(new WelcomeMessage(3, 100_000_000, 300_000_000)),
            DomainProtocol.Encode(new RejectMessage(DomainRejectCode.ProtocolError, "bad")),
            DomainProtocol.Encode(new ReportMessage(5, [FullProgram(1, "a"), FullProgram(2, "bb"), new ProgramState(new ProgramId(3), 1, 0, 0)])),
            DomainProtocol.Encode(new GrantMessage(8, 1_000, [new GrantedCpus(1, [0, 1]), new GrantedCpus(2, [2, 3])])),
            DomainProtocol.Encode(new LeaveMessage()),
        ];
        int decoded = 0, refused = 0, incomplete = 0;
        var buffer = new byte[4096];
        for (int i = 0; i < 1_000_000; i++)
        {
            int length;
            switch (i % 4)
            {
                case 0:
                    length = random.Next(0, 256);
                    random.NextBytes(buffer.AsSpan(0, length));
                    break;
                case 1:
                    length = DomainProtocol.HeaderSize + random.Next(0, 512);
                    random.NextBytes(buffer.AsSpan(0, length));
                    BinaryPrimitives.WriteUInt32LittleEndian(buffer, DomainProtocol.Magic);
                    BinaryPrimitives.WriteUInt16LittleEndian(buffer.AsSpan(4), DomainProtocol.Version);
                    buffer[6] = (byte)random.Next(1, 7);
                    buffer[7] = 0;
                    BinaryPrimitives.WriteUInt32LittleEndian(buffer.AsSpan(8), (uint)(length - DomainProtocol.HeaderSize));
                    break;
                default:
                    var seed = seeds[random.Next(seeds.Length)];
                    seed.CopyTo(buffer, 0);
                    length = seed.Length;
                    int mutations = random.Next(1, 4);
                    for (int m = 0; m < mutations; m++)
                    {
                        switch (random.Next(5))
                        {
                            case 0:
                                buffer[random.Next(length)] ^= (byte)(1 << random.Next(8));
                                break;
                            case 1:
                                buffer[random.Next(length)] = (byte)random.Next(256);
                                break;
                            case 2:
                                length = random.Next(0, length + 1);
                                break;
                            case 3:
                                int grow = random.Next(1, 16);
                                random.NextBytes(buffer.AsSpan(length, grow));
                                length += grow;
                                break;
                            default:
                                // A small count or length field written over a random payload position.
                                if (length > DomainProtocol.HeaderSize + 2)
                                {
                                    int at = random.Next(DomainProtocol.HeaderSize, length - 1);
                                    BinaryPrimitives.WriteUInt16LittleEndian(buffer.AsSpan(at), (ushort)random.Next(0, 5000));
                                }

                                break;
                        }

                        length = Math.Min(length, buffer.Length - 16);
                    }

                    if (random.Next(2) == 0 && length >= DomainProtocol.HeaderSize)
                    {
                        // Keep the length field truthful half the time, so that payload decoding is reached.
                        BinaryPrimitives.WriteUInt32LittleEndian(buffer.AsSpan(8), (uint)(length - DomainProtocol.HeaderSize));
                    }

                    break;
            }

            try
            {
                if (DomainProtocol.TryDecode(buffer.AsSpan(0, length), out var message, out int consumed))
                {
                    Assert.NotNull(message);
                    Assert.InRange(consumed, DomainProtocol.HeaderSize, length);
                    decoded++;
                }
                else
                {
                    incomplete++;
                }
            }
            catch (DomainProtocolException)
            {
                refused++;
            }
        }

        Assert.Equal(1_000_000, decoded + refused + incomplete);
        Assert.True(decoded > 1000, $"only {decoded} inputs decoded: the fuzzer hardly reaches the payload decoders");
        Assert.True(refused > 100_000, $"only {refused} inputs refused");
    }

    private static byte[] WithPayload(DomainMessageType type, Action<PayloadWriter> write)
    {
        var w = new PayloadWriter();
        write(w);
        byte[] payload = [.. w.Bytes];
        byte[] frame = new byte[DomainProtocol.HeaderSize + payload.Length];
        BinaryPrimitives.WriteUInt32LittleEndian(frame, DomainProtocol.Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(frame.AsSpan(4), DomainProtocol.Version);
        frame[6] = (byte)type;
        BinaryPrimitives.WriteUInt32LittleEndian(frame.AsSpan(8), (uint)payload.Length);
        payload.CopyTo(frame, DomainProtocol.HeaderSize);
        return frame;
    }

    private sealed class PayloadWriter
    {
        public List<byte> Bytes { get; } = [];

        public void U8(byte v) => Bytes.Add(v);

        public void U16(ushort v) => Bytes.AddRange(BitConverter.GetBytes(v));

        public void I32(int v) => Bytes.AddRange(BitConverter.GetBytes(v));

        public void I64(long v) => Bytes.AddRange(BitConverter.GetBytes(v));
    }
}
#endif
