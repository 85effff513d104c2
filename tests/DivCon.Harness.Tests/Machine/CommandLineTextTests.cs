using DivCon.Harness.Machine;

namespace DivCon.Harness.Tests.Machine;

public class CommandLineTextTests
{
    [Fact]
    public void Under_dotnet_run_the_stamp_gets_the_command_as_typed()
    {
        string[] parent = ["/usr/share/dotnet/dotnet", "run", "-c", "Release", "--project", "src/Harness", "--", "cyclic", "--name", "my run"];

        string? typed = CommandLineText.FromDotnetRun(parent, ["cyclic", "--name", "my run"]);

        Assert.Equal("dotnet run -c Release --project src/Harness -- cyclic --name 'my run'", typed);
        Assert.Equal("dotnet run -c Release --project src/Harness", CommandLineText.FromDotnetRun(["dotnet", "run", "-c", "Release", "--project", "src/Harness"], []));
    }

    [Fact]
    public void Another_parent_or_other_arguments_give_no_typed_command()
    {
        Assert.Null(CommandLineText.FromDotnetRun(["bash", "-c", "x"], ["cyclic"]));
        Assert.Null(CommandLineText.FromDotnetRun(["dotnet", "test"], []));
        Assert.Null(CommandLineText.FromDotnetRun(["dotnet", "run", "--", "phases"], ["cyclic"]));
        Assert.Null(CommandLineText.FromDotnetRun(null, ["cyclic"]));
    }

    [Fact]
    public void A_program_inside_the_working_directory_is_shown_relative_to_it_and_others_as_given()
    {
        Assert.Equal(Path.Combine("src", "Harness", "h.dll"), CommandLineText.RelativeTo("/repo/src/Harness/h.dll", "/repo"));
        Assert.Equal("/elsewhere/h.dll", CommandLineText.RelativeTo("/elsewhere/h.dll", "/repo"));
        Assert.Equal("/repository/h.dll", CommandLineText.RelativeTo("/repository/h.dll", "/repo"));
        Assert.Equal("h.dll", CommandLineText.RelativeTo("h.dll", "/repo"));
        Assert.Equal("/repo/h.dll", CommandLineText.RelativeTo("/repo/h.dll", string.Empty));
        Assert.Throws<ArgumentNullException>("path", () => CommandLineText.RelativeTo(null!, "/repo"));
    }

    [Fact]
    public void The_harness_outside_the_working_directory_is_shown_by_its_tool_name()
    {
        Assert.Equal("divcon cyclic --name 'my run'", CommandLineText.FromProcess(true, ["/tmp/copy/DivCon.Harness.dll", "cyclic", "--name", "my run"], "/repo"));
        Assert.Equal("divcon phases", CommandLineText.FromProcess(false, ["/opt/tools/DivCon.Harness", "phases"], "/repo"));
        Assert.Equal("dotnet " + Path.Combine("src", "Harness", "bin", "DivCon.Harness.dll") + " cyclic", CommandLineText.FromProcess(true, ["/repo/src/Harness/bin/DivCon.Harness.dll", "cyclic"], "/repo"));
        Assert.Equal("/elsewhere/other.dll x", CommandLineText.FromProcess(false, ["/elsewhere/other.dll", "x"], "/repo"));
        Assert.Equal("dotnet /elsewhere/other.dll", CommandLineText.FromProcess(true, ["/elsewhere/other.dll"], "/repo"));
        Assert.Throws<ArgumentException>("arguments", () => CommandLineText.FromProcess(true, [], "/repo"));
    }

    [Fact]
    public void No_committed_record_names_a_path_outside_the_repository()
    {
        // A record's stamp, setup and logs name the repository's paths relative to its root and the harness by its
        // tool name (FromProcess, the cyclic setup's profile store); a machine's own folders would make the record
        // read differently on every clone.
        string results = Path.Combine(RepositoryRoot(), "results");
        var machinePath = new System.Text.RegularExpressions.Regex(@"(?<![\w.$~-])/(?:work|tmp|root|home|Users|mnt)/");
        string[] text = [".json", ".md", ".svg", ".txt", ".log"];
        var offending = Directory.EnumerateFiles(results, "*", SearchOption.AllDirectories)
            .Where(f => text.Contains(Path.GetExtension(f), StringComparer.OrdinalIgnoreCase))
            .Where(f => !f.Contains(".previous-", StringComparison.Ordinal) && !f.Contains(".partial-", StringComparison.Ordinal)) // set aside by reruns, ignored by git
            .Where(f => machinePath.IsMatch(File.ReadAllText(f)))
            .Select(f => Path.GetRelativePath(results, f))
            .ToList();

        Assert.NotEmpty(Directory.EnumerateFiles(results, "stamp.json", SearchOption.AllDirectories)); // the scan saw the records
        Assert.Empty(offending);
    }

    private static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "DivCon.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("The repository root (DivCon.sln) was not found above the test binaries.");
    }
}
