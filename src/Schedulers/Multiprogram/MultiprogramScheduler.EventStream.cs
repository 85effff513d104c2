using System.Runtime.CompilerServices;
using System.Threading.Channels;
using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// The decisions as asynchronous streams, for consumers that would rather <c>await foreach</c> than handle
/// <see cref="Rebalanced"/>: each stream is a bounded channel that drops its oldest event when its reader falls
/// behind, so a slow or absent reader never blocks a decision and never holds more than its capacity.
/// </summary>
public sealed partial class MultiprogramScheduler
{
    /// <summary>How many unread events a stream of <see cref="ReadEventsAsync(CancellationToken)"/> keeps.</summary>
    public const int DefaultEventStreamCapacity = 256;

    // The open streams; replaced, never changed in place (copy on write), and only under _dispatchGate, which also
    // orders the writes: events enter every stream in decision order, one decision at a time.
    private Channel<RebalanceEvent>[] _eventStreams = [];

    // Set under _dispatchGate once the streams were completed: a stream opened later starts completed.
    private bool _eventStreamsCompleted;

    // Whether the pool's exit already completes the streams (a continuation registered once, under _dispatchGate).
    private bool _eventStreamsCompleteOnExit;

    private long _droppedEvents;

    /// <summary>
    /// Events dropped so far from the streams of <see cref="ReadEventsAsync(int, CancellationToken)"/> because their
    /// readers fell behind (each stream's oldest unread event gives way to the newest), summed over every stream.
    /// </summary>
    public long DroppedEvents => Interlocked.Read(ref _droppedEvents); // Atomic 64-bit read on every platform.

    /// <summary>
    /// The scheduler's decisions from this call on, as an asynchronous stream (see
    /// <see cref="ReadEventsAsync(int, CancellationToken)"/>), keeping at most <see cref="DefaultEventStreamCapacity"/>
    /// unread events.
    /// </summary>
    /// <param name="cancellationToken">Ends the enumeration with <see cref="OperationCanceledException"/>.</param>
    /// <returns>The stream.</returns>
    public IAsyncEnumerable<RebalanceEvent> ReadEventsAsync(CancellationToken cancellationToken) =>
        ReadEventsAsync(DefaultEventStreamCapacity, cancellationToken);

    /// <summary>
    /// The scheduler's decisions from this call on, as an asynchronous stream: the same events as
    /// <see cref="Rebalanced"/> (skipped checks only with <see cref="MultiprogramSchedulerOptions.RaiseSkippedDecisions"/>),
    /// in decision order. The stream is open from this call, not from the first <c>MoveNextAsync</c>: call it before
    /// the first <c>Register</c> to see the arrivals.
    /// </summary>
    /// <param name="capacity">How many unread events the stream keeps; when it is full the oldest is dropped (counted
    /// by <see cref="DroppedEvents"/>), so a reader that falls behind loses the oldest events, never the newest.</param>
    /// <param name="cancellationToken">Ends the enumeration with <see cref="OperationCanceledException"/>.</param>
    /// <returns>
    /// The stream: enumerate it once. It ends when the scheduler's shutdown is over (every program has left, after
    /// their departure decisions, or the shutdown's wait timed out), and at once when the scheduler was already shut
    /// down. Ending the enumeration (cancelled, or left with <c>break</c>) closes the stream.
    /// </returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="capacity"/> is less than 1.</exception>
    /// <remarks>
    /// The thread that made a decision only writes it into the stream; the reader resumes on another thread (never
    /// inside the decision), so a reader cannot delay a decision or see the scheduler's locks held.
    /// </remarks>
    public IAsyncEnumerable<RebalanceEvent> ReadEventsAsync(int capacity = DefaultEventStreamCapacity, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        var options = new BoundedChannelOptions(capacity)
        {
            FullMode = BoundedChannelFullMode.DropOldest,
            SingleWriter = true, // Written and completed only under _dispatchGate.
            SingleReader = false,
            AllowSynchronousContinuations = false, // The reader never runs on the deciding thread.
        };
        Channel<RebalanceEvent> stream = Channel.CreateBounded<RebalanceEvent>(options, _ => Interlocked.Increment(ref _droppedEvents));
        lock (_dispatchGate)
        {
            if (_eventStreamsCompleted)
            {
                stream.Writer.TryComplete();
            }
            else
            {
                _eventStreams = [.. _eventStreams, stream];
                CompleteEventStreamsOnExit();
            }
        }

        return ReadAsync(stream, cancellationToken);
    }

    /// <summary>Under <see cref="_dispatchGate"/>: writes a raised event into every open stream.</summary>
    /// <param name="decision">The event.</param>
    private void WriteToEventStreams(RebalanceEvent decision)
    {
        foreach (Channel<RebalanceEvent> stream in _eventStreams)
        {
            stream.Writer.TryWrite(decision); // DropOldest: always accepted while the stream is open.
        }
    }

    /// <summary>
    /// Ends every stream after raising every decision still waiting (so none made before is missing), and every stream
    /// opened later starts ended. Idempotent; called when the shutdown is over or its wait timed out.
    /// </summary>
    private void CompleteEventStreams()
    {
        lock (_dispatchGate)
        {
            if (_eventStreamsCompleted)
            {
                return;
            }

            while (_undelivered.TryDequeue(out RebalanceEvent? decision))
            {
                Raise(decision);
                WriteToEventStreams(decision);
            }

            _eventStreamsCompleted = true;
            foreach (Channel<RebalanceEvent> stream in _eventStreams)
            {
                stream.Writer.TryComplete();
            }

            _eventStreams = [];
        }
    }

    /// <summary>Under <see cref="_dispatchGate"/>: once, makes the workers' exit complete the streams.</summary>
    private void CompleteEventStreamsOnExit()
    {
        if (_eventStreamsCompleteOnExit)
        {
            return;
        }

        _eventStreamsCompleteOnExit = true;
        _pool.Exited.ContinueWith(
            static (_, state) => ((MultiprogramScheduler)state!).CompleteEventStreams(),
            this,
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously | TaskContinuationOptions.DenyChildAttach,
            TaskScheduler.Default);
    }

    private void CloseEventStream(Channel<RebalanceEvent> stream)
    {
        lock (_dispatchGate)
        {
            _eventStreams = Array.FindAll(_eventStreams, s => !ReferenceEquals(s, stream));
        }

        stream.Writer.TryComplete();
    }

    private async IAsyncEnumerable<RebalanceEvent> ReadAsync(
        Channel<RebalanceEvent> stream, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        try
        {
            // ConfigureAwait(false): the reader's own await foreach decides where its loop body resumes.
            while (await stream.Reader.WaitToReadAsync(cancellationToken).ConfigureAwait(false))
            {
                while (stream.Reader.TryRead(out RebalanceEvent? decision))
                {
                    yield return decision;
                }
            }
        }
        finally
        {
            CloseEventStream(stream);
        }
    }
}
