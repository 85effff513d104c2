namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>The JSON shape of a profile store file (version 1).</summary>
internal sealed class ProfileStoreDocument
{
    public int Version { get; set; } = 1;

    public List<ProfileDocument> Profiles { get; set; } = [];
}
