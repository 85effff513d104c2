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
await host.RunAsync();
