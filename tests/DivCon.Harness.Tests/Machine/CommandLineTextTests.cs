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
}
