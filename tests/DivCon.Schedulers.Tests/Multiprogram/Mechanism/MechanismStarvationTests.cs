using DivCon.Schedulers.Multiprogram;

namespace DivCon.Schedulers.Tests.Multiprogram.Mechanism;

/// <summary>More busy programs than workers, no lending: the starvation guard still lets every program run.</summary>
[Collection(PinnedThreadsGroup.Name)]
public sealed class MechanismStarvationTests
{
    private const int TasksEach = 20;

    [Fact]
    public void Three_busy_programs_on_two_workers_all_make_progress_without_lending()
    {
        using var scheduler = MechanismSchedulers.Unpinned(2, interval: TimeSpan.FromMilliseconds(20), lending: false);
        ProgramTaskScheduler[] programs = [scheduler.Register("a", 1.9), scheduler.Register("b", 1.5), scheduler.Register("c", 1.2)];
        var counts = new int[programs.Length];
        using var everyoneDone = new CountdownEvent(programs.Length);
        int stop = 0;

        void Spin(int index)
        {
            Thread.SpinWait(2_000);
            if (Interlocked.Increment(ref counts[index]) == TasksEach) // Interlocked: tasks of one program run on several workers.
            {
                everyoneDone.Signal();
            }

            if (Volatile.Read(ref stop) == 0) // Volatile: set by the test thread.
            {
                programs[index].Start(() => Spin(index));
            }
        }

        for (int i = 0; i < programs.Length; i++)
        {
            int index = i;
            for (int k = 0; k < 4; k++)
            {
                programs[index].Start(() => Spin(index));
            }
        }

        bool done = everyoneDone.Wait(TestSchedulers.Timeout);
        Volatile.Write(ref stop, 1); // Volatile: read by the spinning tasks.
        Assert.True(done, $"A program starved: tasks run {string.Join(", ", counts)}.");
        Assert.True(SpinWait.SpinUntil(() => programs.All(p => p.OutstandingTasks == 0), TestSchedulers.Timeout));
        foreach (ProgramTaskScheduler program in programs)
        {
            program.Dispose();
        }
    }
}
