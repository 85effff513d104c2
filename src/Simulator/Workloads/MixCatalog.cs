using DivCon.Skeletons.Tracing;

namespace DivCon.Simulator.Workloads;

/// <summary>
/// Turns <see cref="Mix"/>es into simulated workloads for one core count: loads each recorded program's tree once
/// (through the loader, which picks the trace recorded for that core count), cuts subproblems and builds graphs once
/// per (program, path) and per phased shape, so every mix and scheme shares them (and the simulator's cache of alone
/// times keyed by graph serves them all). Thread-safe.
/// </summary>
/// <param name="load">The recorded tree of a program (a trace name).</param>
/// <param name="toGraph">How a tree becomes a graph (e.g. with the simulator's coarsening and clamping); default <see cref="TaskGraph.FromTree"/>.</param>
public sealed class MixCatalog(Func<string, TaskTree> load, Func<TaskTree, TaskGraph>? toGraph = null)
{
    private readonly Func<string, TaskTree> _load = load ?? throw new ArgumentNullException(nameof(load));
    private readonly Func<TaskTree, TaskGraph> _toGraph = toGraph ?? (t => TaskGraph.FromTree(t));
    private readonly Dictionary<string, TaskTree> _trees = new(StringComparer.Ordinal);
    private readonly Dictionary<string, TaskGraph> _graphs = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();

    /// <summary>The mix's programs, ready to simulate (arrivals and departures set).</summary>
    /// <param name="mix">The mix.</param>
    /// <returns>The programs, in the mix's order.</returns>
    public IReadOnlyList<SimulatedProgram> Programs(Mix mix)
    {
        ArgumentNullException.ThrowIfNull(mix);
        return [.. mix.Programs.Select(p => new SimulatedProgram(p.Name, Graph(p)) { Arrival = p.Arrival, MaxRuns = p.MaxRuns, LeaveAt = p.LeaveAt })];
    }

    /// <summary>The graph of one program of a mix (shared by every mix that draws the same program, size or shape).</summary>
    /// <param name="program">The program.</param>
    /// <returns>The graph.</returns>
    public TaskGraph Graph(MixProgram program)
    {
        ArgumentNullException.ThrowIfNull(program);
        string key = program.Phased is { } shape
            ? shape.ToString()
            : program.Program + "|" + string.Join(",", program.Path.Select(u => u.ToString("R", System.Globalization.CultureInfo.InvariantCulture)));
        lock (_gate)
        {
            if (_graphs.TryGetValue(key, out var graph))
            {
                return graph;
            }

            TaskTree tree;
            if (program.Phased is { } phased)
            {
                tree = phased.ToTree();
            }
            else
            {
                if (!_trees.TryGetValue(program.Program, out var whole))
                {
                    _trees[program.Program] = whole = _load(program.Program);
                }

                tree = Subproblem.Of(whole, program.Path);
            }

            return _graphs[key] = _toGraph(tree);
        }
    }
}
