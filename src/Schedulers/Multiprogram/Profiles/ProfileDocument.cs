namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>The JSON shape of one profile. Times are seconds; speedups are written for readers and ignored on load.</summary>
internal sealed class ProfileDocument
{
    public string? ProgramName { get; set; }

    public string? ProblemSize { get; set; }

    public double SequentialSeconds { get; set; }

    public List<TimingDocument> ParallelTimes { get; set; } = [];

    public string? Machine { get; set; }

    public DateTimeOffset MeasuredAt { get; set; }
}
