namespace DivCon.Skeletons.Tests;

/// <summary>Tests that reason about the state of dedicated worker threads run alone, not beside other tests.</summary>
[CollectionDefinition(nameof(DedicatedThreadTests), DisableParallelization = true)]
public sealed class DedicatedThreadTests;
