using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace DivCon.Hosting;

/// <summary>Registers the DivCon multiprogram scheduler in a host's services.</summary>
/// <example>
/// <code>
/// builder.Services.AddDivConMultiprogram(builder.Configuration.GetSection(DivConMultiprogramOptions.SectionName));
/// // later, in a service: DivConPrograms programs => programs.Get("orders").RunAsync(...)
/// </code>
/// </example>
public static class DivConHostingServiceCollectionExtensions
{
    /// <summary>
    /// Adds the multiprogram scheduler configured in code: <see cref="DivConPrograms"/> (a singleton), the options
    /// (validated when the host starts) and a hosted service that starts the scheduler with the host and drains it
    /// at the host's stop. Calling it again adds the configuration, not a second scheduler.
    /// </summary>
    /// <param name="services">The host's services.</param>
    /// <param name="configure">Sets the options (workers, policy, programs by name).</param>
    /// <returns><paramref name="services"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public static IServiceCollection AddDivConMultiprogram(this IServiceCollection services, Action<DivConMultiprogramOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        AddCore(services).Configure(configure);
        return services;
    }

    /// <summary>
    /// Adds the multiprogram scheduler (as <see cref="AddDivConMultiprogram(IServiceCollection, Action{DivConMultiprogramOptions})"/>)
    /// with its options bound from a configuration section, usually <see cref="DivConMultiprogramOptions.SectionName"/>.
    /// </summary>
    /// <param name="services">The host's services.</param>
    /// <param name="configuration">The section to bind (its keys are the options' property names).</param>
    /// <returns><paramref name="services"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public static IServiceCollection AddDivConMultiprogram(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        AddCore(services).Bind(configuration);
        return services;
    }

    /// <summary>
    /// Adds the multiprogram scheduler with its options bound from a configuration section, then adjusted in code
    /// (the code runs after the binding).
    /// </summary>
    /// <param name="services">The host's services.</param>
    /// <param name="configuration">The section to bind.</param>
    /// <param name="configure">Adjusts the bound options.</param>
    /// <returns><paramref name="services"/>.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public static IServiceCollection AddDivConMultiprogram(
        this IServiceCollection services, IConfiguration configuration, Action<DivConMultiprogramOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        ArgumentNullException.ThrowIfNull(configure);
        AddCore(services).Bind(configuration).Configure(configure);
        return services;
    }

    private static OptionsBuilder<DivConMultiprogramOptions> AddCore(IServiceCollection services)
    {
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<DivConMultiprogramOptions>, DivConMultiprogramOptionsValidator>());
        services.TryAddSingleton<DivConPrograms>();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<Microsoft.Extensions.Hosting.IHostedService, DivConMultiprogramHostedService>());
        return services.AddOptions<DivConMultiprogramOptions>().ValidateOnStart();
    }
}
