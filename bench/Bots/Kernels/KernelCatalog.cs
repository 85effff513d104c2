namespace DivCon.Bench.Bots.Kernels;

/// <summary>The ported kernels by name, at the two sizes.</summary>
internal static class KernelCatalog
{
    /// <summary>Every kernel's name, in the order they run.</summary>
    public static readonly IReadOnlyList<string> Names = ["sort", "fft", "strassen", "sparselu", "nqueens"];

    /// <summary>Creates kernel <paramref name="name"/> at <paramref name="size"/>.</summary>
    /// <exception cref="ArgumentException">No kernel has that name.</exception>
    public static KernelCase Create(string name, KernelSize size)
    {
        bool small = size == KernelSize.Small;
        return name switch
        {
            "sort" => new SortKernel(small ? 1 << 15 : 1 << 24),
            "fft" => new FftKernel(small ? 1 << 12 : 1 << 22),
            "strassen" => new StrassenKernel(small ? 256 : 1024),
            "sparselu" => small ? new SparseLuKernel(12, 16) : new SparseLuKernel(50, 64),
            "nqueens" => new NQueensKernel(small ? 8 : 13),
            _ => throw new ArgumentException($"Unknown kernel '{name}' (known: {string.Join(", ", Names)}).", nameof(name)),
        };
    }
}
