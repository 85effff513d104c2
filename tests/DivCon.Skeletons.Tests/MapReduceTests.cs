namespace DivCon.Skeletons.Tests;

/// <summary>Map-reduce over index ranges: same answer as a sequential fold, in index order, for any branching factor.</summary>
public sealed class MapReduceTests
{
    private static readonly int[] s_data = Enumerable.Range(0, 50_000).Select(i => (int)((i * 2654435761L) % 1024)).ToArray();

    [Theory]
    [InlineData(2, ExecutionEngine.Continuation)]
    [InlineData(3, ExecutionEngine.Continuation)]
    [InlineData(7, ExecutionEngine.Continuation)]
    [InlineData(2, ExecutionEngine.ForkJoin)]
    [InlineData(7, ExecutionEngine.ForkJoin)]
    public async Task Sum_of_squares_equals_the_sequential_sum(int branchingFactor, ExecutionEngine engine)
    {
        var sumOfSquares = MapReduce.Create<long>(i => (long)s_data[i] * s_data[i], (a, b) => a + b, 0, branchingFactor, Granularity.Fixed(500));

        long total = await sumOfSquares.RunAsync(new IndexRange(0, s_data.Length), DivideAndConquerOptions.Default with { Engine = engine });

        Assert.Equal(s_data.Sum(x => (long)x * x), total);
        Assert.Equal(branchingFactor, sumOfSquares.BranchingFactor);
    }

    [Fact]
    public async Task A_non_commutative_reduce_keeps_index_order()
    {
        var concat = MapReduce.Create<string>(i => $"{i},", string.Concat, string.Empty, branchingFactor: 3, Granularity.Fixed(2));

        string joined = await concat.RunAsync(new IndexRange(5, 40));

        Assert.Equal(string.Concat(Enumerable.Range(5, 35).Select(i => $"{i},")), joined);
    }

    [Fact]
    public async Task The_ranged_form_gives_the_same_answer_as_the_per_index_form()
    {
        var perIndex = MapReduce.Create<long>(i => s_data[i], (a, b) => a + b, 0);
        var ranged = MapReduce.CreateRanged<long>(
            range =>
            {
                long sum = 0;
                foreach (int x in s_data.AsSpan(range.Start, range.Length))
                {
                    sum += x;
                }

                return sum;
            },
            (a, b) => a + b,
            0,
            branchingFactor: 4);

        var range = new IndexRange(17, 49_999);
        Assert.Equal(await perIndex.RunAsync(range), await ranged.RunAsync(range));
    }

    [Fact]
    public async Task An_empty_range_reduces_to_the_identity()
    {
        var product = MapReduce.Create<long>(i => 2, (a, b) => a * b, identity: 1);
        Assert.Equal(1, await product.RunAsync(new IndexRange(3, 3)));
    }

    [Fact]
    public async Task A_subclass_can_override_MapRange()
    {
        var program = new FastSum { Granularity = Granularity.Fixed(1000) };
        Assert.Equal(s_data.Sum(x => (long)x), await program.RunAsync(new IndexRange(0, s_data.Length)));
        Assert.True(program.RangesMapped >= 64);
    }

    [Theory]
    [InlineData(0, 10, 3)]
    [InlineData(0, 2, 5)]
    [InlineData(7, 7, 4)]
    [InlineData(3, 1003, 7)]
    [InlineData(0, 1, 2)]
    public void IndexRange_Split_covers_the_range_exactly_with_lengths_differing_by_at_most_one(int start, int end, int parts)
    {
        var range = new IndexRange(start, end);

        var pieces = range.Split(parts);

        Assert.Equal(Math.Max(1, Math.Min(parts, range.Length)), pieces.Length);
        Assert.Equal(start, pieces[0].Start);
        Assert.Equal(end, pieces[^1].End);
        for (int i = 1; i < pieces.Length; i++)
        {
            Assert.Equal(pieces[i - 1].End, pieces[i].Start);
        }

        Assert.True(pieces.Max(p => p.Length) - pieces.Min(p => p.Length) <= 1);
        Assert.Equal(range.Length > 0, pieces.All(p => p.Length > 0));
    }

    [Fact]
    public void IndexRange_has_value_semantics()
    {
        Assert.Equal(new IndexRange(2, 5), new IndexRange(2, 5));
        Assert.Equal(3, new IndexRange(2, 5).Length);
        Assert.Equal("[2, 5)", new IndexRange(2, 5).ToString());
        Assert.Equal(0, default(IndexRange).Length);
    }

    private sealed class FastSum : MapReduce<long>
    {
        private int _rangesMapped;

        public int RangesMapped => _rangesMapped;

        protected override long Identity => 0;

        protected override long Map(int index) => throw new InvalidOperationException("MapRange is overridden; Map must not be called.");

        protected override long Reduce(long left, long right) => left + right;

        protected override long MapRange(IndexRange range)
        {
            Interlocked.Increment(ref _rangesMapped);
            long sum = 0;
            foreach (int x in s_data.AsSpan(range.Start, range.Length))
            {
                sum += x;
            }

            return sum;
        }
    }
}
