#:project ../src/Skeletons/DivCon.Skeletons.csproj
#:property PublishAot=false

// Prints the phase profile of recorded task trees: per file the leaf count, the split, merge and execute shares of
// the total work (a nested run counts with the phase that started it), and per depth the nodes, leaves and the
// split and merge work as a share of the total. What the machine descriptions' splitShare / mergeShare are compared
// with (machines/README.md, "Phase profile").
// Usage: dotnet run scripts/phase-profile.cs -c Release -- <trace file or folder> [...]
// What-if copies: ... -- --scale-split <depth> <factor> <from file> <to file> writes a copy whose splits at that depth
// (own work of the main tree's nodes) are multiplied by the factor: another per-level distribution of the same phase.
using System.Globalization;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

if (args.Length == 0)
{
    Console.Error.WriteLine("usage: phase-profile.cs <trace file or folder> [...] | --scale-split <depth> <factor> <from> <to>");
    return 1;
}

var inv = CultureInfo.InvariantCulture;
if (args[0] == "--scale-split")
{
    int depth = int.Parse(args[1], inv);
    double factor = double.Parse(args[2], inv);
    var source = TaskTreeFile.Read(args[3]);
    var nodes = source.Nodes.Select(n => !n.IsLeaf && n.Depth == depth ? n with { Work = (long)Math.Round(n.Work * factor) } : n).ToList();
    var copy = new TaskTree(nodes, source.Properties);
    TaskTreeFile.Write(args[4], source.NestedRuns.Count == 0 ? copy : copy.WithNestedRuns(source.NestedRuns));
    Console.WriteLine(string.Create(inv, $"{args[4]}: splits at depth {depth} x {factor}"));
    return 0;
}

foreach (string arg in args)
{
    IEnumerable<string> files = Directory.Exists(arg) ? Directory.EnumerateFiles(arg, "*" + TaskTreeFile.Extension).Order(StringComparer.Ordinal) : [arg];
    foreach (string path in files)
    {
        var tree = TaskTreeFile.Read(path);
        var nested = new long[tree.Nodes.Count, 2];
        foreach (var run in tree.NestedRuns)
        {
            nested[run.Node, run.Phase == DivideAndConquerPhase.Merge ? 1 : 0] += run.Tree.TotalWork;
        }

        var levels = new SortedDictionary<int, (int Nodes, int Leaves, long Split, long Merge, long Execute)>();
        long split = 0, merge = 0, execute = 0;
        for (int i = 0; i < tree.Nodes.Count; i++)
        {
            var n = tree.Nodes[i];
            levels.TryGetValue(n.Depth, out var l);
            if (n.IsLeaf)
            {
                execute += n.Work;
                l = (l.Nodes + 1, l.Leaves + 1, l.Split, l.Merge, l.Execute + n.Work);
            }
            else
            {
                long s = n.Work + nested[i, 0], m = n.MergeWork + nested[i, 1];
                split += s;
                merge += m;
                l = (l.Nodes + 1, l.Leaves, l.Split + s, l.Merge + m, l.Execute);
            }

            levels[n.Depth] = l;
        }

        double total = split + merge + execute;
        Console.WriteLine(string.Create(inv,
            $"{Path.GetFileName(path)}: {tree.LeafCount} leaves, {tree.NestedRuns.Count} nested runs, total {total / 1e9:F3} s; split {split / total:P1}, merge {merge / total:P1}, execute {execute / total:P1}"));
        Console.WriteLine("  depth  nodes  leaves  split%  merge%  execute%");
        foreach (var (depth, l) in levels)
        {
            Console.WriteLine(string.Create(inv, $"  {depth,5} {l.Nodes,6} {l.Leaves,7} {100 * l.Split / total,7:F2} {100 * l.Merge / total,7:F2} {100 * l.Execute / total,9:F2}"));
        }
    }
}

return 0;
