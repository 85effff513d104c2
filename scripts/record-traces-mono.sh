#!/usr/bin/env bash
# Records thesis-size task trees under Mono (the reference thesis's runtime), for the simulator to replay with Mono's
# relative task costs: the net48 build of bench/Runtimes run with `mono`, its `trace` verb (the harness's recording:
# one warm-up run, then REPEAT recorded runs, per-node medians). Writes OUT/<program>-w<workers>-g<cores>.dctree on
# 1 worker with the granularity sized for 1, 2, 16 and 64 cores and on 2 workers sized for 2 cores, the files
# `simulate --trace-dir OUT` picks from. Run it on a quiet machine: every duration in a trace is a measured time.
#
# Environment (all optional): OUT (default traces/thesis-form-mono), SIZE (thesis; `quick` checks the script in
# seconds), REPEAT (2), PROGRAMS (default the thesis forms and sumsq, pi), GRANULARITY ("1 2 16 64"), MAX_KB (4096),
# RULE (time: the default granularity by measured time; leaves: the leaf-count rule alone, 4 leaves per core, as the
# reference thesis ran its experiments), WORKERS2 (1: also record on 2 workers sized for 2 cores; 0: skip).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-traces/thesis-form-mono}
SIZE=${SIZE:-thesis}
REPEAT=${REPEAT:-2}
PROGRAMS=${PROGRAMS:-sumsq,pi,strassen-thesis,quicksort-thesis,mergesort-thesis}
GRANULARITY=${GRANULARITY:-"1 2 16 64"}
MAX_KB=${MAX_KB:-4096}
RULE=${RULE:-time}
WORKERS2=${WORKERS2:-1}

command -v mono >/dev/null 2>&1 || { echo "record-traces-mono: mono is missing (Debian: apt-get install mono-complete)" >&2; exit 1; }
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
echo "Recording $SIZE-size traces of $PROGRAMS under $(mono --version | head -n 1 | sed 's/ (.*//') into $OUT (load average now: $load; record on a quiet machine)."

dotnet build bench/Runtimes -c Release -f net48 -nologo -v q
exe=bench/Runtimes/bin/Release/net48/DivCon.Bench.Runtimes.exe
for g in $GRANULARITY; do
  mono "$exe" trace --size "$SIZE" --programs "$PROGRAMS" --workers 1 --granularity-cores "$g" --granularity "$RULE" --repeat "$REPEAT" --out "$OUT"
done
if [ "$WORKERS2" != 0 ]; then
  mono "$exe" trace --size "$SIZE" --programs "$PROGRAMS" --workers 2 --granularity-cores 2 --granularity "$RULE" --repeat "$REPEAT" --out "$OUT"
fi

kb=$(du -sk "$OUT" | cut -f1)
echo "$OUT: $(find "$OUT" -name '*.dctree' | wc -l) traces, ${kb} KB; load average now: $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")."
if [ "$kb" -gt "$MAX_KB" ]; then
  echo "error: $OUT is ${kb} KB, more than MAX_KB=${MAX_KB}; the committed traces must stay small." >&2
  exit 1
fi
