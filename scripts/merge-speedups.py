#!/usr/bin/env python3
"""Merges simulated speedup tables (speedup.csv: program, cores, placement, seconds, speedup) from several runs into one.

One `simulate --mode scalability` reads one trace folder; a table whose programs come from different folders (for
example the thesis forms from Mono recordings, sumsq and pi from traces/thesis-form) is put together here: each
source contributes the rows of the programs it is given for, in the order given; a program named twice is an error.
Rows are written as the harness writes them (CRLF line ends). Usage: scripts/merge-speedups.py OUT.csv SOURCE.csv:prog1,prog2 [SOURCE.csv:prog3 ...]
"""
import csv
import sys

COLUMNS = ["program", "cores", "placement", "seconds", "speedup"]


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: merge-speedups.py OUT.csv SOURCE.csv:prog1,prog2 [SOURCE.csv:prog3 ...]")
    out, sources = argv[1], argv[2:]
    rows, seen = [], set()
    for source in sources:
        path, _, programs = source.rpartition(":")
        if not path or not programs:
            sys.exit(f"error: '{source}' must be SOURCE.csv:program[,program...]")
        wanted = programs.split(",")
        with open(path, newline="") as f:
            table = list(csv.DictReader(f))
        for program in wanted:
            if program in seen:
                sys.exit(f"error: program '{program}' is given twice")
            seen.add(program)
            picked = [r for r in table if r["program"] == program]
            if not picked:
                sys.exit(f"error: {path} has no rows of '{program}'")
            # Tables written before placements existed have no placement column: their rows are contiguous.
            rows += [{c: r.get(c) or "contiguous" for c in COLUMNS} for r in picked]
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main(sys.argv)
