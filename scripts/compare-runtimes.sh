#!/usr/bin/env bash
# The runtime comparison: builds bench/Runtimes (net10.0, net8.0 self-contained, net48) and runs the same timing loop
# on .NET 10, .NET 8 and Mono, one after another, then writes runtimes.csv, runtimes.md (the Markdown table), one log
# per runtime and stamp.txt (machine, runtimes, commit, command) to OUT_DIR.
# Usage: scripts/compare-runtimes.sh [OUT_DIR] [RUN OPTIONS...]
#   OUT_DIR      default results-local/runtimes (ignored by git)
#   RUN OPTIONS  passed to every run, e.g. --reps 10 --warmup 3 --program quicksort --size 2^24 (see
#                bench/Runtimes/README.md); the defaults are the full comparison (mergesort at thesis size).
# Needs mono (Debian's mono-complete; `.ci/mono-tests` installs it) and the .NET 10 SDK.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-results-local/runtimes}"
[[ $# -gt 0 ]] && shift
command -v mono >/dev/null 2>&1 || { echo "compare-runtimes: mono is missing (install mono-complete)" >&2; exit 1; }
mkdir -p "$out"

project=bench/Runtimes
dotnet build "$project" -c Release -nologo -v q
bin="$project/bin/Release"
net8_exe=$(find "$bin/net8.0" -name DivCon.Bench.Runtimes -type f | head -n 1)
[[ -x $net8_exe ]] || { echo "compare-runtimes: no self-contained net8.0 build under $bin/net8.0" >&2; exit 1; }

csv="$out/runtimes.csv"
rm -f "$csv"
{
  echo "date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S')"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "command: scripts/compare-runtimes.sh $out $*"
  echo "cpu: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs allowed"
  echo "os: $(uname -srm)"
  echo "load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg)"
  echo "mono: $(mono --version | head -n 1)"
  echo "dotnet sdk: $(dotnet --version)"
} >"$out/stamp.txt"

# One runtime at a time, in a fixed order; each appends its rows to the CSV.
dotnet "$bin/net10.0/DivCon.Bench.Runtimes.dll" run --label net10 --csv "$csv" "$@" | tee "$out/net10.log"
"$net8_exe" run --label net8 --csv "$csv" "$@" | tee "$out/net8.log"
mono "$bin/net48/DivCon.Bench.Runtimes.exe" run --label mono --csv "$csv" "$@" | tee "$out/mono.log"

dotnet "$bin/net10.0/DivCon.Bench.Runtimes.dll" report --csv "$csv" --out "$out/runtimes.md"
{ echo; echo '```'; cat "$out/stamp.txt"; echo '```'; } >>"$out/runtimes.md"
echo "compare-runtimes: wrote $out/runtimes.md and $out/runtimes.csv"
