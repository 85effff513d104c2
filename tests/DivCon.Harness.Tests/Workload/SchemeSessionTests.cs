using DivCon.Harness.Workload;

namespace DivCon.Harness.Tests.Workload;

public class SchemeSessionTests
{
    [Fact]
    public async Task Disposes_owned_items_last_first_even_when_one_fails_then_runs_the_close_action()
    {
        var order = new List<string>();
        bool closed = false;
        var session = new SchemeSession([], [new Recorder("first", order), new Recorder("failing", order, fail: true), new Recorder("last", order)], onClosed: () => closed = true);
        var e = await Assert.ThrowsAsync<AggregateException>(() => session.DisposeAsync().AsTask());
        Assert.Single(e.InnerExceptions);
        Assert.Equal(["last", "failing", "first"], order);
        Assert.False(closed); // a failed close does not run the close action

        await session.DisposeAsync(); // a second dispose does nothing
        Assert.Equal(3, order.Count);
    }

    [Fact]
    public async Task Runs_the_close_action_after_disposing()
    {
        var order = new List<string>();
        var session = new SchemeSession([], [new Recorder("scheduler", order)], onClosed: () => order.Add("closed"));
        await session.DisposeAsync();
        Assert.Equal(["scheduler", "closed"], order);
    }

    private sealed class Recorder(string name, List<string> order, bool fail = false) : IDisposable
    {
        public void Dispose()
        {
            lock (order)
            {
                order.Add(name);
            }

            if (fail)
            {
                throw new InvalidOperationException(name);
            }
        }
    }
}
