using DivCon.Schedulers;

namespace DivCon.Harness.Tests.Cli;

[Collection(LiveSchedulersTestGroup.Name)]
/// <summary>
/// The hop the quick profiler relies on before the profiler disposes a scheduler: awaiting a run with
/// <see cref="ConfigureAwaitOptions.ForceYielding"/> continues on a thread-pool thread, never on the scheduler's worker
/// that completed it.
/// </summary>
public class ThreadPoolHopTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task Force_yielding_continues_on_a_pool_thread_even_from_a_scheduler_worker()
    {
        using var scheduler = new WorkStealingTaskScheduler(1);
        bool? beforeOnPool = null;
        bool? afterOnPool = null;
        await Task.Factory.StartNew(async () =>
        {
            beforeOnPool = Thread.CurrentThread.IsThreadPoolThread;
            await Task.CompletedTask.ConfigureAwait(ConfigureAwaitOptions.ForceYielding);
            afterOnPool = Thread.CurrentThread.IsThreadPoolThread;
        }, CancellationToken.None, TaskCreationOptions.None, scheduler).Unwrap().WaitAsync(Timeout);
        Assert.False(beforeOnPool);
        Assert.True(afterOnPool);
    }
}
