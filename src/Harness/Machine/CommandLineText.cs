using System.Text;

namespace DivCon.Harness.Machine;

/// <summary>Renders a command line so it can be pasted back into a POSIX shell.</summary>
public static class CommandLineText
{
    /// <summary>
    /// The current process's command line as the user typed it, quoted: the parent's <c>dotnet run ... -- args</c> when
    /// the harness was started by <c>dotnet run</c> (read from <c>/proc</c> on Linux), otherwise
    /// <see cref="Environment.GetCommandLineArgs"/>, prefixed with "dotnet" when the process is the dotnet host running
    /// an assembly.
    /// </summary>
    /// <returns>The text.</returns>
    public static string Current()
    {
        string[] arguments = Environment.GetCommandLineArgs();
        if (FromDotnetRun(ParentArguments(), arguments[1..]) is { } typed)
        {
            return typed;
        }

        bool dotnetHost = Path.GetFileNameWithoutExtension(Environment.ProcessPath ?? string.Empty).Equals("dotnet", StringComparison.OrdinalIgnoreCase);
        return FromProcess(dotnetHost, arguments, Environment.CurrentDirectory);
    }

    /// <summary>
    /// A process's command line as a stamp shows it: the program relative to <paramref name="directory"/> when it lies
    /// inside it (<see cref="RelativeTo"/>), prefixed with "dotnet" when the dotnet host runs it; the harness's own
    /// assembly outside the directory (a copy of the build, an installed tool) as its tool name <c>divcon</c>, so that
    /// a stamp never records a machine's paths outside the repository and still names the same program.
    /// </summary>
    /// <param name="dotnetHost">Whether the process is the dotnet host running an assembly.</param>
    /// <param name="arguments">The process's argv, program first.</param>
    /// <param name="directory">The working directory.</param>
    /// <returns>The text.</returns>
    /// <exception cref="ArgumentException"><paramref name="arguments"/> is empty.</exception>
    public static string FromProcess(bool dotnetHost, IReadOnlyList<string> arguments, string directory)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        ArgumentNullException.ThrowIfNull(directory);
        if (arguments.Count == 0)
        {
            throw new ArgumentException("A command line has at least its program.", nameof(arguments));
        }

        string program = RelativeTo(arguments[0], directory);
        if (Path.IsPathRooted(program) && IsHarness(Path.GetFileName(program)))
        {
            return Join([ToolName, .. arguments.Skip(1)]);
        }

        return dotnetHost ? Join(["dotnet", program, .. arguments.Skip(1)]) : Join([program, .. arguments.Skip(1)]);
    }

    /// <summary>Whether a program file is the harness: its assembly, or its apphost (no extension, or .exe).</summary>
    private static bool IsHarness(string fileName) =>
        fileName.Equals(HarnessAssembly, StringComparison.OrdinalIgnoreCase)
        || fileName.Equals(HarnessAssembly + ".dll", StringComparison.OrdinalIgnoreCase)
        || fileName.Equals(HarnessAssembly + ".exe", StringComparison.OrdinalIgnoreCase);

    /// <summary>The harness's assembly name (its file name without extension).</summary>
    private const string HarnessAssembly = "DivCon.Harness";

    /// <summary>The harness's command as a .NET tool (the project's <c>ToolCommandName</c>).</summary>
    private const string ToolName = "divcon";

    /// <summary>
    /// <paramref name="path"/> relative to <paramref name="directory"/> when it lies inside it (a stamp then reads the
    /// same on every clone: <c>dotnet src/Harness/bin/...</c>, not the machine's absolute path), else unchanged.
    /// </summary>
    /// <param name="path">A program path, absolute or not.</param>
    /// <param name="directory">The working directory.</param>
    /// <returns>The relative path, or <paramref name="path"/>.</returns>
    public static string RelativeTo(string path, string directory)
    {
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(directory);
        if (!Path.IsPathRooted(path) || directory.Length == 0)
        {
            return path;
        }

        string relative = Path.GetRelativePath(directory, path);
        return relative.StartsWith("..", StringComparison.Ordinal) || Path.IsPathRooted(relative) ? path : relative;
    }

    /// <summary>
    /// The command typed to start this process when its parent is <c>dotnet run</c> passing it exactly
    /// <paramref name="ownArguments"/> (after <c>--</c>, or none); null otherwise.
    /// </summary>
    /// <param name="parentArguments">The parent's argv (program first), or null when unknown.</param>
    /// <param name="ownArguments">This process's arguments (without its program).</param>
    /// <returns>The typed command, its program shown as <c>dotnet</c>, or null.</returns>
    public static string? FromDotnetRun(IReadOnlyList<string>? parentArguments, IReadOnlyList<string> ownArguments)
    {
        ArgumentNullException.ThrowIfNull(ownArguments);
        if (parentArguments is not { Count: >= 2 }
            || !Path.GetFileNameWithoutExtension(parentArguments[0]).Equals("dotnet", StringComparison.OrdinalIgnoreCase)
            || parentArguments[1] != "run")
        {
            return null;
        }

        int separator = parentArguments.ToList().IndexOf("--");
        IEnumerable<string> passed = separator < 0 ? [] : parentArguments.Skip(separator + 1);
        return passed.SequenceEqual(ownArguments, StringComparer.Ordinal) ? Join(["dotnet", .. parentArguments.Skip(1)]) : null;
    }

    /// <summary>The parent process's argv on Linux (<c>/proc</c>); null elsewhere or when unreadable.</summary>
    private static string[]? ParentArguments()
    {
        try
        {
            if (!OperatingSystem.IsLinux())
            {
                return null;
            }

            string? parent = File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("PPid:", StringComparison.Ordinal))?[5..].Trim();
            return parent is null ? null : File.ReadAllText($"/proc/{parent}/cmdline").TrimEnd('\0').Split('\0');
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null; // the parent has exited or hides its command line: fall back to this process's own
        }
    }

    /// <summary>Joins arguments with spaces, single-quoting those a shell would split or expand.</summary>
    /// <param name="arguments">The arguments.</param>
    /// <returns>The text.</returns>
    public static string Join(IEnumerable<string> arguments)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        return string.Join(' ', arguments.Select(Quote));
    }

    private static string Quote(string argument)
    {
        if (argument.Length > 0 && argument.All(c => char.IsAsciiLetterOrDigit(c) || "-_./=:,+@%".Contains(c, StringComparison.Ordinal)))
        {
            return argument;
        }

        // Inside single quotes nothing is special except the quote itself: close, escape it, reopen.
        var quoted = new StringBuilder("'");
        quoted.Append(argument.Replace("'", "'\\''", StringComparison.Ordinal));
        return quoted.Append('\'').ToString();
    }
}
