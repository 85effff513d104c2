using System.ComponentModel;
using System.Diagnostics;

namespace DivCon.Harness.Machine;

/// <summary>Asks git for the current commit; answers "unknown" when git or the repository is missing.</summary>
public static class GitInfo
{
    private static readonly TimeSpan GitTimeout = TimeSpan.FromSeconds(10);

    /// <summary>The short hash of HEAD (<c>git rev-parse --short HEAD</c>).</summary>
    /// <param name="workingDirectory">Where to ask; the current directory when null.</param>
    /// <returns>The hash, or "unknown".</returns>
    public static string ShortCommit(string? workingDirectory = null)
    {
        var start = new ProcessStartInfo("git", ["rev-parse", "--short", "HEAD"])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? Environment.CurrentDirectory,
        };

        try
        {
            using Process? git = Process.Start(start);
            if (git is null)
            {
                return "unknown";
            }

            Task<string> output = git.StandardOutput.ReadToEndAsync();
            Task<string> error = git.StandardError.ReadToEndAsync();
            if (!git.WaitForExit(GitTimeout))
            {
                git.Kill();
                return "unknown";
            }

            string hash = output.GetAwaiter().GetResult().Trim();
            _ = error.GetAwaiter().GetResult();
            return git.ExitCode == 0 && hash.Length > 0 ? hash : "unknown";
        }
        catch (Win32Exception)
        {
            return "unknown"; // git is not installed
        }
        catch (InvalidOperationException)
        {
            return "unknown";
        }
        catch (IOException)
        {
            return "unknown";
        }
    }
}
