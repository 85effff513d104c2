using System.Runtime.CompilerServices;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots.Kernels;

/// <summary>
/// BOTS Strassen: C = A x B for n x n matrices (n a power of two) by the Winograd form of Strassen's recursion, seven
/// half-size products and fifteen additions per step, as the suite arranges them: S1 = A21 + A22, S2 = S1 - A11,
/// S3 = A11 - A21, S4 = A12 - S2, S5 = B12 - B11, S6 = B22 - S5, S7 = B22 - B12, S8 = S6 - B21; products
/// M2 = A11 B11, M5 = S1 S5, T1 = S2 S6, C22 = S3 S7, C11 = A12 B21, C12 = S4 B22, C21 = A22 S8; then T1 += M2,
/// T2 = T1 + C22, C11 += M2, C12 += M5 + T1, C21 = T2 - C21, C22 = T2 + M5. Products of at most
/// <see cref="SizeCutoff"/> rows are plain triple loops; the TPL versions spawn the seven products as tasks above
/// depth <see cref="DepthCutoff"/> (both the suite's defaults).
/// </summary>
internal sealed class StrassenKernel : KernelCase
{
    /// <summary>Products of at most this many rows are multiplied directly (the suite's default).</summary>
    public const int SizeCutoff = 64;

    /// <summary>The TPL versions spawn tasks only for nodes above this depth (the suite's default).</summary>
    public const int DepthCutoff = 3;

    private readonly int _n;
    private readonly double[] _a;
    private readonly double[] _b;
    private readonly double[] _c;
    private readonly DivideAndConquer<Product, bool> _divCon;

    /// <summary>Creates the product of two pseudo-random <paramref name="n"/> x <paramref name="n"/> matrices.</summary>
    public StrassenKernel(int n)
    {
        if (n < 1 || (n & (n - 1)) != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(n), n, "Strassen needs a power of two rows.");
        }

        _n = n;
        var random = new Random(29);
        _a = new double[n * n];
        _b = new double[n * n];
        _c = new double[n * n];
        for (int i = 0; i < _a.Length; i++)
        {
            _a[i] = random.NextDouble();
            _b[i] = random.NextDouble();
        }

