#:package Microsoft.Diagnostics.Tracing.TraceEvent
#:property PublishAot=false

// Prints the events of one EventSource provider from a .nettrace file written by `dotnet-trace collect`: a count per
// event name, then the first and last events with their time (milliseconds from the trace's start) and payload. It
// shows the multiprogram scheduler's decisions and moves on their timeline without a trace viewer.
// Usage: dotnet run scripts/nettrace-events.cs -- <file.nettrace> [provider=DivCon-Multiprogram] [events shown=12]
using System.Globalization;
using Microsoft.Diagnostics.Tracing;

if (args.Length < 1 || !File.Exists(args[0]))
{
    Console.Error.WriteLine($"error: give an existing .nettrace file (got '{(args.Length > 0 ? args[0] : string.Empty)}')");
    return 1;
}

string provider = args.Length > 1 ? args[1] : "DivCon-Multiprogram";
int shown = args.Length > 2 && int.TryParse(args[2], CultureInfo.InvariantCulture, out int n) && n >= 0 ? n : 12;
var counts = new SortedDictionary<string, int>(StringComparer.Ordinal);
var first = new List<string>();
var last = new Queue<string>();
int total = 0;
using (var source = new EventPipeEventSource(args[0]))
{
    source.Dynamic.All += e =>
    {
        if (!string.Equals(e.ProviderName, provider, StringComparison.Ordinal))
        {
            return;
        }

        total++;
        counts[e.EventName] = counts.GetValueOrDefault(e.EventName) + 1;
        string payload = string.Join(", ", e.PayloadNames.Select((name, i) => string.Create(CultureInfo.InvariantCulture, $"{name}={e.PayloadValue(i)}")));
        string line = string.Create(CultureInfo.InvariantCulture, $"{e.TimeStampRelativeMSec,10:0.000} ms  {e.EventName,-18} {payload}");
        if (first.Count < shown)
        {
            first.Add(line);
        }
        else
        {
            last.Enqueue(line);
            if (last.Count > shown)
            {
                last.Dequeue();
            }
        }
    };
    source.Process();
}

Console.WriteLine($"{total} events from {provider}: {string.Join(", ", counts.Select(c => $"{c.Key} {c.Value}"))}");
first.ForEach(Console.WriteLine);
if (last.Count > 0)
{
    Console.WriteLine("...");
    foreach (string line in last)
    {
        Console.WriteLine(line);
    }
}

return total > 0 ? 0 : 2;
