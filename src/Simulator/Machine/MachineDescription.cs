using System.Globalization;
using System.Text.Json;

namespace DivCon.Simulator.Machine;

/// <summary>Which of a figure's three values a simulation uses.</summary>
public enum Calibration
{
    /// <summary>The costs at their lowest plausible value (for a bandwidth, its largest).</summary>
    Low,

    /// <summary>The best estimate.</summary>
    Middle,

    /// <summary>The costs at their highest plausible value.</summary>
    High,
}

/// <summary>One figure of a machine description: low, middle and high values (equal for a plain fact) and its source.</summary>
/// <param name="Low">The low value.</param>
/// <param name="Middle">The middle value.</param>
/// <param name="High">The high value.</param>
/// <param name="Source">Where the figure comes from (a publication, a measurement command, a calibration).</param>
public sealed record MachineFigure(double Low, double Middle, double High, string Source)
{
    /// <summary>The value at a calibration.</summary>
    /// <param name="calibration">Low, middle or high.</param>
    /// <returns>The value.</returns>
    public double At(Calibration calibration) => calibration switch
    {
        Calibration.Low => Low,
        Calibration.High => High,
        _ => Middle,
    };
}

/// <summary>
/// A machine description file (JSON; format in machines/README.md): topology (packages, dies, modules, cores, caches,
/// NUMA distances), memory bandwidth, oversubscription and module costs, and per-program demands, every figure with
/// its source and, for the costs, low, middle and high values. <see cref="Resolve"/> picks one calibration and a
/// placement and gives the <see cref="MachineModel"/> the simulator uses.
/// </summary>
/// <remarks>
/// The caches and NUMA distances are kept as data for locality models; no cost term reads them yet. Loading checks
/// every field; a bad file raises <see cref="InvalidDataException"/> naming the file and the field's JSON path.
/// </remarks>
public sealed class MachineDescription
{
    private MachineDescription(string name, string summary, IReadOnlyDictionary<string, MachineFigure> figures,
        IReadOnlyDictionary<string, IReadOnlyDictionary<string, MachineFigure>> programs, IReadOnlyList<CacheLevel> caches, double[][]? numaDistances)
    {
        Name = name;
        Summary = summary;
        Figures = figures;
        Programs = programs;
        Caches = caches;
        NumaDistances = numaDistances;
    }

    /// <summary>A cache level as data: level, what it holds, its size and which unit shares one.</summary>
    /// <param name="Level">1, 2, 3, ...</param>
    /// <param name="Kind">data, instruction or unified.</param>
    /// <param name="SizeKiB">Size of one instance, KiB.</param>
    /// <param name="SharedBy">core, module, die or package.</param>
    /// <param name="Source">Where the figure comes from.</param>
    public sealed record CacheLevel(int Level, string Kind, double SizeKiB, string SharedBy, string Source);

    /// <summary>The machine's name.</summary>
    public string Name { get; }

    /// <summary>One line on what the machine is.</summary>
    public string Summary { get; }

    /// <summary>Every machine-level figure by its JSON path (for example <c>memory.dieBandwidthGBps</c>).</summary>
    public IReadOnlyDictionary<string, MachineFigure> Figures { get; }

    /// <summary>Per program, its figures by name (bandwidthGBps or bytesPerRun, memoryBoundFraction, fpuFraction; splitShare, mergeShare, profileLeaves).</summary>
    public IReadOnlyDictionary<string, IReadOnlyDictionary<string, MachineFigure>> Programs { get; }

    /// <summary>The caches (data for locality models).</summary>
    public IReadOnlyList<CacheLevel> Caches { get; }

    /// <summary>NUMA distances between dies (10 = local), or null when the file gives none (data for locality models).</summary>
    public IReadOnlyList<IReadOnlyList<double>>? NumaDistances { get; }

