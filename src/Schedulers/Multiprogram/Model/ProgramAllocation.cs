namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>The number of cores a decision gives one program.</summary>
/// <param name="Id">The program.</param>
/// <param name="Cores">Its cores (at least 0).</param>
public readonly record struct ProgramAllocation(ProgramId Id, int Cores);
