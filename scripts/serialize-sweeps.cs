#:project ../src/Skeletons/DivCon.Skeletons.csproj
#:property PublishAot=false

// Derives task trees of the thesis forms (quicksort-thesis, mergesort-thesis, strassen-thesis: every sweep one
// sequential task) from recorded trees of the default forms, whose long sweeps are nested runs of parallel blocks:
// each nested run is folded into the split or merge that started it, whose duration becomes its own work plus the
// nested run's total work (recursively), as if the blocks had run one after another inside that phase. Timing of the
// rest of the tree is kept. For a trace folder recorded on a quiet machine, this gives the thesis forms' trees
// without re-recording them on a loaded one; the blocks' work is an estimate of the sequential sweep (the parallel
// partition of quicksort reads its range twice, a sequential one once; the merges and matrix sums do the same work).
// Usage: dotnet run scripts/serialize-sweeps.cs -c Release -- <from folder> <to folder> [programs=strassen,quicksort,mergesort]
using System.Globalization;
using DivCon.Skeletons;
using DivCon.Skeletons.Tracing;

if (args.Length < 2)
{
    Console.Error.WriteLine("usage: serialize-sweeps.cs <from folder> <to folder> [programs]");
    return 1;
}

string from = args[0];
string to = args[1];
string[] programs = (args.Length > 2 ? args[2] : "strassen,quicksort,mergesort").Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
Directory.CreateDirectory(to);
foreach (string program in programs)
{
    foreach (string path in Directory.EnumerateFiles(from, program + "-w*-g*" + TaskTreeFile.Extension).Order(StringComparer.Ordinal))
    {
        var tree = TaskTreeFile.Read(path);
        var serial = Serialize(tree);
        var properties = serial.Properties.ToDictionary(StringComparer.Ordinal);
        properties["derivedFrom"] = Path.GetFileName(path);
        properties["derivation"] = "nested sweep runs folded into their host split or merge (scripts/serialize-sweeps.cs)";
        var result = new TaskTree(serial.Nodes, properties);
        string name = Path.GetFileName(path).Replace(program + "-", program + "-thesis-", StringComparison.Ordinal);
        TaskTreeFile.Write(Path.Combine(to, name), result);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{name}: {tree.TotalNodeCount} nodes -> {result.Nodes.Count}; work {tree.TotalWork / 1e6:F1} ms -> {result.TotalWork / 1e6:F1} ms; root split {tree.Nodes[0].Work / 1e6:F2} -> {result.Nodes[0].Work / 1e6:F2} ms, root merge {tree.Nodes[0].MergeWork / 1e6:F2} -> {result.Nodes[0].MergeWork / 1e6:F2} ms"));
    }
}

return 0;

// The tree without nested runs: each host phase's duration grows by its nested runs' total work (theirs included).
static TaskTree Serialize(TaskTree tree)
{
    var nodes = tree.Nodes.ToArray();
    foreach (var run in tree.NestedRuns)
    {
        long work = Serialize(run.Tree).TotalWork;
        var node = nodes[run.Node];
        nodes[run.Node] = run.Phase == DivideAndConquerPhase.Split
            ? node with { Work = node.Work + work }
            : node with { MergeWork = node.MergeWork + work };
    }

    return new TaskTree(nodes, tree.Properties);
}
