#if NET8_0_OR_GREATER
using System.Buffers.Binary;

namespace DivCon.Schedulers.Multiprogram.Domain;

/// <summary>The byte level of the wire format: a little-endian writer and a bounds-checked reader.</summary>
internal static partial class DomainProtocol
{
    /// <summary>A growing little-endian byte writer.</summary>
    private sealed class Writer
    {
        private byte[] _bytes = new byte[256];
        private int _length;

        public void U8(byte value) => Span(1)[0] = value;

        public void U16(ushort value) => BinaryPrimitives.WriteUInt16LittleEndian(Span(2), value);

        public void U32(uint value) => BinaryPrimitives.WriteUInt32LittleEndian(Span(4), value);

        public void I32(int value) => BinaryPrimitives.WriteInt32LittleEndian(Span(4), value);

        public void I64(long value) => BinaryPrimitives.WriteInt64LittleEndian(Span(8), value);

        public void F64(double value) => BinaryPrimitives.WriteInt64LittleEndian(Span(8), BitConverter.DoubleToInt64Bits(value));

        public void Count(int count, int max)
        {
            if (count < 0 || count > max)
            {
                throw new ArgumentException(FormattableString.Invariant($"Count {count} exceeds the protocol's bound {max}."));
            }

            U16((ushort)count);
        }

        public void Text(string text)
        {
            byte[] bytes = StrictUtf8.GetBytes(text);
            if (bytes.Length > MaxText)
            {
                // Names and reasons are for people: cut at a character boundary rather than fail.
                int chars = text.Length;
                do
                {
                    chars = Math.Min(chars - 1, MaxText);
                    if (chars > 0 && char.IsHighSurrogate(text[chars - 1]))
                    {
                        chars--;
                    }

                    bytes = StrictUtf8.GetBytes(text[..chars]);
                }
                while (bytes.Length > MaxText);
            }

            U16((ushort)bytes.Length);
            bytes.CopyTo(Span(bytes.Length));
        }

        public void CpuList(IReadOnlyList<int> cpus)
        {
            Count(cpus.Count, MaxCpus);
            for (int i = 0; i < cpus.Count; i++)
            {
                if (!ContinuesCpuList(cpus[i], i, i > 0 ? cpus[i - 1] : -1))
                {
                    throw new ArgumentException(CpuListError(cpus[i], i));
                }

                I32(cpus[i]);
            }
        }

        public byte[] ToArray() => _bytes.AsSpan(0, _length).ToArray();

        private Span<byte> Span(int size)
        {
            if (_length + size > _bytes.Length)
            {
                Array.Resize(ref _bytes, Math.Max(_bytes.Length * 2, _length + size));
            }

            var span = _bytes.AsSpan(_length, size);
            _length += size;
            return span;
        }
    }

    /// <summary>A bounds-checked little-endian reader: running past the end is a <see cref="DomainProtocolException"/>.</summary>
    private ref struct Reader(ReadOnlySpan<byte> bytes)
    {
        private readonly ReadOnlySpan<byte> _bytes = bytes;
        private int _position;

        private readonly int Remaining => _bytes.Length - _position;

        public byte U8() => Take(1)[0];

        public ushort U16() => BinaryPrimitives.ReadUInt16LittleEndian(Take(2));

        public uint U32() => BinaryPrimitives.ReadUInt32LittleEndian(Take(4));

        public int I32() => BinaryPrimitives.ReadInt32LittleEndian(Take(4));

        public long I64() => BinaryPrimitives.ReadInt64LittleEndian(Take(8));

        public double F64() => BitConverter.Int64BitsToDouble(I64());

        public int NonNegative32(string what)
        {
            int value = I32();
            return value >= 0 ? value : throw Malformed($"{Capitalized(what)} {value} is negative.");
        }

        public long NonNegative64(string what)
        {
            long value = I64();
            return value >= 0 ? value : throw Malformed($"{Capitalized(what)} {value} is negative.");
        }

        public long Positive64(string what)
        {
            long value = I64();
            return value > 0 ? value : throw Malformed($"{Capitalized(what)} {value} is not positive.");
        }

        /// <summary>A count, bounded by <paramref name="max"/> and by what the remaining bytes can hold.</summary>
        public int Count(int max, int minBytesEach)
        {
            int count = U16();
            if (count > max)
            {
                throw new DomainProtocolException(DomainProtocolError.TooLarge, FormattableString.Invariant($"Count {count} exceeds {max}."));
            }

            if ((long)count * minBytesEach > Remaining)
            {
                throw Malformed($"Count {count} needs more bytes than the {Remaining} left.");
            }

            return count;
        }

        public string Text()
        {
            int length = U16();
            if (length > MaxText)
            {
                throw new DomainProtocolException(DomainProtocolError.TooLarge, FormattableString.Invariant($"Text of {length} bytes exceeds {MaxText}."));
            }

            var bytes = Take(length);
            try
            {
                return StrictUtf8.GetString(bytes);
            }
            catch (ArgumentException e)
            {
                // DecoderFallbackException derives from ArgumentException.
                throw new DomainProtocolException("Text is not valid UTF-8.", e);
            }
        }

        public int[] CpuList()
        {
            int count = Count(MaxCpus, minBytesEach: 4);
            var cpus = new int[count];
            for (int i = 0; i < count; i++)
            {
                cpus[i] = I32();
                if (!ContinuesCpuList(cpus[i], i, i > 0 ? cpus[i - 1] : -1))
                {
                    throw DomainProtocol.Malformed(CpuListError(cpus[i], i));
                }
            }

            return cpus;
        }

        public readonly void End()
        {
            if (Remaining != 0)
            {
                throw Malformed($"{Remaining} bytes left over after the message.");
            }
        }

        private ReadOnlySpan<byte> Take(int size)
        {
            if (size > Remaining)
            {
                throw Malformed($"Message ends early: {size} bytes needed, {Remaining} left.");
            }

            var span = _bytes.Slice(_position, size);
            _position += size;
            return span;
        }

        private static DomainProtocolException Malformed(FormattableString message) =>
            new(DomainProtocolError.Malformed, FormattableString.Invariant(message));
    }

    /// <summary>Whether <paramref name="cpu"/>, at <paramref name="index"/> after <paramref name="previous"/>, keeps a CPU list strictly ascending within 0..<see cref="MaxCpuId"/> (the encoder's and the decoder's rule).</summary>
    private static bool ContinuesCpuList(int cpu, int index, int previous) =>
        cpu >= 0 && cpu <= MaxCpuId && (index == 0 || cpu > previous);

    private static string CpuListError(int cpu, int index) =>
        FormattableString.Invariant($"CPU list must ascend strictly within 0..{MaxCpuId}: {cpu} at index {index}.");

    private static string Capitalized(string what) => char.ToUpperInvariant(what[0]) + what[1..];
}
#endif
