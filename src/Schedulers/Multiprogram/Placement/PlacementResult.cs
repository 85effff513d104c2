using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Placement;

/// <summary>What <see cref="CpuPlacement.Place"/> decided.</summary>
/// <param name="Assignment">The new CPUs of every program.</param>
/// <param name="Moves">Every CPU whose program changed, in topology order.</param>
/// <param name="Strategy">Which candidate layout won ("keep", "packed", "aligned" or "fewest-moves").</param>
/// <param name="Fragments">Extra runs beyond one per program, in topology order (0 = every program contiguous).</param>
public sealed record PlacementResult(CpuAssignment Assignment, IReadOnlyList<CpuMove> Moves, string Strategy, int Fragments);
