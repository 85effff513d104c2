using DivCon.Simulator.Machine;

namespace DivCon.Simulator.Tests;

/// <summary>Machine description files: the committed ones load at every calibration; bad ones name the field.</summary>
public sealed class MachineDescriptionTests
{
    private const string Valid = """
        {
          "name": "tiny",
          "topology": {
            "packages": { "value": 1, "source": "s" },
            "diesPerPackage": { "value": 2, "source": "s" },
            "modulesPerDie": { "value": 2, "source": "s" },
            "coresPerModule": { "value": 2, "source": "s" }
          },
          "memory": {
            "dieBandwidthGBps": { "low": 20, "middle": 15, "high": 10, "source": "s" },
            "packageBandwidthGBps": { "value": 0, "source": "s" }
          },
          "oversubscription": {
            "contextSwitchNs": { "value": 5000, "source": "s" },
            "cacheRefillNs": { "low": 0, "middle": 1000, "high": 2000, "source": "s" },
            "preemptionPenalty": { "low": 0, "middle": 0.1, "high": 0.4, "source": "s" },
            "handoverRefillNs": { "value": 0, "source": "s" }
          },
          "modules": {
            "fpuStretch": { "low": 0.1, "middle": 0.2, "high": 0.4, "source": "s" },
            "sharedStretch": { "value": 0, "source": "s" }
          },
          "programs": {
            "sumsq": { "bandwidthGBps": { "value": 2, "source": "s" }, "fpuFraction": { "value": 0, "source": "s" } },
            "quicksort": { "bytesPerRun": { "low": 0, "middle": 100, "high": 200, "source": "s" } },
            "sorter": { "splitShare": { "low": 0.2, "middle": 0.3, "high": 0.4, "source": "s" }, "mergeShare": { "value": 0.2, "source": "s" }, "profileLeaves": { "value": 256, "source": "s" } }
          }
        }
        """;

    [Fact]
    public void A_valid_description_resolves_each_calibration()
    {
        var description = MachineDescription.Parse(Valid);
        var low = description.Resolve(Calibration.Low);
        var middle = description.Resolve();
        var high = description.Resolve(Calibration.High, CorePlacement.Dispersed);

        Assert.Equal(8, middle.Cores);
        Assert.Equal((20.0, 15.0, 10.0), (low.DieBandwidthGBps, middle.DieBandwidthGBps, high.DieBandwidthGBps));
        Assert.Equal((0L, 1000L, 2000L), (low.CacheRefillNs, middle.CacheRefillNs, high.CacheRefillNs));
        Assert.Equal(CorePlacement.Dispersed, high.Placement);
        Assert.Equal(new ProgramDemand(2, 1, 0), middle.Programs["SUMSQ"]);
        Assert.Equal(100.0, middle.BytesPerRun["quicksort"]);
        Assert.Equal("s", description.Figures["modules.fpuStretch"].Source);
        Assert.Equal(new PhaseProfile(0.3, 0.2, 256), middle.PhaseProfiles["sorter"]);
        Assert.Equal((0.2, 0.4), (low.PhaseProfiles["sorter"].SplitShare, high.PhaseProfiles["sorter"].SplitShare));
        Assert.False(middle.Programs.ContainsKey("sorter")); // named for its profile only: no demand
        Assert.False(middle.PhaseProfiles.ContainsKey("quicksort"));
    }

    public static TheoryData<string, string, string> BadFiles() => new()
    {
        { "\"packages\": { \"value\": 1, \"source\": \"s\" }", "\"packages\": { \"value\": 1 }", "topology.packages.source is missing" },
        { "\"dieBandwidthGBps\": { \"low\": 20, \"middle\": 15", "\"dieBandwidthGBps\": { \"low\": 20, \"middle\": 25", "memory.dieBandwidthGBps must have its middle between low and high" },
        { "\"coresPerModule\": { \"value\": 2", "\"coresPerModule\": { \"value\": 3", "topology.coresPerModule must be 1 or 2" },
        { "\"modulesPerDie\": { \"value\": 2", "\"modulesPerDie\": { \"value\": 2.5", "topology.modulesPerDie must be one whole number" },
        { "\"preemptionPenalty\": { \"low\": 0,", "\"preemptionPenalty\": { \"low\": -1,", "oversubscription.preemptionPenalty.low must be a finite number >= 0" },
        { "\"handoverRefillNs\": { \"value\": 0, \"source\": \"s\" }", "\"handoverRefillNs\": { \"value\": 0, \"source\": \"s\" }, \"spinNs\": { \"value\": 1, \"source\": \"s\" }", "oversubscription.spinNs is not a oversubscription figure" },
        { "\"fpuFraction\": { \"value\": 0,", "\"fpuFraction\": { \"value\": 2,", "programs.sumsq.fpuFraction must be a fraction from 0 to 1" },
        { "\"fpuFraction\": { \"value\": 0,", "\"intensity\": { \"value\": 0,", "programs.sumsq.intensity is not a program figure" },
        { "\"bytesPerRun\"", "\"bandwidthGBps\": { \"value\": 1, \"source\": \"s\" }, \"bytesPerRun\"", "programs.quicksort gives both bandwidthGBps and bytesPerRun" },
        { "\"cacheRefillNs\": { \"low\": 0, \"middle\": 1000,", "\"cacheRefillNs\": { \"low\": 0,", "oversubscription.cacheRefillNs needs 'value' or 'low', 'middle' and 'high'" },
        { "\"modules\": {", "\"modulez\": {", "modules is missing" },
        { "\"name\": \"tiny\",", "", "name is missing" },
        { "\"value\": 5000,", "\"value\": \"5000\",", "oversubscription.contextSwitchNs.value must be a finite number >= 0" },
        { "\"memory\": {", "\"memory\": [", "not valid JSON" },
        { "\"mergeShare\": { \"value\": 0.2", "\"mergeShare\": { \"value\": 1", "programs.sorter.mergeShare must be a share from 0 to below 1" },
        { "\"mergeShare\": { \"value\": 0.2", "\"mergeShare\": { \"value\": -0.2", "programs.sorter.mergeShare.value must be a finite number >= 0" },
        { "\"mergeShare\": { \"value\": 0.2", "\"mergeShare\": { \"value\": 0.6", "programs.sorter.mergeShare plus splitShare must be below 1" },
        { "\"profileLeaves\": { \"value\": 256", "\"profileLeaves\": { \"value\": 1", "programs.sorter.profileLeaves must be at least 2" },
        { "\"splitShare\": { \"low\": 0.2, \"middle\": 0.3,", "\"splitShares\": { \"low\": 0.2, \"middle\": 0.3,", "programs.sorter.splitShares is not a program figure" },
    };

