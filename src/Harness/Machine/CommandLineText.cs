using System.Text;

namespace DivCon.Harness.Machine;

/// <summary>Renders a command line so it can be pasted back into a POSIX shell.</summary>
public static class CommandLineText
{
    /// <summary>
    /// The current process's command line (<see cref="Environment.GetCommandLineArgs"/>), quoted; prefixed with
    /// "dotnet" when the process is the dotnet host running an assembly.
    /// </summary>
    /// <returns>The text.</returns>
    public static string Current()
    {
        string[] arguments = Environment.GetCommandLineArgs();
        string host = Path.GetFileNameWithoutExtension(Environment.ProcessPath ?? string.Empty);
        return host.Equals("dotnet", StringComparison.OrdinalIgnoreCase) ? Join(["dotnet", .. arguments]) : Join(arguments);
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
