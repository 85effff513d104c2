using System.Text.Json;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using DivCon.Harness.Tests.Support;

namespace DivCon.Harness.Tests.Reports;

public sealed class JsonAndFolderTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "divcon-harness-tests-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    [Fact]
    public void Summary_json_is_stamped_camel_case_and_writes_undefined_intervals_as_null()
    {
        IReadOnlyList<SchemeMetrics> schemes = Samples.TwoSchemes();
        string json = JsonReport.Serialize(Samples.Stamp, schemes);

        using JsonDocument document = JsonDocument.Parse(json);
        JsonElement root = document.RootElement;
        Assert.Equal("abc1234", root.GetProperty("stamp").GetProperty("gitCommit").GetString());
        Assert.Equal(8, root.GetProperty("stamp").GetProperty("logicalCpus").GetInt32());
        JsonElement data = root.GetProperty("data");
        Assert.Equal(2, data.GetArrayLength());
        JsonElement shared = data[0].GetProperty("metrics");
        Assert.Equal(schemes[0].Metrics.Antt, shared.GetProperty("antt").GetDouble(), 12);
        Assert.Equal(2, shared.GetProperty("programs").GetArrayLength());
        // "static | partition" has a program with one counted run: its NTT interval and the system intervals are undefined.
        JsonElement staticMetrics = data[1].GetProperty("metrics");
        Assert.Equal(JsonValueKind.Null, staticMetrics.GetProperty("anttHalfWidth").ValueKind);
        Assert.Equal(JsonValueKind.Null, staticMetrics.GetProperty("programs")[0].GetProperty("ntt").GetProperty("confidenceHalfWidth").ValueKind);
    }

    [Fact]
    public void Results_folder_writes_stamp_sidecar_and_files()
    {
        ResultsFolder folder = ResultsFolder.Create(_root, "cyclic-5", Samples.Stamp);

        Assert.Equal(Path.Combine(_root, "cyclic-5"), folder.Path);
        using (JsonDocument stamp = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder.Path, ResultsFolder.StampFileName))))
        {
            Assert.Equal(Samples.Stamp.CommandLine, stamp.RootElement.GetProperty("commandLine").GetString());
        }

        string json = folder.WriteJson("summary.json", new { answer = 42, missing = double.NaN });
        using (JsonDocument summary = JsonDocument.Parse(File.ReadAllText(json)))
        {
            Assert.Equal(42, summary.RootElement.GetProperty("data").GetProperty("answer").GetInt32());
            Assert.Equal(JsonValueKind.Null, summary.RootElement.GetProperty("data").GetProperty("missing").ValueKind);
        }

        string text = folder.WriteText("notes.md", w => w.Write("# hi"));
        Assert.Equal("# hi", File.ReadAllText(text));
    }

    [Theory]
    [InlineData("..")]
    [InlineData(".")]
    [InlineData("a/b")]
    [InlineData("../escape")]
    [InlineData("with space")]
    [InlineData("")]
    public void Bad_experiment_names_are_rejected(string name) =>
        Assert.ThrowsAny<ArgumentException>(() => ResultsFolder.Create(_root, name, Samples.Stamp));

    [Theory]
    [InlineData("../x.csv")]
    [InlineData("sub/x.csv")]
    [InlineData("..")]
    public void File_names_must_stay_in_the_folder(string fileName)
    {
        ResultsFolder folder = ResultsFolder.Create(_root, "ok", Samples.Stamp);
        Assert.Throws<ArgumentException>(() => folder.PathOf(fileName));
    }
}
