using DivCon.Schedulers.Workers;

namespace DivCon.Schedulers.Multiprogram;

/// <summary>
/// Running ordinary task-parallel code wholly inside the program: a <see cref="TaskFactory"/>, <c>Task.Run</c>-like
/// helpers and parallel loops whose every iteration, the caller's share included, runs on the program's workers
/// (the multiprogram README, "Any TPL code as a program").
/// </summary>
public sealed partial class ProgramTaskScheduler
{
    /// <summary>
    /// A task factory on this program (no default options, no cancellation token): <c>Factory.StartNew(...)</c> and
    /// its continuations run on the program's workers.
    /// </summary>
    public TaskFactory Factory { get; }

    /// <summary>
    /// Whether the calling thread is one of the pool's workers serving this program now (a worker it owns, one lent
    /// to it, or a worker finishing one of its tasks after its CPU moved). Code that must run inside the program can
    /// assert it; <see cref="TaskScheduler.Current"/> alone does not tell, because an inlined task or a
    /// continuation may run on a thread that is not a worker.
    /// </summary>
    public bool IsCurrentThreadServing => Worker.Current is { } worker && ReferenceEquals(worker.Queues, Queues);

    /// <summary>Like <see cref="Task.Run(Action)"/>, on this program instead of the .NET thread pool.</summary>
    /// <param name="action">The work.</param>
    /// <returns>The task.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is null.</exception>
    /// <exception cref="TaskSchedulerException">The program was disposed (its inner exception says so).</exception>
    public Task Run(Action action) => Run(action, CancellationToken.None);

    /// <summary>
    /// Like <see cref="Task.Run(Action, CancellationToken)"/>, on this program instead of the .NET thread pool.
    /// </summary>
    /// <param name="action">The work.</param>
    /// <param name="cancellationToken">Cancels the task if it has not started.</param>
    /// <returns>The task.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="action"/> is null.</exception>
    /// <exception cref="TaskSchedulerException">The program was disposed (its inner exception says so).</exception>
    public Task Run(Action action, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(action);
        return Task.Factory.StartNew(action, cancellationToken, TaskCreationOptions.DenyChildAttach, this);
    }

    /// <summary>Like <see cref="Task.Run{TResult}(Func{TResult})"/>, on this program.</summary>
    /// <typeparam name="TResult">The result's type.</typeparam>
    /// <param name="function">The work.</param>
    /// <returns>The task.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is null.</exception>
    /// <exception cref="TaskSchedulerException">The program was disposed (its inner exception says so).</exception>
    public Task<TResult> Run<TResult>(Func<TResult> function) => Run(function, CancellationToken.None);

    /// <summary>
    /// Like <see cref="Task.Run{TResult}(Func{TResult}, CancellationToken)"/>, on this program.
    /// </summary>
    /// <typeparam name="TResult">The result's type.</typeparam>
    /// <param name="function">The work.</param>
    /// <param name="cancellationToken">Cancels the task if it has not started.</param>
    /// <returns>The task.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is null.</exception>
    /// <exception cref="TaskSchedulerException">The program was disposed (its inner exception says so).</exception>
    public Task<TResult> Run<TResult>(Func<TResult> function, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(function);
        return Task.Factory.StartNew(function, cancellationToken, TaskCreationOptions.DenyChildAttach, this);
    }

    /// <summary>Starts an asynchronous method on this program (see <see cref="RunAsync(Func{Task}, CancellationToken)"/>).</summary>
    /// <param name="function">The asynchronous method.</param>
    /// <returns>A task that completes like the method's task.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is null.</exception>
    /// <exception cref="TaskSchedulerException">The program was disposed (its inner exception says so).</exception>
    public Task RunAsync(Func<Task> function) => RunAsync(function, CancellationToken.None);

    /// <summary>
    /// Starts an asynchronous method on this program, like <see cref="Task.Run(Func{Task}, CancellationToken)"/>:
    /// its synchronous start runs on a worker, so <see cref="TaskScheduler.Current"/> is this program there and every
    /// <c>await</c> without <c>ConfigureAwait(false)</c> resumes on the program's workers.
    /// </summary>
    /// <param name="function">The asynchronous method.</param>
    /// <param name="cancellationToken">Cancels the start if it has not happened.</param>
    /// <returns>A task that completes like the method's task.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is null.</exception>
    /// <exception cref="TaskSchedulerException">The program was disposed (its inner exception says so).</exception>
    public Task RunAsync(Func<Task> function, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(function);
        return Task.Factory.StartNew(function, cancellationToken, TaskCreationOptions.DenyChildAttach, this).Unwrap();
    }

    /// <summary>Starts an asynchronous method with a result on this program (see <see cref="RunAsync(Func{Task}, CancellationToken)"/>).</summary>
    /// <typeparam name="TResult">The result's type.</typeparam>
    /// <param name="function">The asynchronous method.</param>
    /// <returns>A task that completes like the method's task.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is null.</exception>
    /// <exception cref="TaskSchedulerException">The program was disposed (its inner exception says so).</exception>
    public Task<TResult> RunAsync<TResult>(Func<Task<TResult>> function) => RunAsync(function, CancellationToken.None);

