// Two programs on one multiprogram scheduler, hosted: "squares" is a parallel loop, "pipeline" an async workflow.
// The scheduler starts with the host and is drained when it stops (Ctrl-C, SIGTERM, or after Sample:Rounds rounds).
using DivCon.Hosting;
using DivCon.Samples.Host;

// Content root beside the executable, so appsettings.json is found from any working directory.
HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings
{
    Args = args,
    ContentRootPath = AppContext.BaseDirectory,
});
builder.Logging.AddSimpleConsole(o =>
{
    o.SingleLine = true;
    o.TimestampFormat = "HH:mm:ss.fff ";
});
builder.Services.AddDivConMultiprogram(builder.Configuration.GetSection(DivConMultiprogramOptions.SectionName));
builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromSeconds(10));
builder.Services.AddHostedService<SquaresProgram>();
builder.Services.AddHostedService<PipelineProgram>();

using IHost host = builder.Build();
try
{
    await host.RunAsync();
    return 0;
}
catch (Exception e) when (e is Microsoft.Extensions.Options.OptionsValidationException or InvalidOperationException)
{
    // Bad options (named with their value) or a machine that cannot honour them: one line, exit code 1.
    Console.Error.WriteLine($"error: {e.Message}");
    return 1;
}
