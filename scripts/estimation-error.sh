#!/usr/bin/env bash
# The online scalability estimator's error: each program alone under the default policy (dynamic) on 16 and 64
# simulated cores with no profile, its estimated speedup on the cores it holds against the simulated alone speedup
# (the offline profile), at 0.5, 1, 2 and 3 simulated seconds. Deterministic (simulated time); a few minutes.
# Usage: scripts/estimation-error.sh   (OUT overrides the folder, default results-local/estimation-error)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${HARNESS_DLL:-}" ]; then H=(dotnet "$HARNESS_DLL"); else dotnet build src/Harness -c Release > /dev/null; H=(dotnet run -c Release --project src/Harness --no-build --); fi
OUT=${OUT:-results-local/estimation-error}
PROGRAMS=${PROGRAMS:-quicksort-thesis,mergesort-thesis,strassen-thesis,sumsq,pi,quicksort,mergesort,strassen}
mkdir -p "$OUT"
for c in 16 64; do
  for p in ${PROGRAMS//,/ }; do
    dir=traces/thesis-form; [ -e "traces/thesis-form/$p-w1-g16.dctree" ] || dir=traces/thesis
    "${H[@]}" simulate --cores $c --duration 3 --out "$OUT" --trace-dir $dir --programs $p --schemes dynamic --name $p-$c > /dev/null
    find "$OUT/$p-$c" -type f ! -name estimates.csv ! -name stamp.json ! -name simulation.md -delete
  done
done
python3 - "$OUT" "$PROGRAMS" <<'PY'
import csv, sys, os
out, programs = sys.argv[1], sys.argv[2].split(',')
times = (0.5, 1, 2, 3)
lines = ["| program | cores | profiled speedup | " + " | ".join(f"error at {t} s" for t in times) + " |",
         "| --- | ---: | ---: | " + " | ".join("---:" for _ in times) + " |"]
for c in (16, 64):
    for p in programs:
        rows = list(csv.DictReader(open(os.path.join(out, f"{p}-{c}", "estimates.csv"))))
        cells = []
        for t in times:
            r = min(rows, key=lambda r: abs(float(r['time_s']) - t))
            cells.append(f"{float(r['efficiency_error_held']) * 100:+.1f}%" if r['efficiency_error_held'] else "-")
        lines.append(f"| {p} | {c} | {float(rows[-1]['profiled_speedup_held']):.2f} | " + " | ".join(cells) + " |")
table = "\n".join(lines)
open(os.path.join(out, "errors.md"), "w").write("# Estimation error (SIMULATED)\n\nEstimated speedup on the cores held / simulated alone speedup - 1; each program alone under `dynamic`, no profile, no machine costs. Command: `scripts/estimation-error.sh`.\n\n" + table + "\n")
print(table)
PY
