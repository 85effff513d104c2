using DivCon.Skeletons.Tests.Infrastructure;
using DivCon.Skeletons.Tracing;

namespace DivCon.Skeletons.Tests;

/// <summary>The task-tree recorder rebuilds a run's tree; the file format round-trips and rejects bad files clearly.</summary>
public sealed class TaskTreeTests
{
    [Theory]
    [InlineData(ExecutionEngine.Continuation)]
    [InlineData(ExecutionEngine.ForkJoin)]
    public async Task Recorder_rebuilds_a_complete_binary_tree(ExecutionEngine engine)
    {
        var recorder = new TaskTreeRecorder();
        var program = NonBlockingTests.CompleteBinaryTree(static () => { });

        await program.RunAsync(new IndexRange(0, 32), DivideAndConquerOptions.Default with { Observer = recorder, Engine = engine }).Bounded();
        TaskTree tree = recorder.ToTree(new Dictionary<string, string> { ["program"] = "binary" });

        Assert.Equal(63, tree.Nodes.Count);
        Assert.Equal(32, tree.LeafCount);
        Assert.Equal("binary", tree.Property("program"));
        for (int i = 0; i < tree.Nodes.Count; i++)
        {
            var node = tree.Nodes[i];
            Assert.Equal(i == 0 ? -1 : (i - 1) / 2, node.Parent);
            Assert.Equal(node.Depth < 5 ? 2 : 0, node.ChildCount);
            // A merge starts after the split and after every child's subtree started.
            if (!node.IsLeaf)
            {
                Assert.True(node.MergeStart >= node.Start + node.Work);
                for (int c = node.FirstChild; c < node.FirstChild + node.ChildCount; c++)
                {
                    Assert.True(tree.Nodes[c].Start >= node.Start + node.Work);
                }
            }
        }
    }

    [Fact]
    public async Task Observers_that_do_not_report_nodes_are_called_as_before()
    {
        var phases = new PhaseAggregator();
        Assert.False(DivCon.Skeletons.Engines.OptionalObserverMembers.ReportsNodes(phases));
        await NonBlockingTests.CompleteBinaryTree(static () => { })
            .RunAsync(new IndexRange(0, 8), DivideAndConquerOptions.Default with { Observer = phases }).Bounded();
        Assert.Equal(8, phases.TotalCount(DivideAndConquerPhase.Execute));
    }

