using System.Text.Json.Serialization;

namespace DivCon.Schedulers.Multiprogram.Profiles;

/// <summary>Source-generated System.Text.Json metadata for the profile store (no reflection at run time).</summary>
[JsonSourceGenerationOptions(WriteIndented = true, PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(ProfileStoreDocument))]
internal sealed partial class ProfileJsonContext : JsonSerializerContext;