        // Everything synchronous: Create with the default granularity, every product above the cutoff a node.
        _divCon = DivideAndConquer.Create<Product, bool>(
            shouldSplit: (p, depth) => p.N > SizeCutoff,
            split: (p, depth) => p.Split(),
            execute: (p, depth) => p.MultiplyDirectly(),
            merge: (p, products, depth) => p.Combine());
    }

    /// <inheritdoc/>
    public override string Name => "strassen";

    /// <inheritdoc/>
    public override string Description => $"{_n} x {_n} doubles; direct product at {SizeCutoff} rows, tasks above depth {DepthCutoff}";

    /// <summary>The inputs and the product of the last run, row-major.</summary>
    public (double[] A, double[] B, double[] C) Matrices => (_a, _b, _c);

    /// <inheritdoc/>
    public override void Reset() => Array.Clear(_c);

    /// <inheritdoc/>
    public override ulong Checksum()
    {
        var digest = new Digest();
        digest.Add<double>(_c);
        return digest.Value;
    }

    /// <inheritdoc/>
    public override Task RunAsync(Variant variant, DivideAndConquerOptions divCon)
    {
        var all = new Product(new View(_a, 0, _n), new View(_b, 0, _n), new View(_c, 0, _n), _n);
        switch (variant)
        {
            case Variant.Sequential:
                MultiplySequential(all);
                return Task.CompletedTask;
            case Variant.ParallelInvoke:
                MultiplyInvoke(all, 0);
                return Task.CompletedTask;
            case Variant.TaskRun:
                return MultiplyTasksAsync(all, 0);
            default:
                return _divCon.RunAsync(all, divCon);
        }
    }

    private static void MultiplySequential(Product p)
    {
        if (p.N <= SizeCutoff)
        {
            p.MultiplyDirectly();
            return;
        }

        foreach (Product product in p.Split())
        {
            MultiplySequential(product);
        }

        p.Combine();
    }

    private static void MultiplyInvoke(Product p, int depth)
    {
        if (p.N <= SizeCutoff)
        {
            p.MultiplyDirectly();
            return;
        }

        Product[] products = p.Split();
        if (depth < DepthCutoff)
        {
            Parallel.Invoke(Array.ConvertAll(products, q => (Action)(() => MultiplyInvoke(q, depth + 1))));
        }
        else
        {
            foreach (Product q in products)
            {
                MultiplySequential(q);
            }
        }

        p.Combine();
    }

    private static async Task MultiplyTasksAsync(Product p, int depth)
    {
        if (p.N <= SizeCutoff)
        {
            p.MultiplyDirectly();
            return;
        }

        Product[] products = p.Split();
        if (depth < DepthCutoff)
        {
            await Task.WhenAll(Array.ConvertAll(products, q => Task.Run(() => MultiplyTasksAsync(q, depth + 1)))).ConfigureAwait(false);
        }
        else
        {
            foreach (Product q in products)
            {
                MultiplySequential(q);
            }
        }

        p.Combine();
    }

    /// <summary>A square block of a row-major matrix: rows of <c>Stride</c> elements from <c>Offset</c>.</summary>
    internal readonly record struct View(double[] Data, int Offset, int Stride)
    {
        public View Quadrant(int row, int column, int half) => this with { Offset = Offset + (row * half * Stride) + (column * half) };

        public static View Fresh(int n) => new(new double[n * n], 0, n);
    }

    /// <summary>
    /// C = A x B for n x n blocks. <see cref="Split"/> computes the sums and keeps them (and the products' scratch
    /// blocks) on the instance for <see cref="Combine"/>.
    /// </summary>
    internal sealed class Product(View a, View b, View c, int n)
    {
        private View _m2, _m5, _t1;

        public int N => n;

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public Product[] Split()
        {
            int h = n / 2;
            View a11 = a.Quadrant(0, 0, h), a12 = a.Quadrant(0, 1, h), a21 = a.Quadrant(1, 0, h), a22 = a.Quadrant(1, 1, h);
            View b11 = b.Quadrant(0, 0, h), b12 = b.Quadrant(0, 1, h), b21 = b.Quadrant(1, 0, h), b22 = b.Quadrant(1, 1, h);
            View s1 = View.Fresh(h), s2 = View.Fresh(h), s3 = View.Fresh(h), s4 = View.Fresh(h);
            View s5 = View.Fresh(h), s6 = View.Fresh(h), s7 = View.Fresh(h), s8 = View.Fresh(h);
            for (int i = 0; i < h; i++)
            {
                for (int j = 0; j < h; j++)
                {
                    int k = (i * h) + j;
                    double x11 = At(a11, i, j), x12 = At(a12, i, j), x21 = At(a21, i, j), x22 = At(a22, i, j);
                    double y11 = At(b11, i, j), y12 = At(b12, i, j), y21 = At(b21, i, j), y22 = At(b22, i, j);
                    double t1 = x21 + x22, t2 = t1 - x11, t5 = y12 - y11, t6 = y22 - t5;
                    s1.Data[k] = t1;
                    s2.Data[k] = t2;
                    s3.Data[k] = x11 - x21;
                    s4.Data[k] = x12 - t2;
                    s5.Data[k] = t5;
                    s6.Data[k] = t6;
                    s7.Data[k] = y22 - y12;
                    s8.Data[k] = t6 - y21;
                }
            }

            _m2 = View.Fresh(h);
            _m5 = View.Fresh(h);
            _t1 = View.Fresh(h);
            return
            [
                new Product(a11, b11, _m2, h),
                new Product(s1, s5, _m5, h),
                new Product(s2, s6, _t1, h),
                new Product(s3, s7, c.Quadrant(1, 1, h), h),
                new Product(a12, b21, c.Quadrant(0, 0, h), h),
                new Product(s4, b22, c.Quadrant(0, 1, h), h),
                new Product(a22, s8, c.Quadrant(1, 0, h), h),
            ];
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public bool Combine()
        {
            int h = n / 2;
            View c11 = c.Quadrant(0, 0, h), c12 = c.Quadrant(0, 1, h), c21 = c.Quadrant(1, 0, h), c22 = c.Quadrant(1, 1, h);
            for (int i = 0; i < h; i++)
            {
                for (int j = 0; j < h; j++)
                {
                    int k = (i * h) + j;
                    double m2 = _m2.Data[k], m5 = _m5.Data[k];
                    double t1 = _t1.Data[k] + m2;
                    double t2 = t1 + At(c22, i, j);
                    c11.Data[c11.Offset + (i * c11.Stride) + j] += m2;
                    c12.Data[c12.Offset + (i * c12.Stride) + j] += m5 + t1;
                    c21.Data[c21.Offset + (i * c21.Stride) + j] = t2 - At(c21, i, j);
                    c22.Data[c22.Offset + (i * c22.Stride) + j] = t2 + m5;
                }
            }

            _m2 = _m5 = _t1 = default;   // the scratch blocks are garbage from here
            return true;
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public bool MultiplyDirectly()
        {
            for (int i = 0; i < n; i++)
            {
                Span<double> row = c.Data.AsSpan(c.Offset + (i * c.Stride), n);
                row.Clear();
                for (int k = 0; k < n; k++)
                {
                    double x = a.Data[a.Offset + (i * a.Stride) + k];
                    ReadOnlySpan<double> other = b.Data.AsSpan(b.Offset + (k * b.Stride), n);
                    for (int j = 0; j < row.Length; j++)
                    {
                        row[j] += x * other[j];
                    }
                }
            }

            return true;
        }

        private static double At(View v, int i, int j) => v.Data[v.Offset + (i * v.Stride) + j];
    }
}
