namespace DivCon.Harness.Reports.Charts;

/// <summary>Argument checks shared by the charts.</summary>
internal static class ChartValidation
{
    public static void Title(string title, string parameterName)
    {
        if (string.IsNullOrWhiteSpace(title))
        {
            throw new ArgumentException("A chart needs a title.", parameterName);
        }
    }

    public static void Size(int width, int height)
    {
        if (width < 200 || height < 150)
        {
            throw new ArgumentOutOfRangeException(nameof(width), $"{width}x{height} is too small for a chart (at least 200x150).");
        }
    }
}
