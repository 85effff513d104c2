namespace DivCon.Harness.Tests.Support;

internal static class TestTimeouts
{
    /// <summary>Generous bound on any wait in a test; reaching it is a failure, not a delay.</summary>
    public static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);
}
