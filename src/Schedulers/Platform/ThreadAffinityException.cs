namespace DivCon.Schedulers.Platform;

/// <summary>Pinning a thread to a CPU failed; carries the CPU and the operating system's error code.</summary>
public sealed class ThreadAffinityException : Exception
{
    /// <summary>Creates the exception with a generic message.</summary>
    public ThreadAffinityException()
        : base("Setting the thread's CPU affinity failed.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">What failed.</param>
    public ThreadAffinityException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and a cause.</summary>
    /// <param name="message">What failed.</param>
    /// <param name="innerException">The cause.</param>
    public ThreadAffinityException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for a failed pin.</summary>
    /// <param name="cpuId">The CPU the thread was to be pinned to.</param>
    /// <param name="errorCode">The operating system's error code (errno on Linux).</param>
    /// <param name="message">What failed.</param>
    public ThreadAffinityException(int cpuId, int errorCode, string message)
        : base(message)
    {
        CpuId = cpuId;
        ErrorCode = errorCode;
    }

    /// <summary>The CPU the thread was to be pinned to, when known.</summary>
    public int? CpuId { get; }

    /// <summary>The operating system's error code (errno on Linux, GetLastError on Windows), when known.</summary>
    public int? ErrorCode { get; }
}
