namespace DivCon.Harness.Reports;

/// <summary>Alignment of a Markdown table column.</summary>
public enum ColumnAlignment
{
    /// <summary>Left-aligned (text).</summary>
    Left,

    /// <summary>Right-aligned (numbers).</summary>
    Right,
}
