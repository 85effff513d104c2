using DivCon.Skeletons;

namespace DivCon.Bench.Bots;

/// <summary>The two problem sizes of every kernel.</summary>
internal enum KernelSize
{
    /// <summary>Milliseconds per run: the tests and a smoke run.</summary>
    Small,

    /// <summary>Sized so that the sequential run takes about 1-3 s on one core (README.md lists them).</summary>
    Bots,
}

/// <summary>
/// One kernel at one size: its input, its working buffers and its variants. A run is <see cref="Reset"/> (untimed:
/// fresh input), <see cref="RunAsync"/> (timed) and <see cref="Checksum"/> (untimed: a digest of every bit of the
/// output, so two variants agree exactly or not at all). One case runs one variant at a time.
/// </summary>
internal abstract class KernelCase
{
    /// <summary>The kernel's name on the command line (<c>sort</c>, <c>fft</c>, ...).</summary>
    public abstract string Name { get; }

    /// <summary>The problem and its cutoffs, for the report.</summary>
    public abstract string Description { get; }

    /// <summary>
    /// The variants this kernel runs: <see cref="VariantNames.All"/>, and for some kernels extra ones after them
    /// (reported in their own table).
    /// </summary>
    public virtual IReadOnlyList<Variant> Variants => VariantNames.All;

    /// <summary>Restores the input (untimed), so every run starts from the same data.</summary>
    public abstract void Reset();

    /// <summary>Runs <paramref name="variant"/> on the input.</summary>
    /// <param name="variant">The variant.</param>
    /// <param name="divCon">For the DivCon variants: the top-level run's scheduler and observer (nested runs and loops
    /// name only the observer, and run on the caller's scheduler: the run's own).</param>
    public abstract Task RunAsync(Variant variant, DivideAndConquerOptions divCon);

    /// <summary>A 64-bit digest of the whole output (untimed).</summary>
    public abstract ulong Checksum();
}
