using System.Globalization;
using DivCon.Harness.Experiments;
using DivCon.Harness.Measurement;
using DivCon.Harness.Reports;
using Spectre.Console;

namespace DivCon.Harness.Terminal;

/// <summary>The across-round console table of a cyclic experiment and its ranking statements.</summary>
public static class RoundsTable
{
    /// <summary>Writes the across-round table and the ranking to the console (nothing with a single round).</summary>
    /// <param name="console">The console.</param>
    /// <param name="result">The experiment.</param>
    public static void Render(IAnsiConsole console, CyclicExperimentResult result)
    {
        ArgumentNullException.ThrowIfNull(console);
        ArgumentNullException.ThrowIfNull(result);
        if (result.Rounds.Count < 2)
        {
            return;
        }

        var table = new Table().Title(string.Create(CultureInfo.InvariantCulture, $"System metrics across {result.Rounds.Count} rounds"))
            .AddColumn("Scheme").AddColumn(new TableColumn("Rounds").RightAligned())
            .AddColumn(new TableColumn("ANTT").RightAligned()).AddColumn(new TableColumn("STP").RightAligned()).AddColumn(new TableColumn("MNTT").RightAligned());
        foreach (AcrossRounds s in result.AcrossRounds)
        {
            table.AddRow(Markup.Escape(s.Scheme), s.Rounds.ToString(CultureInfo.InvariantCulture), Markup.Escape(NumberText.WithInterval(s.Summary.Antt)),
                Markup.Escape(NumberText.WithInterval(s.Summary.Stp)), Markup.Escape(NumberText.WithInterval(s.Summary.Mntt)));
        }

        console.Write(table);
        if (result.Ranking.Count == 0)
        {
            console.WriteLine("No ranking: the schemes' intervals across rounds overlap.");
        }
        else
        {
            foreach (RankingStatement statement in result.Ranking)
            {
                console.WriteLine(statement.Text);
            }
        }
    }
}
