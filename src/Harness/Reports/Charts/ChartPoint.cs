namespace DivCon.Harness.Reports.Charts;

/// <summary>One point of a line series, with an optional symmetric error bar.</summary>
/// <param name="X">Horizontal value.</param>
/// <param name="Y">Vertical value.</param>
/// <param name="ErrorHalfWidth">Half-height of the error bar (e.g. a confidence half-width); 0 or NaN for none.</param>
public readonly record struct ChartPoint(double X, double Y, double ErrorHalfWidth = 0);
