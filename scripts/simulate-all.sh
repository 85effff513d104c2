#!/usr/bin/env bash
# Regenerates every simulated-* results folder and the validation of the simulator against the measured results,
# from one trace folder (default traces/thesis, written by scripts/record-traces.sh). Simulations are deterministic
# and need no quiet machine; the 64-core cyclic tests take minutes.
#
# Environment (all optional): TRACES (default traces/thesis), OUT (default results), MEASURED (default results: the
# measured folders the validation reads), ONLY_VALIDATE=1 (skip the simulated-* folders).
set -euo pipefail
cd "$(dirname "$0")/.."

TRACES=${TRACES:-traces/thesis}
OUT=${OUT:-results}
MEASURED=${MEASURED:-results}

dotnet build src/Harness -c Release
H=(dotnet run -c Release --project src/Harness --no-build --)
S=("${H[@]}" simulate --out "$OUT" --trace-dir "$TRACES")

if [ "${ONLY_VALIDATE:-0}" != 1 ]; then
  "${S[@]}" --mode scalability --cores 2
  "${S[@]}" --mode scalability --cores 64
  for c in 2 16 64; do
    "${S[@]}" --cores "$c" --duration 400 --name "simulated-cyclic-5-$c"
  done
  "${S[@]}" --cores 2 --programs strassen,quicksort,mergesort --duration 230 --name simulated-cyclic-3-2
  "${S[@]}" --cores 64 --programs strassen,quicksort,mergesort --duration 400 --name simulated-cyclic-3-64
  "${S[@]}" --mode symmetric --programs quicksort,mergesort,pi -k 4 --cores 64 --duration 100 --name simulated-symmetric-64
  # runs.csv and moves.csv of the many-core cyclic tests are MBs (tens of thousands of short runs and moves): not
  # committed (move-latency.csv keeps the moves' percentiles); the
  # simulation is deterministic, so the folder's command (stamp.json) writes the identical file again.
  for f in simulated-cyclic-3-64 simulated-cyclic-5-16 simulated-cyclic-5-64; do
    rm -f "$OUT/$f/runs.csv" "$OUT/$f/moves.csv"
  done
fi

# Validation on the measuring machine's core count (2): standby handover on (the mechanism's default; compare with
# cyclic-3-thesis-rounds) and off (the mechanism of cyclic-3-thesis-rounds-nostandby and of the older folders
# cyclic-5-thesis and symmetric-*, measured before the standby existed).
"${S[@]}" --mode validate --measured "$MEASURED" --name simulated-validation \
  --validate-folders cyclic-3-thesis-rounds,cyclic-5-thesis-rounds,cyclic-5-thesis,cyclic-5-thesis-pool,cyclic-5-thesis-all,symmetric-quicksort,symmetric-mergesort,symmetric-pi
"${S[@]}" --mode validate --measured "$MEASURED" --no-standby --name simulated-validation-nostandby \
  --validate-folders cyclic-3-thesis-rounds-nostandby,cyclic-5-thesis,symmetric-quicksort,symmetric-mergesort,symmetric-pi
