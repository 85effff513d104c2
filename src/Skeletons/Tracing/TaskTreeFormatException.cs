namespace DivCon.Skeletons.Tracing;

/// <summary>
/// A task-tree file (see <see cref="TaskTreeFile"/>) is not one, is of an unknown version, is corrupt or is truncated.
/// The message names the file (when known) and what is wrong.
/// </summary>
public sealed class TaskTreeFormatException : IOException
{
    /// <summary>Creates the exception.</summary>
    public TaskTreeFormatException()
    {
    }

    /// <summary>Creates the exception.</summary>
    /// <param name="message">What is wrong.</param>
    public TaskTreeFormatException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    /// <param name="message">What is wrong.</param>
    /// <param name="innerException">The underlying error (for example a decompression failure).</param>
    public TaskTreeFormatException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
