namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>One measured point of a scalability table.</summary>
/// <param name="Cores">Core count (at least 1).</param>
/// <param name="Speedup">Speedup on that many cores (positive, finite).</param>
public readonly record struct ScalabilityPoint(int Cores, double Speedup);
