using System.Globalization;
using System.IO.Compression;
using System.Text;

namespace DivCon.Skeletons.Tracing;

/// <summary>
/// Reads and writes task trees in the compact binary format described in <c>README.md</c> beside this file
/// (magic <c>DCTT</c>, a version byte, a flags byte, then a varint-coded, delta-coded, optionally deflate-compressed
/// body ending in a check marker).
/// </summary>
/// <remarks>
/// Every way a file can be wrong (missing, not a trace, a newer version, corrupt, truncated) gives one exception
/// type, <see cref="TaskTreeFormatException"/> (or <see cref="FileNotFoundException"/> for a missing file), whose
/// message names the file and the problem.
/// </remarks>
public static class TaskTreeFile
{
    /// <summary>The file name extension of task-tree files.</summary>
    public const string Extension = ".dctree";

    /// <summary>
    /// The format version this code writes (and the newest it reads). Versions 1 (without CPUs) and 2 (without nested
    /// runs) are read too.
    /// </summary>
    public const byte Version = 3;

    // The deepest nesting of nested runs a reader accepts (a bound against corrupt files recursing without end).
    private const int MaxNestingLevel = 64;

    private const byte CompressedFlag = 1;

    private static ReadOnlySpan<byte> Magic => "DCTT"u8;

    private static ReadOnlySpan<byte> EndMarker => "END."u8;

