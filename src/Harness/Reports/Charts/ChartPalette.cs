namespace DivCon.Harness.Reports.Charts;

/// <summary>Series colours: the Okabe-Ito palette (distinguishable with common colour-vision deficiencies).</summary>
internal static class ChartPalette
{
    private static readonly string[] Colors =
        ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"];

    public static string Color(int index) => Colors[index % Colors.Length];
}
