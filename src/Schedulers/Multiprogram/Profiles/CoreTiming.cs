namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>A measured parallel run time on a given number of cores.</summary>
/// <param name="Cores">Core count (at least 1).</param>
/// <param name="Time">Mean wall-clock time of the run (positive).</param>
public readonly record struct CoreTiming(int Cores, TimeSpan Time);
