namespace DivCon.Programs.Tests.Infrastructure;

/// <summary>Bounds for every wait in the tests: generous, so that only a hang (a bug) reaches them.</summary>
public static class TestTimeouts
{
    public static readonly TimeSpan Generous = TimeSpan.FromSeconds(30);

    /// <summary>Waits for <paramref name="task"/> at most <see cref="Generous"/>; a hang fails with <see cref="TimeoutException"/>.</summary>
    public static Task Bounded(this Task task) => task.WaitAsync(Generous);

    /// <summary>Waits for <paramref name="task"/> at most <see cref="Generous"/>.</summary>
    public static Task<T> Bounded<T>(this Task<T> task) => task.WaitAsync(Generous);
}
