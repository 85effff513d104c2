namespace DivCon.Programs.Recursion;

/// <summary>
/// A partial N-Queens board: queens placed in rows 0 .. <see cref="Row"/> - 1, one per row, and the squares of row
/// <see cref="Row"/> they attack, as bit masks (bit c = column c).
/// </summary>
/// <param name="Row">The next row to fill (= queens placed).</param>
/// <param name="Columns">Columns holding a queen.</param>
/// <param name="DiagonalsDown">Columns of the next row attacked along down-right diagonals.</param>
/// <param name="DiagonalsUp">Columns of the next row attacked along down-left diagonals.</param>
public readonly record struct BoardState(int Row, int Columns, int DiagonalsDown, int DiagonalsUp)
{
    /// <summary>The empty board.</summary>
    public static BoardState Empty => default;

    /// <summary>The free columns of the next row on a board of <paramref name="n"/> columns.</summary>
    /// <param name="n">The board size.</param>
    /// <returns>A mask of the safe columns.</returns>
    public int SafeColumns(int n) => ~(Columns | DiagonalsDown | DiagonalsUp) & ((1 << n) - 1);

    /// <summary>The board after placing a queen on the next row at the column of the single bit <paramref name="columnBit"/>.</summary>
    /// <param name="columnBit">One safe column, as a bit.</param>
    /// <returns>The new board.</returns>
    public BoardState Place(int columnBit) =>
        new(Row + 1, Columns | columnBit, (DiagonalsDown | columnBit) << 1, (DiagonalsUp | columnBit) >> 1);
}
