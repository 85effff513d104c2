using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports;

/// <summary>
/// One experiment's output folder, <c>results/&lt;experiment&gt;/</c>, created with its <c>stamp.json</c>
/// sidecar (the stamp every file in the folder shares; the CSV files rely on it).
/// </summary>
public sealed class ResultsFolder
{
    /// <summary>Name of the sidecar stamp file.</summary>
    public const string StampFileName = "stamp.json";

    private ResultsFolder(string path, string experiment, RunStamp stamp)
    {
        Path = path;
        Experiment = experiment;
        Stamp = stamp;
    }

    /// <summary>Full path of the folder.</summary>
    public string Path { get; }

    /// <summary>The experiment's name (the folder's name).</summary>
    public string Experiment { get; }

    /// <summary>The stamp shared by every file written here.</summary>
    public RunStamp Stamp { get; }

    /// <summary>Creates (or reuses) <c>&lt;resultsRoot&gt;/&lt;experiment&gt;/</c> and writes its stamp.json.</summary>
    /// <param name="resultsRoot">The results directory (e.g. "results").</param>
    /// <param name="experiment">Experiment name: letters, digits, '-', '_' and '.' only, not "." or "..".</param>
    /// <param name="stamp">The run's stamp.</param>
    /// <returns>The folder.</returns>
    /// <exception cref="ArgumentException">The experiment name is empty or would escape the results directory.</exception>
    public static ResultsFolder Create(string resultsRoot, string experiment, RunStamp stamp)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(resultsRoot);
        ValidateName(experiment);
        return CreateAt(System.IO.Path.Combine(resultsRoot, experiment), experiment, stamp);
    }

    /// <summary>Creates (or reuses) the folder at <paramref name="path"/> for <paramref name="experiment"/> and writes
    /// its stamp.json; used for a staging folder that is renamed to the experiment's name when the run succeeds
    /// (see <see cref="StagedResultsFolder"/>).</summary>
    /// <param name="path">The folder.</param>
    /// <param name="experiment">Experiment name (see <see cref="Create"/>).</param>
    /// <param name="stamp">The run's stamp.</param>
    /// <returns>The folder.</returns>
    /// <exception cref="ArgumentException">A bad path or experiment name.</exception>
    public static ResultsFolder CreateAt(string path, string experiment, RunStamp stamp)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        ValidateName(experiment);
        ArgumentNullException.ThrowIfNull(stamp);
        string full = System.IO.Path.GetFullPath(path);
        Directory.CreateDirectory(full);
        using (FileStream stream = File.Create(System.IO.Path.Combine(full, StampFileName)))
        {
            System.Text.Json.JsonSerializer.Serialize(stream, stamp, JsonReport.Options);
        }

        return new ResultsFolder(full, experiment, stamp);
    }

    /// <summary>Checks an experiment folder name.</summary>
    /// <param name="experiment">Letters, digits, '-', '_' and '.' only, not "." or "..".</param>
    /// <exception cref="ArgumentException">The name is empty or would escape the results directory.</exception>
    public static void ValidateName(string experiment)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(experiment);
        if (experiment is "." or ".." || !experiment.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.'))
        {
            throw new ArgumentException($"'{experiment}' is not a valid experiment folder name (letters, digits, '-', '_', '.').", nameof(experiment));
        }
    }

    /// <summary>The full path of a file in this folder.</summary>
    /// <param name="fileName">A plain file name (no directories).</param>
    /// <returns>The path.</returns>
    /// <exception cref="ArgumentException">The name is empty or contains a directory part.</exception>
    public string PathOf(string fileName)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(fileName);
        if (System.IO.Path.GetFileName(fileName) != fileName || fileName is "." or "..")
        {
            throw new ArgumentException($"'{fileName}' must be a plain file name.", nameof(fileName));
        }

        return System.IO.Path.Combine(Path, fileName);
    }

    /// <summary>Writes a text file into the folder (UTF-8, no BOM).</summary>
    /// <param name="fileName">A plain file name.</param>
    /// <param name="write">Writes the content.</param>
    /// <returns>The file's full path.</returns>
    public string WriteText(string fileName, Action<TextWriter> write)
    {
        ArgumentNullException.ThrowIfNull(write);
        string path = PathOf(fileName);
        using var writer = new StreamWriter(path, append: false, new System.Text.UTF8Encoding(encoderShouldEmitUTF8Identifier: false));
        write(writer);
        return path;
    }

    /// <summary>Writes a stamped JSON file into the folder.</summary>
    /// <typeparam name="T">The data's type.</typeparam>
    /// <param name="fileName">A plain file name.</param>
    /// <param name="data">The data.</param>
    /// <returns>The file's full path.</returns>
    public string WriteJson<T>(string fileName, T data)
    {
        string path = PathOf(fileName);
        using FileStream stream = File.Create(path);
        JsonReport.Write(stream, Stamp, data);
        return path;
    }
}
