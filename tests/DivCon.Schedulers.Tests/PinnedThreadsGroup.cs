namespace DivCon.Schedulers.Tests;

/// <summary>Tests that pin threads (and every theory that runs on the affinity scheduler) run one at a time.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class PinnedThreadsGroup
{
    public const string Name = "Pinned threads";
}
