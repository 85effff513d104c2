using System.Text;

namespace DivCon.Harness.Tests.Support;

/// <summary>A strict RFC 4180 reader for tests: CRLF records, quoted fields with doubled quotes.</summary>
internal static class CsvParser
{
    public static List<List<string>> Parse(string text)
    {
        var records = new List<List<string>>();
        var record = new List<string>();
        var field = new StringBuilder();
        int i = 0;
        bool quoted = false;
        bool fieldWasQuoted = false;
        while (i < text.Length)
        {
            char c = text[i];
            if (quoted)
            {
                if (c == '"')
                {
                    if (i + 1 < text.Length && text[i + 1] == '"')
                    {
                        field.Append('"');
                        i += 2;
                        continue;
                    }

                    quoted = false;
                    i++;
                    continue;
                }

                field.Append(c);
                i++;
                continue;
            }

            switch (c)
            {
                case '"':
                    if (field.Length != 0 || fieldWasQuoted)
                    {
                        throw new FormatException($"Quote inside an unquoted field at {i}.");
                    }

                    quoted = true;
                    fieldWasQuoted = true;
                    i++;
                    break;
                case ',':
                    record.Add(field.ToString());
                    field.Clear();
                    fieldWasQuoted = false;
                    i++;
                    break;
                case '\r':
                    if (i + 1 >= text.Length || text[i + 1] != '\n')
                    {
                        throw new FormatException($"Bare CR at {i}.");
                    }

                    record.Add(field.ToString());
                    records.Add(record);
                    record = [];
                    field.Clear();
                    fieldWasQuoted = false;
                    i += 2;
                    break;
                case '\n':
                    throw new FormatException($"Bare LF at {i}.");
                default:
                    if (fieldWasQuoted)
                    {
                        throw new FormatException($"Text after a closing quote at {i}.");
                    }

                    field.Append(c);
                    i++;
                    break;
            }
        }

        if (quoted)
        {
            throw new FormatException("Unterminated quoted field.");
        }

        if (field.Length > 0 || record.Count > 0)
        {
            throw new FormatException("The last record does not end with CRLF.");
        }

        return records;
    }
}
