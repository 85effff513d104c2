#if NET8_0_OR_GREATER
using System.Runtime.Versioning;
using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Domain;

/// <summary>Two whole schedulers joined through the real client and coordinator (two members of one domain).</summary>
[Collection(DomainSocketsGroup.Name)]
public sealed class JoinedSchedulersTests
{
    [SkippableFact]
    [SupportedOSPlatform("linux")]
    public void Two_schedulers_in_one_domain_split_the_cpus_and_each_takes_all_back_when_the_other_leaves()
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The machine domain is Linux-only.");
        using var kit = new DomainTestKit();
        MultiprogramSchedulerOptions Options() => new()
        {
            Pin = false,
            WorkerCount = 2,
            RebalanceInterval = TimeSpan.FromMilliseconds(20),
            MachineDomain = new MachineDomainOptions { Directory = kit.DomainPath },
        };

        using var stop = new CancellationTokenSource();
        using var a = new MultiprogramScheduler(Options());
        var b = new MultiprogramScheduler(Options());
        try
        {
            Assert.Contains("attached", a.DomainStatus, StringComparison.Ordinal);
            using var pa = a.Register("a");
            using var pb = b.Register("b");
            var busyA = KeepBusy(pa, stop.Token);
            var busyB = KeepBusy(pb, stop.Token);

            // Each member holds one of the two CPUs once the coordinator has decided: never both at once.
            Assert.True(SpinWait.SpinUntil(() => pa.CurrentCores == 1 && pb.CurrentCores == 1, TimeSpan.FromSeconds(30)),
                $"a holds {pa.CurrentCores}, b holds {pb.CurrentCores}: {a.DomainStatus} / {b.DomainStatus}{Environment.NewLine}{kit.LogText()}");

            // b leaves (its scheduler disposed): a is granted both CPUs.
            stop.Cancel();
            busyB.Wait(TimeSpan.FromSeconds(30));
            pb.Dispose();
            b.Dispose();
            using var again = new CancellationTokenSource();
            var busyAgain = KeepBusy(pa, again.Token);
            Assert.True(SpinWait.SpinUntil(() => pa.CurrentCores == 2, TimeSpan.FromSeconds(30)), $"a holds {pa.CurrentCores}: {a.DomainStatus}");
            again.Cancel();
            busyA.Wait(TimeSpan.FromSeconds(30));
            busyAgain.Wait(TimeSpan.FromSeconds(30));
        }
        finally
        {
            stop.Cancel();
            b.Dispose();
        }
    }

    /// <summary>Two tasks that spin until cancelled, so the program shows demand 2.</summary>
    private static Task KeepBusy(ProgramTaskScheduler program, CancellationToken token) =>
        Task.WhenAll(Enumerable.Range(0, 2).Select(_ => program.Start(() =>
        {
            while (!token.IsCancellationRequested)
            {
                Thread.SpinWait(200);
                Thread.Yield();
            }
        })));
}
#endif
