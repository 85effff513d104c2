namespace DivCon.Programs.Tests.Infrastructure;

/// <summary>
/// Creates the fixed-size schedulers of the tests. The one place to switch to DivCon.Schedulers: replace the body of
/// <see cref="CreateFixed"/> with <c>new WorkStealingTaskScheduler(workers)</c>.
/// </summary>
public static class TestSchedulers
{
    public static TaskScheduler CreateFixed(int workers) => new DedicatedThreadTaskScheduler(workers);
}
