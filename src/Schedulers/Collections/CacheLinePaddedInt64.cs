using System.Runtime.InteropServices;

namespace DivCon.Schedulers.Collections;

/// <summary>
/// A 64-bit value alone on its cache line (128 bytes covers adjacent-line prefetching), so that a field the owner
/// writes and a field thieves write never share a line.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 192)]
internal struct CacheLinePaddedInt64
{
    /// <summary>The value, 64 bytes after the start so both neighbours are at least a line away.</summary>
    [FieldOffset(64)]
    public long Value;
}
