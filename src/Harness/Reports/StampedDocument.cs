using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports;

/// <summary>The shape of every JSON summary: the run's stamp and the data.</summary>
/// <typeparam name="T">The data's type.</typeparam>
/// <param name="Stamp">Where and how the data was produced.</param>
/// <param name="Data">The data.</param>
public sealed record StampedDocument<T>(RunStamp Stamp, T Data);
