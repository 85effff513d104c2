#!/usr/bin/env bash
# The memory-bound pair, measured and simulated on 2 workers, in one results folder: two copies of sumsq at a size
# far beyond the last-level cache (symmetric), and sumsq beside pi (cyclic), under the schemes the simulator's
# validation compares; the traces of both programs recorded at the same sizes; and the simulator's prediction of
# every figure from those traces with the machine description, measured against simulated with the difference in %,
# flagging every figure off by more than the tolerance. Run it on an idle machine: every figure and every recorded
# duration is a timing. About 11 minutes on the idle 2-CPU development VM with the defaults (build 1-2 min, the
# alone runs 1 min, each multiprogram test 3.5 min: a warm-up round and 3 rounds of 12 s per scheme; traces and
# simulation 1 min).
#
# Usage: scripts/membound-pair.sh [--out ROOT] [--tiny]
#   --out ROOT  results root (default results-local, ignored by git; name results/ to keep a reference run). The run
#               writes ROOT/membound-pair-<UTC date-time>/ and refuses to reuse a folder that exists.
#   --tiny      tiny sizes and a few seconds per scheme: checks the script in about 3 minutes (figures meaningless).
#
# Size: sumsq at 2^29 integers reads 2 GiB per run and per copy, 4x the largest cache this VM reports (L3 508 MiB by
# getconf LEVEL3_CACHE_SIZE, likely the host's whole L3: a core shares far less; L2 1 MiB; /sys has no cache
# entries here), where the thesis size (2^27, 512 MiB) is about that cache's size. Peak memory: 4 GiB for the two copies.
#
# Environment (all optional): SUMSQ_SIZE (default 2^29 integers, 2 GiB per copy), PI_SIZE (default 2^30 points, the
# thesis size), SCHEMES (default shared,static,dynamic,oversubscribed-pinned), DURATION (seconds per scheme and
# test, default 36), ROUNDS (default 3), RUNS (alone runs per program and core count, default 3), REPEAT (recorded
# runs per trace, default 3), MACHINE (default machines/dev-vm-2cpu.json), TOLERANCE (percent, default 10), BRACKET
# (default 1: C_SP measured before and after every scheme block, `--bracket`; 0: once per round), OUT and TINY=1 (as
# the options).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-results-local}
TINY=${TINY:-0}
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || { echo "error: --out needs a folder." >&2; exit 1; }; OUT=$2; shift 2 ;;
    --out=*) OUT=${1#--out=}; shift ;;
    --tiny) TINY=1; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown argument '$1' (expected --out ROOT or --tiny)." >&2; exit 1 ;;
  esac
done

if [ "$TINY" = 1 ]; then
  SUMSQ_SIZE=${SUMSQ_SIZE:-2^20}; PI_SIZE=${PI_SIZE:-2^20}; DURATION=${DURATION:-3}; RUNS=${RUNS:-2}; REPEAT=${REPEAT:-1}
fi
SUMSQ_SIZE=${SUMSQ_SIZE:-2^29}
PI_SIZE=${PI_SIZE:-2^30}
SCHEMES=${SCHEMES:-shared,static,dynamic,oversubscribed-pinned}
DURATION=${DURATION:-36}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-3}
REPEAT=${REPEAT:-3}
MACHINE=${MACHINE:-machines/dev-vm-2cpu.json}
TOLERANCE=${TOLERANCE:-10}
BRACKET=${BRACKET:-1}
WORKERS=2

[ -f "${MACHINE%%:*}" ] || { echo "error: MACHINE=$MACHINE: no such machine description." >&2; exit 1; }
if [ "$(nproc)" -lt "$WORKERS" ]; then
  echo "error: this machine has $(nproc) CPU(s); the pair runs on $WORKERS workers." >&2
  exit 1
fi

RUN="$OUT/membound-pair-$(date -u +%Y-%m-%d-%H%M%S)"
mkdir -p "$OUT"
# mkdir without -p: an earlier run's folder is never reused, let alone overwritten.
mkdir "$RUN" || { echo "error: $RUN exists already; results are records, so it is not reused." >&2; exit 1; }
MEASURED="$RUN/measured"
TRACES="$RUN/traces"
exec > >(tee -a "$RUN/log.txt") 2>&1

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "Memory-bound pair into $RUN (load average now: $load_before; run on an idle machine)."
echo "sumsq=$SUMSQ_SIZE pi=$PI_SIZE, schemes $SCHEMES, $DURATION s per scheme and test, $WORKERS workers, machine $MACHINE."

