using DivCon.Bench.Bots;

// dotnet run -c Release --project bench/Bots -- [--kernels sort,fft,...] [--rounds 5] [--warmup 1] [--size small|bots] [--out DIR] [--isolated]
if (args.Length > 0 && args[0] == VariantProcess.ChildFlag)
{
    return VariantProcess.ServeChild(args, Console.In, Console.Out);
}

Options options;
try
{
    options = Options.Parse(args);
}
catch (ArgumentException e)
{
    Console.Error.WriteLine($"error: {e.Message.Split(" (Parameter")[0]}");
    return 1;
}

IReadOnlyList<KernelResult> results;
try
{
    results = await new Runner(options, Console.Out).RunAsync();
}
catch (InvalidOperationException e)
{
    Console.Error.WriteLine($"error: {e.Message}");
    return 1;
}

string commandLine = "dotnet run -c Release --project bench/Bots --" + string.Concat(args.Select(a => " " + a));
string markdown = Report.Markdown(results, options, commandLine);
string folder;
try
{
    folder = Report.NewFolder(options.OutputDirectory, options);
    await File.WriteAllTextAsync(Path.Combine(folder, "bots.md"), markdown);
    await File.WriteAllTextAsync(Path.Combine(folder, "bots.csv"), Report.RunsCsv(results));
    await File.WriteAllTextAsync(Path.Combine(folder, "bots-summary.csv"), Report.SummaryCsv(results));
}
catch (Exception e) when (e is IOException or UnauthorizedAccessException)
{
    Console.WriteLine(markdown);
    Console.Error.WriteLine($"error: cannot write the results under '{options.OutputDirectory}': {e.Message}");
    return 1;
}

Console.WriteLine();
Console.WriteLine(markdown);
Console.WriteLine($"written to {folder}");
return 0;
