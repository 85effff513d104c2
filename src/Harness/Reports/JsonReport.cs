using System.Text.Json;
using System.Text.Json.Serialization;
using DivCon.Harness.Machine;

namespace DivCon.Harness.Reports;

/// <summary>
/// Writes JSON summaries as <c>{ "stamp": {...}, "data": {...} }</c> with System.Text.Json: camelCase names,
/// indented, enums as strings, and non-finite numbers (an undefined interval is NaN in memory) as
/// <c>null</c>, so the files stay strict JSON.
/// </summary>
public static class JsonReport
{
    /// <summary>The serializer options used for every DivCon JSON file.</summary>
    public static JsonSerializerOptions Options { get; } = CreateOptions();

    /// <summary>Writes a stamped document.</summary>
    /// <typeparam name="T">The data's type.</typeparam>
    /// <param name="stream">Destination (left open).</param>
    /// <param name="stamp">The run's stamp.</param>
    /// <param name="data">The summary.</param>
    public static void Write<T>(Stream stream, RunStamp stamp, T data)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentNullException.ThrowIfNull(stamp);
        JsonSerializer.Serialize(stream, new StampedDocument<T>(stamp, data), Options);
    }

    /// <summary>Serializes a stamped document to a string.</summary>
    /// <typeparam name="T">The data's type.</typeparam>
    /// <param name="stamp">The run's stamp.</param>
    /// <param name="data">The summary.</param>
    /// <returns>The JSON text.</returns>
    public static string Serialize<T>(RunStamp stamp, T data)
    {
        ArgumentNullException.ThrowIfNull(stamp);
        return JsonSerializer.Serialize(new StampedDocument<T>(stamp, data), Options);
    }

    private static JsonSerializerOptions CreateOptions()
    {
        var options = new JsonSerializerOptions(JsonSerializerDefaults.Web) { WriteIndented = true };
        options.Converters.Add(new NonFiniteAsNullConverter());
        options.Converters.Add(new JsonStringEnumConverter());
        options.MakeReadOnly(populateMissingResolver: true);
        return options;
    }
}

/// <summary>Writes NaN and infinities as JSON <c>null</c> (strict JSON has no such numbers) and reads null back as NaN.</summary>
internal sealed class NonFiniteAsNullConverter : JsonConverter<double>
{
    public override bool HandleNull => true;

    public override double Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
        reader.TokenType == JsonTokenType.Null ? double.NaN : reader.GetDouble();

    public override void Write(Utf8JsonWriter writer, double value, JsonSerializerOptions options)
    {
        if (double.IsFinite(value))
        {
            writer.WriteNumberValue(value);
        }
        else
        {
            writer.WriteNullValue();
        }
    }
}

/// <summary>The shape of every JSON summary: the run's stamp and the data.</summary>
/// <typeparam name="T">The data's type.</typeparam>
/// <param name="Stamp">Where and how the data was produced.</param>
/// <param name="Data">The data.</param>
public sealed record StampedDocument<T>(RunStamp Stamp, T Data);
