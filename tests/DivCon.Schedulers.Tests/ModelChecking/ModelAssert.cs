using Xunit.Abstractions;

namespace DivCon.Schedulers.Tests.ModelChecking;

/// <summary>Runs a model exhaustively and asserts on the outcome, writing statistics and traces to the test output.</summary>
internal static class ModelAssert
{
    /// <summary>Asserts that every reachable state of <paramref name="model"/> satisfies its invariants.</summary>
    /// <param name="model">The model.</param>
    /// <param name="memoryModel">The memory model.</param>
    /// <param name="output">The test output.</param>
    /// <returns>The result (for further assertions).</returns>
    public static CheckResult Holds(Model model, MemoryModel memoryModel, ITestOutputHelper output)
    {
        CheckResult result = ModelChecker.Check(model, memoryModel);
        output.WriteLine(result.ToString());
        Assert.True(result.Counterexample is null, $"{result}{Environment.NewLine}{result.Counterexample}");
        Assert.True(result.TerminalStates > 0, "The exploration reached no terminal state: the model never completes.");
        return result;
    }

    /// <summary>Asserts that the checker finds a violation in <paramref name="model"/>, with a trace.</summary>
    /// <param name="model">The model (usually with a mutation).</param>
    /// <param name="memoryModel">The memory model.</param>
    /// <param name="output">The test output.</param>
    /// <param name="expected">A fragment the violation's description must contain.</param>
    /// <returns>The counterexample.</returns>
    public static Counterexample Violated(Model model, MemoryModel memoryModel, ITestOutputHelper output, string expected)
    {
        CheckResult result = ModelChecker.Check(model, memoryModel);
        output.WriteLine(result.ToString());
        Assert.True(result.Counterexample is not null, $"No violation found: {result}");
        output.WriteLine(result.Counterexample.ToString());
        Assert.Contains(expected, result.Counterexample.Violation, StringComparison.Ordinal);
        Assert.NotEmpty(result.Counterexample.Trace);
        return result.Counterexample;
    }
}