    private static readonly string[] s_topology = ["packages", "diesPerPackage", "modulesPerDie", "coresPerModule"];
    private static readonly string[] s_memory = ["dieBandwidthGBps", "packageBandwidthGBps"];
    private static readonly string[] s_oversubscription = ["contextSwitchNs", "cacheRefillNs", "preemptionPenalty", "handoverRefillNs"];
    private static readonly string[] s_modules = ["fpuStretch", "sharedStretch"];
    private static readonly string[] s_program = ["bandwidthGBps", "bytesPerRun", "memoryBoundFraction", "fpuFraction", "splitShare", "mergeShare", "profileLeaves"];
    private static readonly string[] s_demand = ["bandwidthGBps", "bytesPerRun", "memoryBoundFraction", "fpuFraction"];

    /// <summary>Reads a description file.</summary>
    /// <param name="path">The JSON file.</param>
    /// <returns>The description.</returns>
    /// <exception cref="InvalidDataException">The file is not a valid description (the message names the field).</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    public static MachineDescription Load(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (!File.Exists(path))
        {
            throw new InvalidDataException($"Machine description '{path}' does not exist.");
        }

        return Parse(File.ReadAllText(path), path);
    }

    /// <summary>Parses a description.</summary>
    /// <param name="json">The JSON text.</param>
    /// <param name="origin">Named in error messages (the file's path).</param>
    /// <returns>The description.</returns>
    /// <exception cref="InvalidDataException">The text is not a valid description (the message names the field).</exception>
    public static MachineDescription Parse(string json, string origin = "machine description")
    {
        ArgumentNullException.ThrowIfNull(json);
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(json, new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"{origin}: not valid JSON ({e.Message})", e);
        }

        using (document)
        {
            var reader = new Reader(origin);
            var root = reader.Object(document.RootElement, "$");
            string name = reader.String(root, "name", "$");
            string summary = root.TryGetProperty("summary", out var s) && s.ValueKind == JsonValueKind.String ? s.GetString()! : string.Empty;
            var figures = new Dictionary<string, MachineFigure>(StringComparer.Ordinal);
            var topology = reader.Object(reader.Required(root, "topology", "$"), "topology");
            foreach (string field in s_topology)
            {
                var figure = reader.Figure(reader.Required(topology, field, "topology"), $"topology.{field}");
                if (figure.Low != figure.High || figure.Middle != Math.Floor(figure.Middle) || figure.Middle < 1 || figure.Middle > 4096)
                {
                    throw reader.Error($"topology.{field}", "must be one whole number from 1 to 4096 (a plain 'value', no range)");
                }

                figures[$"topology.{field}"] = figure;
            }

            if (figures["topology.coresPerModule"].Middle > 2)
            {
                throw reader.Error("topology.coresPerModule", "must be 1 or 2");
            }

            ReadSection(reader, root, "memory", s_memory, figures);
            ReadSection(reader, root, "oversubscription", s_oversubscription, figures);
            ReadSection(reader, root, "modules", s_modules, figures);
            int dies = (int)(figures["topology.packages"].Middle * figures["topology.diesPerPackage"].Middle);
            var caches = topology.TryGetProperty("caches", out var c) ? ReadCaches(reader, c) : [];
            double[][]? distances = topology.TryGetProperty("numaDistances", out var n) ? ReadDistances(reader, n, dies) : null;
            var programs = new Dictionary<string, IReadOnlyDictionary<string, MachineFigure>>(StringComparer.OrdinalIgnoreCase);
            if (root.TryGetProperty("programs", out var p))
            {
                foreach (var program in reader.Object(p, "programs").EnumerateObject())
                {
                    string at = $"programs.{program.Name}";
                    var entry = reader.Object(program.Value, at);
                    var values = new Dictionary<string, MachineFigure>(StringComparer.Ordinal);
                    foreach (var field in entry.EnumerateObject())
                    {
                        if (Array.IndexOf(s_program, field.Name) < 0)
                        {
                            throw reader.Error($"{at}.{field.Name}", $"is not a program figure (expected {string.Join(", ", s_program)})");
                        }

                        var figure = reader.Figure(field.Value, $"{at}.{field.Name}");
                        if (field.Name.EndsWith("Fraction", StringComparison.Ordinal) && (figure.Low > 1 || figure.Middle > 1 || figure.High > 1))
                        {
                            throw reader.Error($"{at}.{field.Name}", "must be a fraction from 0 to 1");
                        }

                        if (field.Name.EndsWith("Share", StringComparison.Ordinal) && (figure.Low >= 1 || figure.Middle >= 1 || figure.High >= 1))
                        {
                            throw reader.Error($"{at}.{field.Name}", "must be a share from 0 to below 1");
                        }

                        if (field.Name == "profileLeaves" && Math.Min(figure.Low, Math.Min(figure.Middle, figure.High)) < 2)
                        {
                            throw reader.Error($"{at}.{field.Name}", "must be at least 2 (the leaf count of the profiled runs)");
                        }

                        values[field.Name] = figure;
                    }

                    if (values.TryGetValue("splitShare", out var splitShare) && values.TryGetValue("mergeShare", out var mergeShare)
                        && (splitShare.Low + mergeShare.Low >= 1 || splitShare.Middle + mergeShare.Middle >= 1 || splitShare.High + mergeShare.High >= 1))
                    {
                        throw reader.Error($"{at}.mergeShare", "plus splitShare must be below 1 (the leaves' share is what is left)");
                    }

                    if (values.ContainsKey("profileLeaves") && !values.ContainsKey("splitShare") && !values.ContainsKey("mergeShare"))
                    {
                        throw reader.Error($"{at}.profileLeaves", "needs splitShare or mergeShare");
                    }

                    if (values.ContainsKey("bandwidthGBps") && values.ContainsKey("bytesPerRun"))
                    {
                        throw reader.Error(at, "gives both bandwidthGBps and bytesPerRun; give one");
                    }

                    programs[program.Name] = values;
                }
            }

            return new MachineDescription(name, summary, figures, programs, caches, distances);
        }
    }

    /// <summary>
    /// Loads a description and resolves it from a specification <c>FILE[:low|middle|high][:contiguous|dispersed]</c>
    /// (the <c>simulate --machine</c> syntax; default middle, contiguous), for example
    /// <c>machines/thesis-opteron-6276.json:high:dispersed</c>.
    /// </summary>
    /// <param name="specification">The file and optional calibration and placement.</param>
    /// <returns>The model.</returns>
    /// <exception cref="InvalidDataException">The file is missing or invalid (the message names the field).</exception>
    public static MachineModel LoadModel(string specification)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(specification);
        string path = specification;
        var calibration = Calibration.Middle;
        var placement = CorePlacement.Contiguous;
        // Peel known words off the end, so a path may itself contain ':' (a Windows drive).
        for (int i = 0; i < 2; i++)
        {
            int colon = path.LastIndexOf(':');
            string word = colon < 0 ? string.Empty : path[(colon + 1)..];
            if (TryWord(word, out Calibration c))
            {
                calibration = c;
            }
            else if (TryWord(word, out CorePlacement p))
            {
                placement = p;
            }
            else
            {
                break;
            }

            path = path[..colon];
        }

        // A word that is neither a calibration nor a placement stays on the path; name it rather than the whole
        // specification as a missing file (a ':' at index 1 is a Windows drive, not a word).
        for (int colon = path.Length > 2 ? path.IndexOf(':', 2) : -1; colon > 0 && !File.Exists(path); colon = path.IndexOf(':', colon + 1))
        {
            if (File.Exists(path[..colon]))
            {
                string? unknown = path[(colon + 1)..].Split(':').FirstOrDefault(w => !TryWord(w, out Calibration _) && !TryWord(w, out CorePlacement _));
                throw new InvalidDataException(unknown is null
                    ? $"Machine description '{specification}': at most one calibration (low, middle, high) and one placement (contiguous, dispersed)."
                    : $"Machine description '{specification}': unknown calibration or placement '{unknown}' (known: low, middle, high, contiguous, dispersed).");
            }
        }

        return Load(path).Resolve(calibration, placement);
    }

    /// <summary>Whether <paramref name="word"/> names a value of <typeparamref name="TEnum"/> (by name, not by number), and which.</summary>
    private static bool TryWord<TEnum>(string word, out TEnum value)
        where TEnum : struct, Enum =>
        Enum.TryParse(word, ignoreCase: true, out value) && !int.TryParse(word, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out _);

    /// <summary>The numbers the simulator uses at one calibration and placement.</summary>
    /// <param name="calibration">Low, middle or high cost values.</param>
    /// <param name="placement">Where the simulated cores sit.</param>
    /// <returns>The model.</returns>
    public MachineModel Resolve(Calibration calibration = Calibration.Middle, CorePlacement placement = CorePlacement.Contiguous)
    {
        double At(string path) => Figures[path].At(calibration);
        var demands = new Dictionary<string, ProgramDemand>(StringComparer.OrdinalIgnoreCase);
        var bytes = new Dictionary<string, double>(StringComparer.OrdinalIgnoreCase);
        var profiles = new Dictionary<string, PhaseProfile>(StringComparer.OrdinalIgnoreCase);
        foreach (var (program, values) in Programs)
        {
            double Get(string field, double otherwise) => values.TryGetValue(field, out var f) ? f.At(calibration) : otherwise;
            double? Optional(string field) => values.TryGetValue(field, out var f) ? f.At(calibration) : null;
            if (values.ContainsKey("splitShare") || values.ContainsKey("mergeShare"))
            {
                profiles[program] = new PhaseProfile(Optional("splitShare"), Optional("mergeShare"), Optional("profileLeaves"));
            }

            // A program named only for its phase profile loads nothing (no demand: not even a memory-bound fraction).
            if (!s_demand.Any(values.ContainsKey))
            {
                continue;
            }

            demands[program] = new ProgramDemand(Get("bandwidthGBps", 0), Get("memoryBoundFraction", 1), Get("fpuFraction", 0));
            if (values.TryGetValue("bytesPerRun", out var b))
            {
                bytes[program] = b.At(calibration);
            }
        }

        var model = new MachineModel
        {
            Name = Name,
            Calibration = calibration,
            Packages = (int)At("topology.packages"),
            DiesPerPackage = (int)At("topology.diesPerPackage"),
            ModulesPerDie = (int)At("topology.modulesPerDie"),
            CoresPerModule = (int)At("topology.coresPerModule"),
            DieBandwidthGBps = At("memory.dieBandwidthGBps"),
            PackageBandwidthGBps = At("memory.packageBandwidthGBps"),
            ContextSwitchNs = (long)Math.Round(At("oversubscription.contextSwitchNs")),
            CacheRefillNs = (long)Math.Round(At("oversubscription.cacheRefillNs")),
            PreemptionPenalty = At("oversubscription.preemptionPenalty"),
            HandoverRefillNs = (long)Math.Round(At("oversubscription.handoverRefillNs")),
            FpuStretch = At("modules.fpuStretch"),
            SharedStretch = At("modules.sharedStretch"),
            Placement = placement,
            Programs = demands,
            BytesPerRun = bytes,
            PhaseProfiles = profiles,
        };
        model.Validate();
        return model;
    }

    /// <inheritdoc/>
    public override string ToString() => Name;

    private static void ReadSection(Reader reader, JsonElement root, string section, string[] fields, Dictionary<string, MachineFigure> figures)
    {
        var element = reader.Object(reader.Required(root, section, "$"), section);
        foreach (var property in element.EnumerateObject())
        {
            if (Array.IndexOf(fields, property.Name) < 0)
            {
                throw reader.Error($"{section}.{property.Name}", $"is not a {section} figure (expected {string.Join(", ", fields)})");
            }
        }

        foreach (string field in fields)
        {
            figures[$"{section}.{field}"] = reader.Figure(reader.Required(element, field, section), $"{section}.{field}");
        }
    }

    private static List<CacheLevel> ReadCaches(Reader reader, JsonElement element)
    {
        if (element.ValueKind != JsonValueKind.Array)
        {
            throw reader.Error("topology.caches", "must be an array");
        }

        var caches = new List<CacheLevel>();
        int i = 0;
        foreach (var cache in element.EnumerateArray())
        {
            string at = string.Create(CultureInfo.InvariantCulture, $"topology.caches[{i++}]");
            var o = reader.Object(cache, at);
            int level = (int)reader.Number(reader.Required(o, "level", at), $"{at}.level");
            string kind = reader.String(o, "kind", at);
            string sharedBy = reader.String(o, "sharedBy", at);
            if (sharedBy is not ("core" or "module" or "die" or "package"))
            {
                throw reader.Error($"{at}.sharedBy", $"must be core, module, die or package, not '{sharedBy}'");
            }

            var size = reader.Figure(reader.Required(o, "sizeKiB", at), $"{at}.sizeKiB");
            caches.Add(new CacheLevel(level, kind, size.Middle, sharedBy, size.Source));
        }

        return caches;
    }

    private static double[][] ReadDistances(Reader reader, JsonElement element, int dies)
    {
        const string At = "topology.numaDistances";
        var o = reader.Object(element, At);
        reader.String(o, "source", At);
        var value = reader.Required(o, "value", At);
        if (value.ValueKind != JsonValueKind.Array || value.GetArrayLength() != dies)
        {
            throw reader.Error($"{At}.value", string.Create(CultureInfo.InvariantCulture, $"must be a {dies} x {dies} matrix (one row per die)"));
        }

        var rows = new double[dies][];
        int r = 0;
        foreach (var row in value.EnumerateArray())
        {
            string rowAt = string.Create(CultureInfo.InvariantCulture, $"{At}.value[{r}]");
            if (row.ValueKind != JsonValueKind.Array || row.GetArrayLength() != dies)
            {
                throw reader.Error(rowAt, string.Create(CultureInfo.InvariantCulture, $"must have {dies} entries"));
            }

            rows[r++] = [.. row.EnumerateArray().Select((x, j) => reader.Number(x, string.Create(CultureInfo.InvariantCulture, $"{rowAt}[{j}]")))];
        }

        return rows;
    }

    /// <summary>Field readers that name the file and the JSON path of what is wrong.</summary>
    private sealed class Reader(string origin)
    {
        public InvalidDataException Error(string path, string problem) => new($"{origin}: {path} {problem}.");

        public JsonElement Object(JsonElement element, string path) =>
            element.ValueKind == JsonValueKind.Object ? element : throw Error(path, $"must be an object, not {element.ValueKind}");

        public JsonElement Required(JsonElement element, string field, string path) =>
            element.TryGetProperty(field, out var value) ? value : throw Error(path == "$" ? field : $"{path}.{field}", "is missing");

        public string String(JsonElement element, string field, string path)
        {
            var value = Required(element, field, path);
            string at = path == "$" ? field : $"{path}.{field}";
            return value.ValueKind == JsonValueKind.String && !string.IsNullOrWhiteSpace(value.GetString())
                ? value.GetString()!
                : throw Error(at, "must be a non-empty string");
        }

        public double Number(JsonElement element, string path) =>
            element.ValueKind == JsonValueKind.Number && element.TryGetDouble(out double v) && double.IsFinite(v) && v >= 0
                ? v
                : throw Error(path, $"must be a finite number >= 0, not {element}");

        /// <summary>{"value": x, "source": s} or {"low": a, "middle": b, "high": c, "source": s}, b between a and c.</summary>
        public MachineFigure Figure(JsonElement element, string path)
        {
            var o = Object(element, path);
            string source = String(o, "source", path);
            if (o.TryGetProperty("value", out var value))
            {
                if (o.TryGetProperty("low", out _) || o.TryGetProperty("middle", out _) || o.TryGetProperty("high", out _))
                {
                    throw Error(path, "gives both 'value' and a low/middle/high range; give one");
                }

                double v = Number(value, $"{path}.value");
                return new MachineFigure(v, v, v, source);
            }

            if (!o.TryGetProperty("middle", out _))
            {
                throw Error(path, "needs 'value' or 'low', 'middle' and 'high'");
            }

            double low = Number(Required(o, "low", path), $"{path}.low");
            double middle = Number(Required(o, "middle", path), $"{path}.middle");
            double high = Number(Required(o, "high", path), $"{path}.high");
            if (middle < Math.Min(low, high) || middle > Math.Max(low, high))
            {
                // Low and high name the calibrations of lowest and highest cost, so a bandwidth's low is its largest.
                throw Error(path, string.Create(CultureInfo.InvariantCulture, $"must have its middle between low and high (got {low}, {middle}, {high})"));
            }

            return new MachineFigure(low, middle, high, source);
        }
    }
}