dotnet build src/Harness -c Release
H=(dotnet run -c Release --project src/Harness --no-build --)
SIZES=(--sizes "sumsq=$SUMSQ_SIZE" "pi=$PI_SIZE")
MP=(--schemes "$SCHEMES" --duration "$DURATION" --rounds "$ROUNDS" --workers "$WORKERS" --out "$MEASURED")
if [ "$BRACKET" = 1 ]; then MP+=(--bracket); fi

# Each command, as run, goes to commands.txt (the record the README quotes).
run() {
  printf '%s\n' "$*" >> "$RUN/commands.txt"
  echo "[$(date -u +%H:%M:%S)] ${*:9:3} ..."
  "$@" < /dev/null
}

# 1. Alone on 1 and 2 cores: the validation's alone rows, the NTTs' yardstick, and the profiles the partitioning
#    schemes read (MEASURED/profiles.json).
run "${H[@]}" scalability --programs sumsq,pi "${SIZES[@]}" --cores 1,2 --allocation contiguous --runs "$RUNS" --warmup 1 --out "$MEASURED"
# 2. Two copies of sumsq (measured/symmetric-sumsq/).
run "${H[@]}" symmetric --programs sumsq -k 2 "${SIZES[@]}" "${MP[@]}"
# 3. sumsq beside pi (measured/cyclic-sumsq-pi/).
run "${H[@]}" cyclic --programs sumsq,pi "${SIZES[@]}" --name cyclic-sumsq-pi "${MP[@]}"
# 4. The traces at the same sizes: one worker, granularity for 2 cores (what the 2-core validation replays).
run "${H[@]}" trace --programs sumsq,pi "${SIZES[@]}" --workers 1 --granularity-cores "$WORKERS" --repeat "$REPEAT" --out "$TRACES"
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
# 5. The simulation of every measured figure, against the measurement (RUN/validation/: comparison.md).
run "${H[@]}" simulate --mode validate --measured "$MEASURED" --validate-folders symmetric-sumsq,cyclic-sumsq-pi \
  --trace-dir "$TRACES" --programs sumsq,pi --machine "$MACHINE" --tolerance "$TOLERANCE" --out "$RUN" --name validation

commit=$(git rev-parse --short HEAD 2>/dev/null || echo "?")
dirty=$(git status --porcelain 2>/dev/null | grep -qv '^??' && echo " (with uncommitted changes)" || true)
{
  echo "# Memory-bound pair: measured and SIMULATED"
  echo
  echo "Two copies of sumsq (\`measured/symmetric-sumsq/\`) and sumsq beside pi (\`measured/cyclic-sumsq-pi/\`) on"
  echo "$WORKERS workers under $SCHEMES; each program alone on 1 and 2 cores (\`measured/scalability/\`); the traces"
  echo "of both programs at the same sizes (\`traces/\`); the simulation of all of it from those traces with"
  echo "\`$MACHINE\` (\`validation/\`). Written by \`scripts/membound-pair.sh\`."
  echo
  echo "| item | value |"
  echo "| :--- | :--- |"
  echo "| sizes | sumsq $SUMSQ_SIZE integers (4 bytes each), pi $PI_SIZE points |"
  echo "| caches (getconf) | L2 $(getconf LEVEL2_CACHE_SIZE 2>/dev/null || echo "?") B, L3 $(getconf LEVEL3_CACHE_SIZE 2>/dev/null || echo "?") B |"
  echo "| per scheme and test | $DURATION s in $ROUNDS rounds |"
  echo "| started (UTC) | $started |"
  echo "| load average before / after the measurements | $load_before / $load_after |"
  echo "| commit | $commit$dirty |"
  echo "| machine | $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, .NET $(dotnet --version 2>/dev/null || echo "?") SDK |"
  echo
  echo "Commands (in this order):"
  echo
  echo '```'
  cat "$RUN/commands.txt"
  echo '```'
  echo
  # The comparison itself, headings one level down.
  sed 's/^#/##/' "$RUN/validation/comparison.md"
} > "$RUN/README.md"

echo
echo "[$(date -u +%H:%M:%S)] done (started $started). Wrote $RUN/README.md; measured against simulated in $RUN/validation/comparison.md:"
grep -m1 'figures beyond' "$RUN/validation/comparison.md" || true
