using System.Runtime.CompilerServices;
using DivCon.Skeletons;

namespace DivCon.Bench.Bots.Kernels;

/// <summary>
/// BOTS SparseLU: LU factorisation of a sparse matrix of NB x NB blocks of BS x BS floats, some blocks absent (the
/// suite's pattern and generator). Step kk factors the diagonal block (lu0), then in parallel updates the row blocks
/// to its right (fwd) and the column blocks below it (bdiv), then in parallel updates every inner block (ii, jj) with
/// both a column and a row block (bmod), creating a zero block where the inner one is absent (fill-in). One task per
/// block operation, as the suite's single-producer version; the fill-in blocks are created before the bmod phase
/// starts. This is loop parallelism, not recursion: the DivCon version runs each phase as a parallel loop.
/// </summary>
internal sealed class SparseLuKernel : KernelCase
{
    private readonly int _blocks;
    private readonly int _blockSize;
    private readonly float[]?[] _input;
    private readonly float[]?[] _matrix;

    /// <summary>Creates the factorisation of <paramref name="blocks"/>^2 blocks of <paramref name="blockSize"/>^2 floats.</summary>
    public SparseLuKernel(int blocks, int blockSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(blocks, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(blockSize, 1);
        _blocks = blocks;
        _blockSize = blockSize;
        _input = Generate(blocks, blockSize);
        _matrix = new float[]?[blocks * blocks];
    }

    /// <inheritdoc/>
    public override string Name => "sparselu";

    /// <inheritdoc/>
    public override string Description => $"{_blocks} x {_blocks} blocks of {_blockSize} x {_blockSize} floats; a task per block operation";

    /// <summary>The factored blocks of the last run (row-major; null where absent).</summary>
    public IReadOnlyList<float[]?> Output => _matrix;

    /// <summary>The input blocks.</summary>
    public IReadOnlyList<float[]?> Input => _input;

    /// <inheritdoc/>
    public override void Reset()
    {
        for (int i = 0; i < _input.Length; i++)
        {
            _matrix[i] = _input[i] is { } block ? (float[])block.Clone() : null;
        }
    }

    /// <inheritdoc/>
    public override ulong Checksum()
    {
        var digest = new Digest();
        foreach (float[]? block in _matrix)
        {
            if (block is null)
            {
                digest.Add(-1);
            }
            else
            {
                digest.Add<float>(block);
            }
        }

        return digest.Value;
    }

    /// <inheritdoc/>
    public override Task RunAsync(Variant variant, DivideAndConquerOptions divCon) => variant switch
    {
        Variant.Sequential => Run(static ops => { foreach (Action op in ops) { op(); } }),
        Variant.ParallelInvoke => Run(static ops => Parallel.Invoke([.. ops])),
        Variant.TaskRun => RunAsync(static (ops, _) => Task.WhenAll(ops.Select(Task.Run))),
        _ => RunAsync((ops, cost) => DivideAndConquer.ForRangesAsync(0, ops.Count, range => RunOps(ops, range), divCon, cost).AsTask()),
    };

    // One loop lambda serves both phases, whose operations differ in cost (a bmod is about twice a fwd or bdiv), so
    // each phase keeps its own learned cost per operation: the loop's costKey.
    private static readonly object s_fwdBdivCost = new();
    private static readonly object s_bmodCost = new();

    private static void RunOps(List<Action> ops, IndexRange range)
    {
        for (int i = range.Start; i < range.End; i++)
        {
            ops[i]();
        }
    }

    /// <summary>The suite's matrix: the sparsity pattern and the linear congruential values, block by block.</summary>
    internal static float[]?[] Generate(int blocks, int blockSize)
    {
        var m = new float[]?[blocks * blocks];
        int value = 1325;
        for (int ii = 0; ii < blocks; ii++)
        {
            for (int jj = 0; jj < blocks; jj++)
            {
                bool absent = (ii < jj && ii % 3 != 0) || (ii > jj && jj % 3 != 0) || ii % 2 == 1 || jj % 2 == 1;
                if (ii == jj || ii == jj - 1 || ii - 1 == jj)
                {
                    absent = false;
                }

                if (absent)
                {
                    continue;
                }

                var block = new float[blockSize * blockSize];
                for (int k = 0; k < block.Length; k++)
                {
                    value = 3125 * value % 65536;
                    block[k] = (float)((value - 32768.0) / 16384.0);
                }

                m[(ii * blocks) + jj] = block;
            }
        }

        return m;
    }

    private Task Run(Action<List<Action>> phase)
    {
        for (int kk = 0; kk < _blocks; kk++)
        {
            Lu0(Block(kk, kk));
            phase(FwdBdivPhase(kk));
            phase(BmodPhase(kk));
        }

        return Task.CompletedTask;
    }

    // phase: (the phase's operations, the key of its cost per operation) => their run.
    private async Task RunAsync(Func<List<Action>, object, Task> phase)
    {
        for (int kk = 0; kk < _blocks; kk++)
        {
            Lu0(Block(kk, kk));
            await phase(FwdBdivPhase(kk), s_fwdBdivCost).ConfigureAwait(false);
            await phase(BmodPhase(kk), s_bmodCost).ConfigureAwait(false);
        }
    }

    private float[] Block(int ii, int jj) => _matrix[(ii * _blocks) + jj] ?? throw new InvalidOperationException($"Block ({ii}, {jj}) is absent.");

    private List<Action> FwdBdivPhase(int kk)
    {
        var ops = new List<Action>();
        float[] diagonal = Block(kk, kk);
        for (int jj = kk + 1; jj < _blocks; jj++)
        {
            if (_matrix[(kk * _blocks) + jj] is { } row)
            {
                ops.Add(() => Fwd(diagonal, row));
            }
        }

        for (int ii = kk + 1; ii < _blocks; ii++)
        {
            if (_matrix[(ii * _blocks) + kk] is { } column)
            {
                ops.Add(() => Bdiv(diagonal, column));
            }
        }

        return ops;
    }

    // Creates the fill-in blocks here, before any bmod of the phase runs, as the suite's producer does.
    private List<Action> BmodPhase(int kk)
    {
        var ops = new List<Action>();
        for (int ii = kk + 1; ii < _blocks; ii++)
        {
            if (_matrix[(ii * _blocks) + kk] is not { } column)
            {
                continue;
            }

            for (int jj = kk + 1; jj < _blocks; jj++)
            {
                if (_matrix[(kk * _blocks) + jj] is not { } row)
                {
                    continue;
                }

                float[] inner = _matrix[(ii * _blocks) + jj] ??= new float[_blockSize * _blockSize];
                ops.Add(() => Bmod(column, row, inner));
            }
        }

        return ops;
    }

    // The four block operations are compiled once, fully optimised, and never inlined, so that every variant runs the
    // same machine code per block. Left to tiered compilation and dynamic PGO, the code that calls an operation (the
    // sequential loop, the DivCon loop body, the TPL's delegate invocation) could take it in with its own profile: the
    // same operations then cost up to 1.7 times as much CPU time in one variant as in another within one run (the
    // sequential baseline among the dearest), a difference of code generation that the ratios would have credited to
    // scheduling. With these attributes the variants' CPU times agree (see README.md).
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private void Lu0(float[] diagonal)
    {
        int n = _blockSize;
        for (int k = 0; k < n; k++)
        {
            for (int i = k + 1; i < n; i++)
            {
                diagonal[(i * n) + k] /= diagonal[(k * n) + k];
                for (int j = k + 1; j < n; j++)
                {
                    diagonal[(i * n) + j] -= diagonal[(i * n) + k] * diagonal[(k * n) + j];
                }
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private void Bdiv(float[] diagonal, float[] column)
    {
        int n = _blockSize;
        for (int i = 0; i < n; i++)
        {
            for (int k = 0; k < n; k++)
            {
                column[(i * n) + k] /= diagonal[(k * n) + k];
                for (int j = k + 1; j < n; j++)
                {
                    column[(i * n) + j] -= column[(i * n) + k] * diagonal[(k * n) + j];
                }
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private void Fwd(float[] diagonal, float[] row)
    {
        int n = _blockSize;
        for (int j = 0; j < n; j++)
        {
            for (int k = 0; k < n; k++)
            {
                for (int i = k + 1; i < n; i++)
                {
                    row[(i * n) + j] -= diagonal[(i * n) + k] * row[(k * n) + j];
                }
            }
        }
    }

    // inner -= column x row. Loop order i, k, j: every element still subtracts its products in increasing k, as the
    // suite's i, j, k order does (the same floating-point result), but the rows are read contiguously.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private void Bmod(float[] column, float[] row, float[] inner)
    {
        int n = _blockSize;
        for (int i = 0; i < n; i++)
        {
            Span<float> target = inner.AsSpan(i * n, n);
            for (int k = 0; k < n; k++)
            {
                float x = column[(i * n) + k];
                ReadOnlySpan<float> source = row.AsSpan(k * n, n);
                for (int j = 0; j < target.Length; j++)
                {
                    target[j] -= x * source[j];
                }
            }
        }
    }
}
