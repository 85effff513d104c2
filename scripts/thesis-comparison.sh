#!/usr/bin/env bash
# Writes results/thesis-comparison/: the seven schemes on the thesis's 3- and 5-program mixes at 64 simulated cores
# (DURATION simulated seconds each, default 100), with today's programs (traces/thesis) and the thesis forms (traces/thesis-form), under the thesis's
# mechanism (100 ms decisions, no standby, no lending) and today's; then the what-if runs (static and dynamic, one
# factor varied at a time); then comparison.csv and whatif.csv (scripts/thesis-comparison.py). Simulated time is
# deterministic: results do not depend on the machine's load. Takes about 5-10 minutes on 2 idle CPUs.
# Usage: scripts/thesis-comparison.sh [all|compare|whatif|today]  (OUT overrides the folder)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${HARNESS_DLL:-}" ]; then
  H=(dotnet "$HARNESS_DLL")   # an already built harness
else
  dotnet build src/Harness -c Release
  H=(dotnet run -c Release --project src/Harness --no-build --)
fi
OUT=${OUT:-results/thesis-comparison}
DURATION=${DURATION:-100}
FIVE_T=sumsq,pi,strassen-thesis,quicksort-thesis,mergesort-thesis
THREE_T=strassen-thesis,quicksort-thesis,mergesort-thesis
FIVE=sumsq,pi,strassen,quicksort,mergesort
THREE=strassen,quicksort,mergesort
# The thesis's dynamic policy is the scheme task-availability (the learned policy is "dynamic"); the seven
# schemes the thesis compared are run, not the learned one.
SEVEN=oversubscribed-free,oversubscribed-pinned,shared,default,static,task-availability,hill-climbing
sim() { echo "== $* $(date -u +%T)"; "${H[@]}" simulate --cores 64 --duration "$DURATION" --out "$OUT" "$@" > /dev/null; }
PART=${1:-all}
if [ "$PART" = all ] || [ "$PART" = compare ]; then
sim --schemes $SEVEN --trace-dir traces/thesis-form --programs $THREE_T --no-standby --no-lending --name cyclic-3-thesis-form-thesis-mechanism
sim --schemes $SEVEN --trace-dir traces/thesis-form --programs $FIVE_T --no-standby --no-lending --name cyclic-5-thesis-form-thesis-mechanism
sim --schemes $SEVEN --trace-dir traces/thesis-form --programs $THREE_T --name cyclic-3-thesis-form-today-mechanism
sim --schemes $SEVEN --trace-dir traces/thesis-form --programs $FIVE_T --name cyclic-5-thesis-form-today-mechanism
fi
if [ "$PART" = all ] || [ "$PART" = whatif ]; then
for mix in ${MIXES:-3 5}; do
  if [ $mix = 3 ]; then P=$THREE_T; else P=$FIVE_T; fi
  S="--schemes static,task-availability --trace-dir traces/thesis-form --programs $P"
  sim $S --name whatif-$mix-today-mechanism
  sim $S --no-standby --no-lending --name whatif-$mix-thesis-mechanism
  sim $S --no-standby --name whatif-$mix-no-standby
  sim $S --no-lending --name whatif-$mix-no-lending
  sim $S --decision-interval-ms 10 --name whatif-$mix-interval-10
  sim $S --decision-interval-ms 1000 --name whatif-$mix-interval-1000
  sim $S --availability queued-running --name whatif-$mix-queued-running
  sim $S --availability smoothed --name whatif-$mix-smoothed
  sim $S --no-standby --no-lending --decision-interval-ms 10 --name whatif-$mix-thesis-interval-10
  sim $S --no-standby --no-lending --decision-interval-ms 1000 --name whatif-$mix-thesis-interval-1000
done
fi
if [ "$PART" = all ] || [ "$PART" = today ]; then
sim --schemes $SEVEN --trace-dir traces/thesis --programs $THREE --no-standby --no-lending --name cyclic-3-today-programs-thesis-mechanism
sim --schemes $SEVEN --trace-dir traces/thesis --programs $FIVE --no-standby --no-lending --name cyclic-5-today-programs-thesis-mechanism
fi
# Each run folder keeps what the tables and a reader checking them need: the summary, the label, the stamp (which
# says how to rewrite the rest identically) and the per-round figures.
find "$OUT" -mindepth 2 -type f ! -name summary.md ! -name summary.json ! -name stamp.json ! -name simulation.md ! -name rounds.csv -delete
python3 scripts/thesis-comparison.py "$OUT"
echo "== done $(date -u +%T)"
