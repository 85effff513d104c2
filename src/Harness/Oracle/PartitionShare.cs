namespace DivCon.Harness.Oracle;

/// <summary>One program's share of a static partition and the progress it makes there.</summary>
/// <param name="Program">Program name.</param>
/// <param name="Cores">Cores given to it (≥ 1).</param>
/// <param name="NormalizedProgress">Its NP on those cores: speedup(cores) / speedup(all cores).</param>
public sealed record PartitionShare(string Program, int Cores, double NormalizedProgress);
