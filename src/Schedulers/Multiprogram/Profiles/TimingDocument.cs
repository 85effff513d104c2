namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>The JSON shape of one timing.</summary>
internal sealed class TimingDocument
{
    public int Cores { get; set; }

    public double Seconds { get; set; }

    public double? Speedup { get; set; }
}