    [Theory]
    [MemberData(nameof(BadFiles))]
    public void A_bad_description_names_the_field(string find, string replace, string expected)
    {
        Assert.Contains(find, Valid, StringComparison.Ordinal);
        string json = ReplaceFirst(Valid, find, replace);

        var e = Assert.Throws<InvalidDataException>(() => MachineDescription.Parse(json, "bad.json"));
        Assert.StartsWith("bad.json: ", e.Message, StringComparison.Ordinal);
        Assert.Contains(expected, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Numa_distances_must_be_a_die_by_die_matrix()
    {
        string json = ReplaceFirst(Valid, "\"packages\":", "\"numaDistances\": { \"source\": \"s\", \"value\": [[10, 16], [16]] }, \"packages\":");
        var e = Assert.Throws<InvalidDataException>(() => MachineDescription.Parse(json, "bad.json"));
        Assert.Contains("topology.numaDistances.value[1] must have 2 entries", e.Message, StringComparison.Ordinal);

        string good = ReplaceFirst(Valid, "\"packages\":", "\"numaDistances\": { \"source\": \"s\", \"value\": [[10, 16], [16, 10]] }, \"packages\":");
        Assert.Equal(16.0, MachineDescription.Parse(good).NumaDistances![0][1]);
    }

    [Fact]
    public void A_missing_file_is_named()
    {
        var e = Assert.Throws<InvalidDataException>(() => MachineDescription.LoadModel("no/such/machine.json:high"));
        Assert.Contains("'no/such/machine.json' does not exist", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("bogus")]
    [InlineData("high:bogus")]
    [InlineData("bogus:dispersed")]
    public void An_unknown_calibration_or_placement_is_named_not_reported_as_a_missing_file(string words)
    {
        string path = Path.Combine(RepositoryRoot(), "machines", "thesis-opteron-6276.json");
        var e = Assert.Throws<InvalidDataException>(() => MachineDescription.LoadModel($"{path}:{words}"));
        Assert.Contains("unknown calibration or placement 'bogus'", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("does not exist", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Two_calibrations_are_refused_by_name()
    {
        string path = Path.Combine(RepositoryRoot(), "machines", "thesis-opteron-6276.json");
        var e = Assert.Throws<InvalidDataException>(() => MachineDescription.LoadModel($"{path}:high:low:dispersed"));
        Assert.Contains("at most one calibration", e.Message, StringComparison.Ordinal);
    }

    public static TheoryData<string> CommittedFiles() => new(Directory.GetFiles(Path.Combine(RepositoryRoot(), "machines"), "*.json").Select(Path.GetFileName)!);

    [Theory]
    [MemberData(nameof(CommittedFiles))]
    public void Every_committed_description_loads_at_every_calibration_and_placement(string file)
    {
        string path = Path.Combine(RepositoryRoot(), "machines", file);
        var description = MachineDescription.Load(path);

        Assert.All(description.Figures.Values, f => Assert.False(string.IsNullOrWhiteSpace(f.Source)));
        foreach (var calibration in Enum.GetValues<Calibration>())
        {
            foreach (var placement in Enum.GetValues<CorePlacement>())
            {
                var model = MachineDescription.LoadModel($"{path}:{calibration.ToString().ToLowerInvariant()}:{placement.ToString().ToLowerInvariant()}");
                Assert.Equal((calibration, placement), (model.Calibration, model.Placement));
                Assert.Equal(model.Cores, Enumerable.Range(0, model.Cores).Select(model.PhysicalCore).Distinct().Count());
            }
        }
    }

    [Fact]
    public void The_thesis_machine_is_4_packages_of_2_dies_of_4_two_core_modules()
    {
        var model = MachineDescription.LoadModel(Path.Combine(RepositoryRoot(), "machines", "thesis-opteron-6276.json"));
        Assert.Equal((64, 8, 8, 2), (model.Cores, model.Dies, model.CoresPerDie, model.CoresPerModule));
    }

    private static string ReplaceFirst(string text, string find, string replace)
    {
        int at = text.IndexOf(find, StringComparison.Ordinal);
        return text[..at] + replace + text[(at + find.Length)..];
    }

    private static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "DivCon.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("The repository root (DivCon.sln) was not found above the test binaries.");
    }
}
