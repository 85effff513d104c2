namespace DivCon.Programs;

/// <summary>The outcome of <see cref="BenchmarkProgram.Verify"/>: whether the last result is right, and what was checked or what is wrong.</summary>
/// <param name="Succeeded">Whether the result passed every check.</param>
/// <param name="Message">What was checked (on success) or the first discrepancy found (on failure).</param>
public sealed record ProgramVerification(bool Succeeded, string Message)
{
    /// <summary>A passed verification.</summary>
    /// <param name="whatWasChecked">What was checked, in a few words.</param>
    /// <returns>The verification.</returns>
    public static ProgramVerification Success(string whatWasChecked) => new(true, whatWasChecked);

    /// <summary>A failed verification.</summary>
    /// <param name="whatIsWrong">The first discrepancy found.</param>
    /// <returns>The verification.</returns>
    public static ProgramVerification Failure(string whatIsWrong) => new(false, whatIsWrong);

    /// <inheritdoc/>
    public override string ToString() => (Succeeded ? "OK: " : "FAILED: ") + Message;
}
