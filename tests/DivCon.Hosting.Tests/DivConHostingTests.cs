using DivCon.Schedulers.Multiprogram;
using DivCon.Schedulers.Multiprogram.Policies;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace DivCon.Hosting.Tests;

/// <summary>
/// The hosting package in a real generic host: options bound and validated at start, programs by name, the
/// scheduler started with the host and drained at its stop within the host's shutdown timeout. Unpinned workers,
/// so the tests run on any machine; waits are bounded, never timed.
/// </summary>
public sealed class DivConHostingTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task Options_bound_from_configuration_start_the_scheduler_with_its_programs_by_name()
    {
        using IHost host = BuildHost(new Dictionary<string, string?>
        {
            ["DivCon:Multiprogram:WorkerCount"] = "2",
            ["DivCon:Multiprogram:Pin"] = "false",
            ["DivCon:Multiprogram:Policy"] = "Equal",
            ["DivCon:Multiprogram:RebalanceInterval"] = "00:00:00.050",
            ["DivCon:Multiprogram:MoveHandoverThreshold"] = "00:00:00.002",
            ["DivCon:Multiprogram:HistoryCapacity"] = "100",
            ["DivCon:Multiprogram:Programs:orders:Speedup"] = "3.5",
            ["DivCon:Multiprogram:Programs:reports:Speedup"] = "1.5",
        });
        var programs = host.Services.GetRequiredService<DivConPrograms>();

        await host.StartAsync();

        MultiprogramScheduler scheduler = programs.Scheduler;
        Assert.Equal(2, scheduler.WorkerCount);
        Assert.False(scheduler.IsPinned);
        Assert.IsType<EqualSharePolicy>(scheduler.Policy);
        Assert.Equal(TimeSpan.FromMilliseconds(50), scheduler.RebalanceInterval);
        Assert.Equal(["orders", "reports"], programs.Names);
        Assert.Equal(3.5, programs.Get("orders").Speedup);
        Assert.Equal(1.5, programs.Get("reports").Speedup);
        Assert.Equal(["orders", "reports"], scheduler.Programs.Select(p => p.Name));
        Assert.Equal(42, await programs.Get("orders").Run(() => 6 * 7).WaitAsync(Timeout));
        Assert.True(await programs.Get("reports").Run(() => programs.Get("reports").IsCurrentThreadServing).WaitAsync(Timeout));

        await host.StopAsync();
        Assert.True(scheduler.IsDisposed);
        Assert.False(scheduler.ShutdownTimedOut); // Every worker has exited.
    }

    [Fact]
    public async Task Options_set_in_code_add_to_the_bound_ones_and_the_scheduler_is_one_per_host()
    {
        using IHost host = BuildHost(
            new Dictionary<string, string?> { ["DivCon:Multiprogram:Programs:bound:Speedup"] = "2" },
            services => services.AddDivConMultiprogram(o =>
            {
                o.Pin = false;
                o.WorkerCount = 2;
                o.AddProgram("coded", 4.0);
            }));

        await host.StartAsync();
        var programs = host.Services.GetRequiredService<DivConPrograms>();
        Assert.Equal(["bound", "coded"], programs.Names);
        Assert.Single(host.Services.GetServices<IHostedService>(), s => s.GetType().Namespace == "DivCon.Hosting");
        Assert.Same(programs, host.Services.GetRequiredService<DivConPrograms>());
        Assert.True(programs.TryGet("coded", out ProgramTaskScheduler? coded));
        Assert.Equal(4.0, coded.Speedup);
        Assert.False(programs.TryGet("missing", out _));
        var missing = Assert.Throws<KeyNotFoundException>(() => programs.Get("missing"));
        Assert.Contains("'missing'", missing.Message, StringComparison.Ordinal);
        Assert.Contains("bound, coded", missing.Message, StringComparison.Ordinal);
        await host.StopAsync();
    }

    [Theory]
    [InlineData("WorkerCount", "0", "WorkerCount is '0'")]
    [InlineData("Policy", "fastest", "Policy is 'fastest'; use one of: learned-scalability, task-availability, equal")]
    [InlineData("RebalanceInterval", "-00:00:01", "RebalanceInterval is '-00:00:01'")]
    [InlineData("MoveHandoverThreshold", "-00:00:02", "MoveHandoverThreshold is '-00:00:02'")]
    [InlineData("HistoryCapacity", "-1", "HistoryCapacity is '-1'")]
    [InlineData("Programs:orders:Speedup", "0", "Programs:orders:Speedup is '0'")]
    [InlineData("Programs:orders:Speedup", "NaN", "Programs:orders:Speedup is 'NaN'")]
    [InlineData("CpuIds:0", "3", "CpuIds is [3] but Pin is false")]
    public async Task A_bad_setting_stops_the_host_at_start_naming_the_setting_and_its_value(string key, string value, string expected)
    {
        var settings = new Dictionary<string, string?>
        {
            ["DivCon:Multiprogram:WorkerCount"] = "2",
            ["DivCon:Multiprogram:Pin"] = "false",
            ["DivCon:Multiprogram:Programs:orders:Speedup"] = "1",
            ["DivCon:Multiprogram:" + key] = value,
        };
        using IHost host = BuildHost(settings);

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
        Assert.All(error.Failures, f => Assert.StartsWith("DivCon multiprogram options: ", f, StringComparison.Ordinal));
    }

    [Fact]
    public async Task Options_the_machine_cannot_honour_stop_the_start_with_the_reason()
    {
        // A CPU id far beyond any machine: valid as a setting, refused when the scheduler is created.
        using IHost host = BuildHost(new Dictionary<string, string?>
        {
            ["DivCon:Multiprogram:CpuIds:0"] = "100000",
        });

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());

        Assert.Contains("could not start", error.Message, StringComparison.Ordinal);
        Assert.NotNull(error.InnerException);
    }

    [Fact]
    public async Task The_hosts_stop_drains_every_queued_task_and_leaves_no_worker()
    {
        using IHost host = BuildHost(Unpinned(2, ("a", 1), ("b", 1)));
        await host.StartAsync();
        var programs = host.Services.GetRequiredService<DivConPrograms>();
        using var release = new ManualResetEventSlim();
        int ran = 0;
        // Two blockers hold both workers, so every other task is still queued when the stop begins.
        Task[] blockers = [.. programs.Names.Select(name => programs.Get(name).Run(() => release.Wait(Timeout)))];
        Task[] queued = [.. Enumerable.Range(0, 200).Select(i => programs.Get(i % 2 == 0 ? "a" : "b").Run(() => Interlocked.Increment(ref ran)))];

        Task stopping = host.StopAsync();
        Assert.False(stopping.IsCompleted);
        release.Set();
        await stopping.WaitAsync(Timeout);

        Assert.Equal(200, ran);
        Assert.All(queued, t => Assert.True(t.IsCompletedSuccessfully));
        Assert.All(blockers, t => Assert.True(t.IsCompletedSuccessfully));
        Assert.False(programs.Scheduler.ShutdownTimedOut);
        Assert.Throws<TaskSchedulerException>(() => { _ = programs.Get("a").Run(() => { }); });
    }

    [Fact]
    public async Task A_task_that_outlives_the_shutdown_timeout_does_not_hold_the_host_and_its_worker_exits_after_it()
    {
        var log = new ListLoggerProvider();
        using IHost host = BuildHost(Unpinned(1, ("slow", 1)), services =>
        {
            services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromMilliseconds(200));
            services.AddLogging(b => b.AddProvider(log));
        });
        await host.StartAsync();
        var programs = host.Services.GetRequiredService<DivConPrograms>();
        using var release = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        Task slow = programs.Get("slow").Run(() =>
        {
            started.Set();
            release.Wait(Timeout);
        });
        Assert.True(started.Wait(Timeout));

        await host.StopAsync().WaitAsync(Timeout); // Returns after the host's timeout although the task still runs.

        Assert.False(slow.IsCompleted);
        Assert.Contains(log.Messages, m => m.Contains("shutdown timeout passed with 1 tasks", StringComparison.Ordinal));
        MultiprogramScheduler scheduler = programs.Scheduler;
        release.Set();
        await slow.WaitAsync(Timeout);
        // The shutdown begun by the host's stop goes on: its task completes once every worker has exited.
        await scheduler.ShutdownAsync().WaitAsync(Timeout);
    }

    [Fact]
    public async Task Disposing_a_host_that_was_never_stopped_still_ends_the_scheduler()
    {
        MultiprogramScheduler scheduler;
        using (IHost host = BuildHost(Unpinned(2, ("a", 1))))
        {
            await host.StartAsync();
            scheduler = host.Services.GetRequiredService<DivConPrograms>().Scheduler;
        }

        Assert.True(scheduler.IsDisposed);
        Assert.False(scheduler.ShutdownTimedOut);
    }

    [Fact]
    public void Bad_arguments_are_refused_naming_the_parameter()
    {
        var services = new ServiceCollection();
        Assert.Equal("configure", Assert.Throws<ArgumentNullException>(() => services.AddDivConMultiprogram((Action<DivConMultiprogramOptions>)null!)).ParamName);
        Assert.Equal("configuration", Assert.Throws<ArgumentNullException>(() => services.AddDivConMultiprogram((IConfiguration)null!)).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => new DivConMultiprogramOptions().AddProgram(" ", 1)).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => DivConPolicies.Create("nope")).ParamName);
        Assert.All(DivConPolicies.Names, name => Assert.Equal(name, DivConPolicies.Create(name.ToUpperInvariant()).Name));
    }

    private static Dictionary<string, string?> Unpinned(int workers, params (string Name, double Speedup)[] programs)
    {
        var settings = new Dictionary<string, string?>
        {
            ["DivCon:Multiprogram:WorkerCount"] = workers.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["DivCon:Multiprogram:Pin"] = "false",
        };
        foreach ((string name, double speedup) in programs)
        {
            settings[$"DivCon:Multiprogram:Programs:{name}:Speedup"] = speedup.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }

        return settings;
    }

    private static IHost BuildHost(Dictionary<string, string?> settings, Action<IServiceCollection>? more = null)
    {
        HostApplicationBuilder builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Services.AddDivConMultiprogram(builder.Configuration.GetSection(DivConMultiprogramOptions.SectionName));
        more?.Invoke(builder.Services);
        return builder.Build();
    }

    /// <summary>Collects formatted log messages.</summary>
    private sealed class ListLoggerProvider : ILoggerProvider, ILogger
    {
        private readonly System.Collections.Concurrent.ConcurrentQueue<string> _messages = new();

        public IReadOnlyCollection<string> Messages => _messages;

        public ILogger CreateLogger(string categoryName) => this;

        public void Dispose()
        {
        }

        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            _messages.Enqueue(formatter(state, exception));
    }
}
