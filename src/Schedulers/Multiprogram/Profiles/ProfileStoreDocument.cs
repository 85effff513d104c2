using System.Text.Json.Serialization;

namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>The JSON shape of a profile store file (version 1).</summary>
internal sealed class ProfileStoreDocument
{
    public int Version { get; set; } = 1;

    public List<ProfileDocument> Profiles { get; set; } = [];
}

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

/// <summary>The JSON shape of one timing.</summary>
internal sealed class TimingDocument
{
    public int Cores { get; set; }

    public double Seconds { get; set; }

    public double? Speedup { get; set; }
}

/// <summary>Source-generated System.Text.Json metadata for the profile store (no reflection at run time).</summary>
[JsonSourceGenerationOptions(WriteIndented = true, PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(ProfileStoreDocument))]
internal sealed partial class ProfileJsonContext : JsonSerializerContext;
