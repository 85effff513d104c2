namespace DivCon.Harness.Tests.Cli;

/// <summary>Tests that create pinned schedulers or run real programs against the clock: one at a time.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class LiveSchedulersTestGroup
{
    public const string Name = "Live schedulers";
}
