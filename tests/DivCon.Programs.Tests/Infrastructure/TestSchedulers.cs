using DivCon.Schedulers;

namespace DivCon.Programs.Tests.Infrastructure;

/// <summary>
/// Creates the fixed-size schedulers of the tests: DivCon's own work-stealing scheduler, whose workers run
/// waited-for tasks inline (which the fork-join engine needs on one worker).
/// </summary>
public static class TestSchedulers
{
    public static TaskScheduler CreateFixed(int workers) => new WorkStealingTaskScheduler(workers);
}
