using System.Reflection;

namespace DivCon.Bench.Runtimes;

/// <summary>
/// Collections per generation, and the total GC pause time where the runtime reports it (.NET 7 and later:
/// <c>GC.GetTotalPauseDuration</c>; not .NET Framework or Mono, whose figure is reported as missing).
/// </summary>
internal readonly record struct GcCounters(int Gen0, int Gen1, int Gen2, TimeSpan? Pause)
{
    // Found by reflection so that one source serves every target; null where the runtime has no such member.
    private static readonly Func<TimeSpan>? s_totalPause = FindTotalPause();

    /// <summary>Whether this runtime reports GC pause time.</summary>
    public static bool ReportsPause => s_totalPause is not null;

    /// <summary>The counters now.</summary>
    public static GcCounters Now() =>
        new(GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), s_totalPause?.Invoke());

    /// <summary>What happened between <paramref name="start"/> and this reading.</summary>
    public GcCounters Since(GcCounters start) =>
        new(Gen0 - start.Gen0, Gen1 - start.Gen1, Gen2 - start.Gen2, Pause - start.Pause);

    private static Func<TimeSpan>? FindTotalPause()
    {
        MethodInfo? method = typeof(GC).GetMethod("GetTotalPauseDuration", BindingFlags.Public | BindingFlags.Static, null, Type.EmptyTypes, null);
        return method is null || method.ReturnType != typeof(TimeSpan)
            ? null
            : (Func<TimeSpan>)Delegate.CreateDelegate(typeof(Func<TimeSpan>), method);
    }
}