    [Fact]
    public void Recorder_without_a_run_says_so()
    {
        var error = Assert.Throws<InvalidOperationException>(() => new TaskTreeRecorder().ToTree());
        Assert.Contains("Nothing was recorded", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void File_round_trip_keeps_every_field(bool compress)
    {
        var tree = Irregular();
        using var stream = new MemoryStream();
        TaskTreeFile.Write(stream, tree, compress);
        stream.Position = 0;

        TaskTree back = TaskTreeFile.Read(stream);

        Assert.Equal(tree.Nodes, back.Nodes);
        Assert.Equal(tree.Properties, back.Properties);
    }

    [Fact]
    public void Cpus_round_trip_and_version_1_files_still_read()
    {
        var tree = Irregular();
        var withCpus = new TaskTree(tree.Nodes.Select((n, i) => n with { Cpu = i % 3, MergeCpu = n.IsLeaf ? -1 : 5 }), tree.Properties);
        using var stream = new MemoryStream();
        TaskTreeFile.Write(stream, withCpus);
        stream.Position = 0;
        Assert.Equal(withCpus.Nodes, TaskTreeFile.Read(stream).Nodes);

        // Version 1 (no CPU fields): magic, version 1, no flags, no properties, one leaf of 5 ns, end marker.
        byte[] v1 = [(byte)'D', (byte)'C', (byte)'T', (byte)'T', 1, 0, 0, 1, 0, 5, 0, 0, (byte)'E', (byte)'N', (byte)'D', (byte)'.', 1];
        using var old = new MemoryStream(v1);
        var leaf = Assert.Single(TaskTreeFile.Read(old).Nodes);
        Assert.Equal(5, leaf.Work);
        Assert.Equal(-1, leaf.Cpu);
    }

    [Fact]
    public void Compressed_body_is_one_standard_zlib_stream_on_every_target()
    {
        // RFC 1950 framing around the plain body: what lets a file written by the netstandard2.0 build (a polyfilled
        // ZLibStream over DeflateStream) read on .NET 10 and the other way round.
        var tree = Irregular();
        byte[] plain = Bytes(tree, compress: false);
        byte[] packed = Bytes(tree, compress: true);

        Assert.Equal(plain.AsSpan(0, 5).ToArray(), packed.AsSpan(0, 5).ToArray()); // magic and version
        Assert.Equal(1, packed[5]); // the compressed flag
        Assert.Equal(8, packed[6] & 0x0F); // CM: deflate
        Assert.Equal(0, ((packed[6] << 8) | packed[7]) % 31); // FCHECK
        Assert.Equal(0, packed[7] & 0x20); // no preset dictionary
        uint trailer = ((uint)packed[^4] << 24) | ((uint)packed[^3] << 16) | ((uint)packed[^2] << 8) | packed[^1];
        Assert.Equal(Adler32(plain.AsSpan(6)), trailer);
    }

    [Fact]
    public void Truncated_file_is_reported_as_truncated()
    {
        byte[] bytes = Bytes(Irregular(), compress: false);
        foreach (int cut in new[] { 6, 10, bytes.Length / 2, bytes.Length - 1 })
        {
            using var stream = new MemoryStream(bytes, 0, cut);
            var error = Assert.Throws<TaskTreeFormatException>(() => TaskTreeFile.Read(stream, "t.dctree"));
            Assert.Contains("'t.dctree' is truncated", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Truncated_compressed_file_is_rejected()
    {
        byte[] bytes = Bytes(Irregular(), compress: true);
        using var stream = new MemoryStream(bytes, 0, bytes.Length / 2);
        var error = Assert.Throws<TaskTreeFormatException>(() => TaskTreeFile.Read(stream, "t.dctree"));
        Assert.Contains("'t.dctree' is", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Wrong_magic_version_and_corrupt_body_are_named()
    {
        byte[] good = Bytes(Irregular(), compress: false);
        byte[] magic = (byte[])good.Clone();
        magic[0] = (byte)'X';
        byte[] version = (byte[])good.Clone();
        version[4] = 99;
        byte[] body = (byte[])good.Clone();
        body[^3] ^= 0x55; // inside the end marker

        Assert.Contains("not a task-tree file", ReadError(magic), StringComparison.Ordinal);
        Assert.Contains("version 99", ReadError(version), StringComparison.Ordinal);
        Assert.Contains("corrupt", ReadError(body), StringComparison.Ordinal);
        Assert.Contains("not a task-tree file", ReadError([]), StringComparison.Ordinal);
    }

    [Fact]
    public void Missing_file_names_the_path()
    {
        string path = Path.Combine(Path.GetTempPath(), $"missing-{Guid.NewGuid():N}.dctree");
        var error = Assert.Throws<FileNotFoundException>(() => TaskTreeFile.Read(path));
        Assert.Contains(path, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Synthetic_shape_has_one_worker_depth_first_times()
    {
        var tree = TaskTree.FromShape(branching: 2, depth: 2, execute: 10, split: 1, merge: 2);
        Assert.Equal(7, tree.Nodes.Count);
        Assert.Equal(4 * 10 + 3 * 1 + 3 * 2, tree.TotalWork);
        Assert.Equal(tree.TotalWork, tree.Elapsed);
        Assert.Equal(1, tree.WorkerCount);
    }

    [Fact]
    public void Median_takes_each_nodes_middle_duration_and_rejects_other_shapes()
    {
        var a = TaskTree.FromChildCounts([2, 0, 0], i => 10, i => 1);
        var b = TaskTree.FromChildCounts([2, 0, 0], i => i == 1 ? 9_000 : 12, i => 3);
        var c = TaskTree.FromChildCounts([2, 0, 0], i => 11, i => 2);

        var median = TaskTree.Median([a, b, c]);

        Assert.Equal([11L, 11L, 11L], median.Nodes.Select(n => n.Work));
        Assert.Equal(2, median.Nodes[0].MergeWork);
        Assert.Throws<ArgumentException>(() => TaskTree.Median([a, TaskTree.FromChildCounts([3, 0, 0, 0], _ => 1, _ => 1)]));
    }

    [Fact]
    public void Invalid_shape_is_rejected_with_the_node()
    {
        var error = Assert.Throws<ArgumentException>(() => TaskTree.FromChildCounts([2, 0], _ => 1, _ => 1));
        Assert.Contains("Node 0", error.Message, StringComparison.Ordinal);
    }

    private static TaskTree Irregular() =>
        TaskTree.FromChildCounts([3, 0, 2, 1, 0, 0, 0], i => 1000 + (i * 777), i => 50 * i, new Dictionary<string, string> { ["program"] = "irregular", ["size"] = "7" });

    private static byte[] Bytes(TaskTree tree, bool compress)
    {
        using var stream = new MemoryStream();
        TaskTreeFile.Write(stream, tree, compress);
        return stream.ToArray();
    }

    private static uint Adler32(ReadOnlySpan<byte> data)
    {
        uint a = 1;
        uint b = 0;
        foreach (byte x in data)
        {
            a = (a + x) % 65521;
            b = (b + a) % 65521;
        }

        return (b << 16) | a;
    }

    private static string ReadError(byte[] bytes)
    {
        using var stream = new MemoryStream(bytes);
        return Assert.Throws<TaskTreeFormatException>(() => TaskTreeFile.Read(stream, "t.dctree")).Message;
    }
}
