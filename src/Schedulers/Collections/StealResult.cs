namespace DivCon.Schedulers.Collections;

/// <summary>The outcome of one <see cref="WorkStealingDeque{T}.TrySteal"/> attempt.</summary>
internal enum StealResult
{
    /// <summary>The deque looked empty; nothing was taken.</summary>
    Empty,

    /// <summary>One item was taken from the top (the oldest end) of the deque.</summary>
    Success,

    /// <summary>
    /// Another thief or the owner took the item this thief was after (one lost compare-and-swap). The deque may
    /// still hold items; the caller decides whether to try again now or move on.
    /// </summary>
    Retry,
}
