#if NET8_0_OR_GREATER
using System.Collections.Concurrent;
using System.Diagnostics;
using DivCon.Schedulers.Multiprogram.Domain;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

[Collection(DomainSocketsGroup.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class DomainDirectoryTests
{
    [SkippableFact]
    public void A_new_directory_is_created_private()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        var directory = DomainDirectory.Open(kit.DomainPath, allowedGroup: null);
        Assert.Equal(kit.DomainPath, directory.Path);
        var stat = DomainDirectory.Stat(kit.DomainPath);
        Assert.NotNull(stat);
        Assert.Equal(DomainDirectory.CurrentUserId, stat.Value.UserId);
        Assert.Equal(0b111_000_000, stat.Value.Mode & 0x1FF);
    }

    [SkippableTheory]
    [InlineData(0b111_111_111, "group or others may write")]
    [InlineData(0b111_110_000, "group or others may write")]
    [InlineData(0b111_101_101, "others may enter")]
    public void A_directory_with_a_loose_mode_is_refused(int mode, string reason)
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        Directory.CreateDirectory(kit.DomainPath);
        File.SetUnixFileMode(kit.DomainPath, (UnixFileMode)mode);
        var e = Assert.Throws<DomainSecurityException>(() => DomainDirectory.Open(kit.DomainPath, null));
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);

        // Through the entry point: no arbiter, and the reason says why.
        Assert.Null(CpuDomain.TryJoin(kit.Options(), out string? why));
        Assert.Contains(reason, why, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void A_link_in_place_of_the_directory_is_refused()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        string target = Path.Combine(kit.Root, "elsewhere");
        Directory.CreateDirectory(target);
        File.SetUnixFileMode(target, (UnixFileMode)0b111_000_000);
        Directory.CreateSymbolicLink(kit.DomainPath, target);
        var e = Assert.Throws<DomainSecurityException>(() => DomainDirectory.Open(kit.DomainPath, null));
        Assert.Contains("not a directory", e.Message, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void A_directory_owned_by_another_user_is_refused()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        Skip.IfNot(DomainDirectory.CurrentUserId == 0, "Giving a directory to another user needs root; this test runs as another user.");
        using var kit = new DomainTestKit();
        Directory.CreateDirectory(kit.DomainPath);
        File.SetUnixFileMode(kit.DomainPath, (UnixFileMode)0b111_000_000);
        Chown(kit.DomainPath, "65534:65534");
        var e = Assert.Throws<DomainSecurityException>(() => DomainDirectory.Open(kit.DomainPath, null));
        Assert.Contains("owned by uid 65534", e.Message, StringComparison.Ordinal);
    }

    [SkippableFact]
    public void The_lock_is_exclusive_and_freed_when_its_holder_closes_it()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        using var kit = new DomainTestKit();
        var directory = DomainDirectory.Open(kit.DomainPath, null);
        var first = directory.TryLock();
        Assert.NotNull(first);

        // flock locks belong to an open file description: a second open in the same process conflicts too.
        Assert.Null(directory.TryLock());
        first.Dispose();
        using var second = directory.TryLock();
        Assert.NotNull(second);
    }

    [SkippableFact]
    public void The_lock_is_flock_and_the_kernel_frees_it_when_its_holder_is_killed()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The domain runs on Linux only.");
        string? python = DomainTestKit.Python;
        Skip.If(python is null, "/usr/bin/python3 is not installed: no independent flock holder to kill.");
        using var kit = new DomainTestKit();
        var directory = DomainDirectory.Open(kit.DomainPath, null);

        // Python's fcntl.flock is flock(2); Linux keeps flock and fcntl (POSIX) locks apart, so .NET's lock
        // conflicting with it shows that .NET takes flock, as the election relies on.
        var lines = new BlockingCollection<string>();
        var info = new ProcessStartInfo(python!) { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (string arg in (string[])["-c", "import fcntl,sys,time; f=open(sys.argv[1],'a'); fcntl.flock(f, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(60)", directory.LockPath])
        {
            info.ArgumentList.Add(arg);
        }

        using var holder = Process.Start(info)!;
        holder.OutputDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                lines.Add(e.Data);
            }
        };
        holder.BeginOutputReadLine();
        Assert.True(lines.TryTake(out string? line, TimeSpan.FromSeconds(20)), "the holder did not start");
        Assert.Equal("locked", line);
        Assert.Null(directory.TryLock());

        holder.Kill(); // SIGKILL
        Assert.True(holder.WaitForExit(10_000));
        using var taken = directory.TryLock();
        Assert.NotNull(taken);
    }

    private static void Chown(string path, string owner)
    {
        using var chown = Process.Start(new ProcessStartInfo("chown", [owner, path]) { UseShellExecute = false })!;
        Assert.True(chown.WaitForExit(10_000));
        Assert.Equal(0, chown.ExitCode);
    }
}
#endif
