#!/usr/bin/env bash
# Re-records the thesis-size task trees the simulator replays (run it on a quiet machine: every duration in a trace
# is a measured phase time). Writes traces/thesis/<program>-w<workers>-g<cores>.dctree: recorded on 1 worker with
# the granularity sized for 1, 2, 16 and 64 cores, and on 2 workers sized for 2 cores (what `simulate` picks for 1 to
# 64 simulated cores and `--trace-workers 2`). Takes tens of minutes at thesis size (each program runs once unrecorded
# and REPEAT times recorded per file).
#
# Environment (all optional): OUT (default traces/thesis), SIZE (default thesis; `quick` checks the script in
# seconds), REPEAT (default 3), PROGRAMS (default the five thesis programs), GRANULARITY (default "1 2 16 64"),
# MAX_KB (default 4096: the folder must stay this small, the traces are committed).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-traces/thesis}
SIZE=${SIZE:-thesis}
REPEAT=${REPEAT:-3}
PROGRAMS=${PROGRAMS:-sumsq,pi,strassen,quicksort,mergesort}
GRANULARITY=${GRANULARITY:-"1 2 16 64"}
MAX_KB=${MAX_KB:-4096}

load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
echo "Recording $SIZE-size traces of $PROGRAMS into $OUT (load average now: $load; record on a quiet machine)."

dotnet build src/Harness -c Release
H=(dotnet run -c Release --project src/Harness --no-build --)
for g in $GRANULARITY; do
  "${H[@]}" trace --size "$SIZE" --programs "$PROGRAMS" --workers 1 --granularity-cores "$g" --repeat "$REPEAT" --out "$OUT"
done
"${H[@]}" trace --size "$SIZE" --programs "$PROGRAMS" --workers 2 --granularity-cores 2 --repeat "$REPEAT" --out "$OUT"

kb=$(du -sk "$OUT" | cut -f1)
echo "$OUT: $(find "$OUT" -name '*.dctree' | wc -l) traces, ${kb} KB."
if [ "$kb" -gt "$MAX_KB" ]; then
  echo "error: $OUT is ${kb} KB, more than MAX_KB=${MAX_KB}; the committed traces must stay small." >&2
  exit 1
fi
