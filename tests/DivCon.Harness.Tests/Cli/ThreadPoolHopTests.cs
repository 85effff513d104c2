using DivCon.Harness.Wiring;
using DivCon.Schedulers;

namespace DivCon.Harness.Tests.Cli;

[Collection(LiveSchedulersTestGroup.Name)]
public class ThreadPoolHopTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task Continues_on_a_pool_thread_even_from_a_scheduler_worker()
    {
        using var scheduler = new WorkStealingTaskScheduler(1);
        bool? beforeOnPool = null;
        bool? afterOnPool = null;
        await Task.Factory.StartNew(async () =>
        {
            beforeOnPool = Thread.CurrentThread.IsThreadPoolThread;
            await ThreadPoolHop.Now;
            afterOnPool = Thread.CurrentThread.IsThreadPoolThread;
        }, CancellationToken.None, TaskCreationOptions.None, scheduler).Unwrap().WaitAsync(Timeout);
        Assert.False(beforeOnPool);
        Assert.True(afterOnPool);
    }
}
