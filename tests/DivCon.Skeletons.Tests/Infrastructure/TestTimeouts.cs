namespace DivCon.Skeletons.Tests.Infrastructure;

/// <summary>Bounds for every wait in the tests: generous, so only a real hang (a bug) reaches them.</summary>
public static class TestTimeouts
{
    public static readonly TimeSpan Generous = TimeSpan.FromSeconds(30);

    /// <summary>Waits for <paramref name="task"/> at most <see cref="Generous"/>; a hang fails the test with TimeoutException.</summary>
    public static Task<T> Bounded<T>(this Task<T> task) => task.WaitAsync(Generous);

    /// <summary>Waits until <paramref name="condition"/> holds, at most <see cref="Generous"/>; returns whether it did.</summary>
    public static bool SpinUntil(Func<bool> condition) => SpinWait.SpinUntil(condition, Generous);
}