    /// <summary>Like <see cref="RunAsync(Func{Task}, CancellationToken)"/>, with a result.</summary>
    /// <typeparam name="TResult">The result's type.</typeparam>
    /// <param name="function">The asynchronous method.</param>
    /// <param name="cancellationToken">Cancels the start if it has not happened.</param>
    /// <returns>A task that completes like the method's task.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="function"/> is null.</exception>
    /// <exception cref="TaskSchedulerException">The program was disposed (its inner exception says so).</exception>
    public Task<TResult> RunAsync<TResult>(Func<Task<TResult>> function, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(function);
        return Task.Factory.StartNew(function, cancellationToken, TaskCreationOptions.DenyChildAttach, this).Unwrap();
    }

    /// <summary>
    /// Parallel options for loops run from one of this program's tasks: <see cref="ParallelOptions.TaskScheduler"/>
    /// is this program. Called from outside the program, <c>Parallel.For</c> with them queues its work here but
    /// blocks the calling thread, which then runs nothing: use <see cref="ForAsync(int, int, Action{int}, CancellationToken)"/>.
    /// </summary>
    /// <param name="cancellationToken">The loop's cancellation token.</param>
    /// <returns>New options.</returns>
    public ParallelOptions CreateParallelOptions(CancellationToken cancellationToken = default) =>
        new() { TaskScheduler = this, CancellationToken = cancellationToken };

    /// <summary>Like <see cref="ForAsync(int, int, Action{int}, CancellationToken)"/>, without cancellation.</summary>
    /// <param name="fromInclusive">The first index.</param>
    /// <param name="toExclusive">One past the last index.</param>
    /// <param name="body">The iteration.</param>
    /// <returns>The loop's result.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="body"/> is null.</exception>
    public Task<ParallelLoopResult> ForAsync(int fromInclusive, int toExclusive, Action<int> body) =>
        ForAsync(fromInclusive, toExclusive, body, CancellationToken.None);

    /// <summary>
    /// <c>Parallel.For</c> wholly inside this program: the loop is started by a task on this program, so the share
    /// of iterations the TPL gives to the calling thread runs on a worker too, and every other iteration on the
    /// program's workers. The caller's thread only waits (or awaits).
    /// </summary>
    /// <param name="fromInclusive">The first index.</param>
    /// <param name="toExclusive">One past the last index.</param>
    /// <param name="body">The iteration.</param>
    /// <param name="cancellationToken">Stops the loop (the task ends cancelled).</param>
    /// <returns>The loop's result; faulted with the iterations' exceptions (an <see cref="AggregateException"/>, as
    /// <c>Parallel.For</c> throws it) if any threw.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="body"/> is null.</exception>
    public Task<ParallelLoopResult> ForAsync(int fromInclusive, int toExclusive, Action<int> body, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(body);
        return Run(() => Parallel.For(fromInclusive, toExclusive, CreateParallelOptions(cancellationToken), body), cancellationToken);
    }

    /// <summary>Like <see cref="ForAsync(int, int, Action{int, ParallelLoopState}, CancellationToken)"/>, without cancellation.</summary>
    /// <param name="fromInclusive">The first index.</param>
    /// <param name="toExclusive">One past the last index.</param>
    /// <param name="body">The iteration.</param>
    /// <returns>The loop's result.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="body"/> is null.</exception>
    public Task<ParallelLoopResult> ForAsync(int fromInclusive, int toExclusive, Action<int, ParallelLoopState> body) =>
        ForAsync(fromInclusive, toExclusive, body, CancellationToken.None);

    /// <summary>Like <see cref="ForAsync(int, int, Action{int}, CancellationToken)"/>, with the loop's state.</summary>
    /// <param name="fromInclusive">The first index.</param>
    /// <param name="toExclusive">One past the last index.</param>
    /// <param name="body">The iteration.</param>
    /// <param name="cancellationToken">Stops the loop (the task ends cancelled).</param>
    /// <returns>The loop's result.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="body"/> is null.</exception>
    public Task<ParallelLoopResult> ForAsync(int fromInclusive, int toExclusive, Action<int, ParallelLoopState> body, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(body);
        return Run(() => Parallel.For(fromInclusive, toExclusive, CreateParallelOptions(cancellationToken), body), cancellationToken);
    }

    /// <summary>Like <see cref="ForEachAsync{TSource}(IEnumerable{TSource}, Action{TSource}, CancellationToken)"/>, without cancellation.</summary>
    /// <typeparam name="TSource">The elements' type.</typeparam>
    /// <param name="source">The elements.</param>
    /// <param name="body">The iteration.</param>
    /// <returns>The loop's result.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> or <paramref name="body"/> is null.</exception>
    public Task<ParallelLoopResult> ForEachAsync<TSource>(IEnumerable<TSource> source, Action<TSource> body) =>
        ForEachAsync(source, body, CancellationToken.None);

    /// <summary>
    /// <c>Parallel.ForEach</c> wholly inside this program, like <see cref="ForAsync(int, int, Action{int}, CancellationToken)"/>.
    /// The source is enumerated on the program's workers too.
    /// </summary>
    /// <typeparam name="TSource">The elements' type.</typeparam>
    /// <param name="source">The elements.</param>
    /// <param name="body">The iteration.</param>
    /// <param name="cancellationToken">Stops the loop (the task ends cancelled).</param>
    /// <returns>The loop's result.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> or <paramref name="body"/> is null.</exception>
    public Task<ParallelLoopResult> ForEachAsync<TSource>(IEnumerable<TSource> source, Action<TSource> body, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(body);
        return Run(() => Parallel.ForEach(source, CreateParallelOptions(cancellationToken), body), cancellationToken);
    }
}
