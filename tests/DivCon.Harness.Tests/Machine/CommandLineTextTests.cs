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
}
