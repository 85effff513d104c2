using DivCon.Harness.Machine;
using DivCon.Harness.Measurement;

namespace DivCon.Harness.Tests.Support;

internal static class Samples
{
    public static RunStamp Stamp { get; } = new(
        "Test CPU @ 3.0GHz", 8, "1 package, 4 cores, 8 threads", "Linux 6.1", ".NET 10.0.0",
        new DateTimeOffset(2026, 11, 21, 12, 0, 0, TimeSpan.Zero), "abc1234",
        "dotnet run --project src/Harness -- cyclic --scheme 'a b'");

    public static IReadOnlyList<SchemeMetrics> TwoSchemes() =>
    [
        new("shared", MultiprogramMetrics.Compute([
            new ProgramMeasurements("quicksort", [2.0, 2.0], [3.0, 5.0, 4.0]),
            new ProgramMeasurements("mergesort", [4.0, 4.0], [6.0, 6.0]),
        ])),
        new("static | partition", MultiprogramMetrics.Compute([
            new ProgramMeasurements("quicksort", [2.0, 2.0], [3.0]),
            new ProgramMeasurements("mergesort", [4.0, 4.0], [5.0, 7.0]),
        ])),
    ];
}
