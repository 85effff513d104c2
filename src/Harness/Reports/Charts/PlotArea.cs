namespace DivCon.Harness.Reports.Charts;

/// <summary>The rectangle inside the axes, in SVG user units.</summary>
internal readonly record struct PlotArea(double Left, double Top, double Width, double Height)
{
    public double Right => Left + Width;

    public double Bottom => Top + Height;
}
