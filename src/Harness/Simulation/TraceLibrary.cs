using System.Globalization;
using DivCon.Simulator;
using DivCon.Skeletons.Tracing;

namespace DivCon.Harness.Simulation;

/// <summary>
/// A folder of recorded task trees, named <c>{program}-w{workers}-g{granularityCores}.dctree</c>: the program, the
/// workers it was recorded on, and the core count its automatic granularity was sized for (4 leaves per core).
/// </summary>
public static class TraceLibrary
{
    /// <summary>The file name of a trace.</summary>
    /// <param name="program">Program name.</param>
    /// <param name="workers">Workers it ran on.</param>
    /// <param name="granularityCores">Cores its granularity was sized for.</param>
    /// <returns>The name.</returns>
    public static string FileName(string program, int workers, int granularityCores) =>
        string.Create(CultureInfo.InvariantCulture, $"{program}-w{workers}-g{granularityCores}{TaskTreeFile.Extension}");

    /// <summary>
    /// Loads the trace of <paramref name="program"/> best suited to simulating <paramref name="cores"/> cores:
    /// recorded on <paramref name="workers"/> workers, with the granularity sized for the core count nearest
    /// <paramref name="cores"/> (on a log scale; ties to the larger).
    /// </summary>
    /// <param name="folder">The trace folder.</param>
    /// <param name="program">Program name.</param>
    /// <param name="workers">Recording workers.</param>
    /// <param name="cores">Simulated cores.</param>
    /// <param name="coarsenBelowNs">Coarsening threshold for the graph.</param>
    /// <param name="flattenBelowNs">Flattening threshold for the graph.</param>
    /// <param name="clampOutliers">Outlier clamping factor for the graph (0: off).</param>
    /// <returns>The program and the path it came from.</returns>
    /// <exception cref="IOException">The folder is missing or a file, a matching trace is missing, or the trace is
    /// unreadable or corrupt; one line names the folder or file and the <c>trace</c> command that would make it (the
    /// environment's error: exit code 2 in the CLI).</exception>
    public static (SimulatedProgram Program, string Path, TaskTree Tree) Load(string folder, string program, int workers, int cores, long coarsenBelowNs, long flattenBelowNs = 0, double clampOutliers = 0)
    {
        if (File.Exists(folder))
        {
            throw new IOException($"Trace folder '{folder}' is a file, not a folder of .dctree files; record traces with: trace --programs {program} --out <folder>.");
        }

        if (!Directory.Exists(folder))
        {
            throw new DirectoryNotFoundException($"Trace folder '{folder}' does not exist; record traces with: trace --programs {program} --out {folder}.");
        }

        string prefix = string.Create(CultureInfo.InvariantCulture, $"{program}-w{workers}-g");
        var candidates = Directory.EnumerateFiles(folder, prefix + "*" + TaskTreeFile.Extension)
            .Select(path => (Path: path, Cores: int.TryParse(System.IO.Path.GetFileNameWithoutExtension(path)[prefix.Length..], NumberStyles.None, CultureInfo.InvariantCulture, out int g) ? g : -1))
            .Where(c => c.Cores > 0)
            .OrderBy(c => Math.Abs(Math.Log((double)c.Cores / cores)))
            .ThenByDescending(c => c.Cores)
            .ToList();
        if (candidates.Count == 0)
        {
            throw new FileNotFoundException(
                $"No trace of '{program}' recorded on {workers} worker(s) in '{folder}' (expected {FileName(program, workers, cores)}); record it with: trace --programs {program} --workers {workers} --granularity-cores {cores} --out {folder}.");
        }

        string path = candidates[0].Path;
        TaskTree tree;
        try
        {
            tree = TaskTreeFile.Read(path);
        }
        catch (Exception e) when (e is TaskTreeFormatException or InvalidDataException or IOException or UnauthorizedAccessException or OverflowException)
        {
            // A truncated or corrupt file may fail in the format's checks or in the reader beneath them.
            throw new IOException(
                $"Cannot read trace {path}: {e.Message} Record it again with: trace --programs {program} --workers {workers} --granularity-cores {candidates[0].Cores} --out {folder}.", e);
        }

        return (new SimulatedProgram(program, TaskGraph.FromTree(tree, coarsenBelowNs, flattenBelowNs, clampOutliers)), path, tree);
    }
}
