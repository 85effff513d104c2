namespace DivCon.Schedulers.Tests;

/// <summary>A throw-away directory tree standing for /sys or /sys/fs/cgroup, deleted on dispose.</summary>
internal sealed class SysfsFixture : IDisposable
{
    public SysfsFixture()
    {
        Root = Path.Combine(Path.GetTempPath(), "divcon-sysfs-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Root);
    }

    public string Root { get; }

    public void Write(string relativePath, string content)
    {
        string path = Path.Combine(Root, relativePath);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, content + "\n");
    }

    /// <summary>
    /// Two packages of two cores with two hardware threads each, numbered the Linux way: CPUs 0-3 are the first
    /// threads (package 0: 0,1; package 1: 2,3) and 4-7 their SMT siblings. One L3 and one NUMA node per package.
    /// </summary>
    public static SysfsFixture TwoPackagesWithSmt()
    {
        var fixture = new SysfsFixture();
        for (int cpu = 0; cpu < 8; cpu++)
        {
            int first = cpu % 4;
            int package = first / 2;
            int core = first % 2;
            string dir = $"devices/system/cpu/cpu{cpu}";
            fixture.Write($"{dir}/topology/physical_package_id", package.ToString(System.Globalization.CultureInfo.InvariantCulture));
            fixture.Write($"{dir}/topology/core_id", core.ToString(System.Globalization.CultureInfo.InvariantCulture));
            fixture.Write($"{dir}/cache/index0/level", "1");
            fixture.Write($"{dir}/cache/index0/shared_cpu_list", $"{first},{first + 4}");
            fixture.Write($"{dir}/cache/index3/level", "3");
            fixture.Write($"{dir}/cache/index3/shared_cpu_list", package == 0 ? "0-1,4-5" : "2-3,6-7");
        }

        fixture.Write("devices/system/node/node0/cpulist", "0-1,4-5");
        fixture.Write("devices/system/node/node1/cpulist", "2-3,6-7");
        return fixture;
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a leftover temp directory is harmless.
        }
    }
}
