namespace DivCon.Programs.Tests.Infrastructure;

/// <summary>The shapes of input that break naive sorts.</summary>
public enum SortInputKind
{
    Random,
    Sorted,
    Reversed,
    AllEqual,
    FewDistinct,
    Extremes,
    Empty,
    OneElement,
    TwoElements,
}
