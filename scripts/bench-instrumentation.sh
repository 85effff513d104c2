#!/usr/bin/env bash
# What DivCon's instruments cost when nobody listens: an interleaved A/B of child processes with the feature switch
# DivCon.Instrumentation.IsSupported true (meters and event source present, no listener) and false (absent), pair
# after pair in alternating order, so that a machine whose speed drifts between minutes hits both alike. Prints the
# median on/off ratio of the pairs per benchmark with a 95% bootstrap interval and writes a folder (README.md with
# command, machine and load, runs.csv, summary.csv, the two runtime configurations).
# Usage: scripts/bench-instrumentation.sh [--pairs 12] [--seconds 2] [--only a,b] [--out DIR]
#   default folder: results-local/instrumentation-ab-<time> (ignored by git); the defaults take about 9-10 minutes
#   on 2 idle CPUs (about 45 s per pair).
set -euo pipefail
cd "$(dirname "$0")/.."
dotnet build src/Harness -c Release -nologo -v q
exec dotnet src/Harness/bin/Release/net10.0/DivCon.Harness.dll bench-instrumentation "$@"