    /// <summary>Writes a tree to a file (replacing it), compressed.</summary>
    /// <param name="path">The file.</param>
    /// <param name="tree">The tree.</param>
    /// <param name="compress">Deflate-compress the body (default true).</param>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The overloads differ in their required first parameter (a path or a stream), so a call never binds to the other one through the optional parameter.")]
    public static void Write(string path, TaskTree tree, bool compress = true)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        using var file = File.Create(path);
        Write(file, tree, compress);
    }

    /// <summary>Writes a tree to a stream (left open).</summary>
    /// <param name="stream">A writable stream.</param>
    /// <param name="tree">The tree.</param>
    /// <param name="compress">Deflate-compress the body.</param>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters",
        Justification = "The overloads differ in their required first parameter (a path or a stream), so a call never binds to the other one through the optional parameter.")]
    public static void Write(Stream stream, TaskTree tree, bool compress = true)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentNullException.ThrowIfNull(tree);
        stream.Write(Magic);
        stream.WriteByte(Version);
        stream.WriteByte(compress ? CompressedFlag : (byte)0);
        if (compress)
        {
            using var deflate = new ZLibStream(stream, CompressionLevel.Optimal, leaveOpen: true);
            WriteBody(deflate, tree);
        }
        else
        {
            WriteBody(stream, tree);
        }
    }

    /// <summary>Reads a tree from a file.</summary>
    /// <param name="path">The file.</param>
    /// <returns>The tree.</returns>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="TaskTreeFormatException">The file is not a valid task tree; the message says why.</exception>
    public static TaskTree Read(string path)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        if (!File.Exists(path))
        {
            throw new FileNotFoundException($"Task-tree file '{path}' does not exist.", path);
        }

        using var file = File.OpenRead(path);
        return Read(file, path);
    }

    /// <summary>Reads a tree from a stream.</summary>
    /// <param name="stream">A readable stream positioned at the start of a task tree.</param>
    /// <param name="name">The name to use in error messages (e.g. the file's path).</param>
    /// <returns>The tree.</returns>
    /// <exception cref="TaskTreeFormatException">The data is not a valid task tree; the message says why.</exception>
    public static TaskTree Read(Stream stream, string name = "stream")
    {
        ArgumentNullException.ThrowIfNull(stream);
        Span<byte> header = stackalloc byte[6];
        int got = stream.ReadAtLeast(header, header.Length, throwOnEndOfStream: false);
        if (got < header.Length || !header[..4].SequenceEqual(Magic))
        {
            throw new TaskTreeFormatException($"'{name}' is not a task-tree file (it does not start with 'DCTT').");
        }

        if (header[4] == 0 || header[4] > Version)
        {
            throw new TaskTreeFormatException($"'{name}' has task-tree format version {header[4]}; this build reads versions 1..{Version}.");
        }

        if ((header[5] & ~CompressedFlag) != 0)
        {
            throw new TaskTreeFormatException($"'{name}' has unknown flags 0x{header[5]:x2}.");
        }

        try
        {
            if ((header[5] & CompressedFlag) != 0)
            {
                using var inflate = new ZLibStream(stream, CompressionMode.Decompress, leaveOpen: true);
                return ReadBody(new BufferedStream(inflate), name, header[4]);
            }

            return ReadBody(stream, name, header[4]);
        }
        catch (TaskTreeFormatException)
        {
            throw;
        }
        catch (EndOfStreamException e)
        {
            throw new TaskTreeFormatException($"'{name}' is truncated: {e.Message}", e);
        }
        catch (Exception e) when (e is InvalidDataException or ArgumentException or OverflowException or DecoderFallbackException)
        {
            throw new TaskTreeFormatException($"'{name}' is corrupt: {e.Message}", e);
        }
    }

    private static void WriteBody(Stream s, TaskTree tree)
    {
        WriteVarint(s, (ulong)tree.Properties.Count);
        foreach (var (key, value) in tree.Properties)
        {
            WriteString(s, key);
            WriteString(s, value);
        }

        WriteTree(s, tree);
    }

    // A tree: its nodes, its nested runs (each followed by its own tree, recursively), the end marker.
    private static void WriteTree(Stream s, TaskTree tree)
    {
        var nodes = tree.Nodes;
        WriteVarint(s, (ulong)nodes.Count);
        long previousStart = 0;
        foreach (var node in nodes)
        {
            // Breadth-first child counts fix the whole shape (parents, depths, child ranges).
            WriteVarint(s, (ulong)node.ChildCount);
            WriteVarint(s, (ulong)node.Work);
            // Starts are delta-coded against the previous node's start (siblings start close together).
            WriteSigned(s, node.Start - previousStart);
            previousStart = node.Start;
            WriteVarint(s, (ulong)node.Worker);
            WriteVarint(s, (ulong)(node.Cpu + 1)); // version 2: CPU + 1, 0 = unknown
            if (!node.IsLeaf)
            {
                WriteVarint(s, (ulong)node.MergeWork);
                WriteSigned(s, node.MergeStart - node.Start);
                WriteVarint(s, (ulong)node.MergeWorker);
                WriteVarint(s, (ulong)(node.MergeCpu + 1));
            }
        }

        // Version 3: the nested runs, in the tree's order.
        WriteVarint(s, (ulong)tree.NestedRuns.Count);
        foreach (var run in tree.NestedRuns)
        {
            WriteVarint(s, (ulong)run.Node);
            WriteVarint(s, run.Phase == DivideAndConquerPhase.Merge ? 1UL : 0UL);
            WriteVarint(s, (ulong)run.WorkBefore);
            WriteTree(s, run.Tree);
        }

        s.Write(EndMarker);
        WriteVarint(s, (ulong)nodes.Count);
    }

    private static TaskTree ReadBody(Stream s, string name, byte version)
    {
        int propertyCount = ReadCount(s, "property count", 1 << 16);
        var properties = new Dictionary<string, string>(StringComparer.Ordinal);
        for (int i = 0; i < propertyCount; i++)
        {
            string key = ReadString(s);
            if (!properties.TryAdd(key, ReadString(s)))
            {
                throw new TaskTreeFormatException($"'{name}' is corrupt: property '{key}' appears twice.");
            }
        }

        return ReadTree(s, name, version, properties, level: 0, where: string.Empty);
    }

    private static TaskTree ReadTree(Stream s, string name, byte version, Dictionary<string, string>? properties, int level, string where)
    {
        int count = ReadCount(s, "node count", int.MaxValue - 1);
        if (count == 0)
        {
            throw new TaskTreeFormatException($"'{name}' is corrupt: {where}it has no nodes.");
        }

        var childCounts = new int[count];
        var raw = new (long Work, long Start, int Worker, int Cpu, long MergeWork, long MergeStart, int MergeWorker, int MergeCpu)[count];
        long start = 0;
        int reachable = 1;
        for (int i = 0; i < count; i++)
        {
            try
            {
                int children = ReadCount(s, "child count", count);
                if (i >= reachable || children > count - reachable)
                {
                    throw new TaskTreeFormatException($"'{name}' is corrupt: {where}node {i} of {count} does not fit the tree shape.");
                }

                reachable += children;
                childCounts[i] = children;
                long work = ReadLong(s);
                start += ReadSigned(s);
                int worker = ReadCount(s, "worker", int.MaxValue);
                int cpu = version >= 2 ? ReadCount(s, "CPU", int.MaxValue) - 1 : -1;
                if (children == 0)
                {
                    raw[i] = (work, start, worker, cpu, 0, -1, -1, -1);
                }
                else
                {
                    long mergeWork = ReadLong(s);
                    long mergeStart = start + ReadSigned(s);
                    int mergeWorker = ReadCount(s, "worker", int.MaxValue);
                    int mergeCpu = version >= 2 ? ReadCount(s, "CPU", int.MaxValue) - 1 : -1;
                    raw[i] = (work, start, worker, cpu, mergeWork, mergeStart, mergeWorker, mergeCpu);
                }
            }
            catch (EndOfStreamException)
            {
                throw new TaskTreeFormatException(string.Create(CultureInfo.InvariantCulture, $"'{name}' is truncated: {where}it ends in node {i} of {count}."));
            }
        }

        var nested = new List<TaskTreeNestedRun>();
        if (version >= 3)
        {
            int nestedCount;
            try
            {
                nestedCount = ReadCount(s, "nested run count", int.MaxValue);
            }
            catch (EndOfStreamException)
            {
                throw new TaskTreeFormatException($"'{name}' is truncated: {where}the nested run count is missing after {count} nodes.");
            }

            for (int r = 0; r < nestedCount; r++)
            {
                string runWhere = string.Create(CultureInfo.InvariantCulture, $"{where}nested run {r} of {nestedCount}: ");
                int node;
                ulong phase;
                long before;
                try
                {
                    node = ReadCount(s, "host node", count - 1);
                    phase = ReadVarint(s);
                    before = ReadLong(s);
                }
                catch (EndOfStreamException)
                {
                    throw new TaskTreeFormatException($"'{name}' is truncated: {runWhere}it ends in the run's header.");
                }

                if (phase > 1)
                {
                    throw new TaskTreeFormatException(string.Create(CultureInfo.InvariantCulture, $"'{name}' is corrupt: {runWhere}phase {phase} is neither split (0) nor merge (1)."));
                }

                if (level + 1 > MaxNestingLevel)
                {
                    throw new TaskTreeFormatException(string.Create(CultureInfo.InvariantCulture, $"'{name}' is corrupt: {runWhere}nested runs go deeper than {MaxNestingLevel} levels."));
                }

                var tree = ReadTree(s, name, version, null, level + 1, runWhere);
                nested.Add(new TaskTreeNestedRun(node, phase == 1 ? DivideAndConquerPhase.Merge : DivideAndConquerPhase.Split, before, tree));
            }
        }

        Span<byte> end = stackalloc byte[4];
        if (s.ReadAtLeast(end, 4, throwOnEndOfStream: false) < 4)
        {
            throw new TaskTreeFormatException($"'{name}' is truncated: {where}the end marker is missing after {count} nodes.");
        }

        if (!end.SequenceEqual(EndMarker) || ReadCount(s, "node count", int.MaxValue) != count)
        {
            throw new TaskTreeFormatException($"'{name}' is corrupt: {where}the end marker does not match the {count} nodes read.");
        }

        var nodes = TaskTree.Structure(childCounts);
        for (int i = 0; i < count; i++)
        {
            var r = raw[i];
            nodes[i] = nodes[i] with { Work = r.Work, Start = r.Start, Worker = r.Worker, Cpu = r.Cpu, MergeWork = r.MergeWork, MergeStart = r.MergeStart, MergeWorker = r.MergeWorker, MergeCpu = r.MergeCpu };
        }

        var result = new TaskTree(nodes, properties);
        return nested.Count == 0 ? result : result.WithNestedRuns(nested);
    }

    private static void WriteVarint(Stream s, ulong value)
    {
        // LEB128: 7 bits per byte, low bits first, high bit set on every byte but the last.
        while (value >= 0x80)
        {
            s.WriteByte((byte)(value | 0x80));
            value >>= 7;
        }

        s.WriteByte((byte)value);
    }

    // Zigzag: small magnitudes of either sign become small unsigned numbers.
    private static void WriteSigned(Stream s, long value) => WriteVarint(s, (ulong)((value << 1) ^ (value >> 63)));

    private static void WriteString(Stream s, string value)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(value);
        WriteVarint(s, (ulong)bytes.Length);
        s.Write(bytes);
    }

    private static ulong ReadVarint(Stream s)
    {
        ulong value = 0;
        for (int shift = 0; shift < 64; shift += 7)
        {
            int b = s.ReadByte();
            if (b < 0)
            {
                throw new EndOfStreamException("the data ends inside a number.");
            }

            value |= (ulong)(b & 0x7f) << shift;
            if ((b & 0x80) == 0)
            {
                return value;
            }
        }

        throw new InvalidDataException("a number is longer than 64 bits.");
    }

    private static long ReadLong(Stream s)
    {
        ulong v = ReadVarint(s);
        return v <= long.MaxValue ? (long)v : throw new InvalidDataException($"duration {v} is out of range.");
    }

    private static long ReadSigned(Stream s)
    {
        ulong v = ReadVarint(s);
        return (long)(v >> 1) ^ -(long)(v & 1);
    }

    private static int ReadCount(Stream s, string what, int max)
    {
        ulong v = ReadVarint(s);
        return v <= (ulong)max ? (int)v : throw new InvalidDataException($"{what} {v} is larger than {max}.");
    }

    private static string ReadString(Stream s)
    {
        int length = ReadCount(s, "string length", 1 << 20);
        byte[] bytes = new byte[length];
        s.ReadExactly(bytes);
        return new UTF8Encoding(false, throwOnInvalidBytes: true).GetString(bytes);
    }
}
