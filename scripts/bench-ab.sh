#!/usr/bin/env bash
# Two builds of the harness's BenchmarkDotNet suites, interleaved: A, B, B, A, A, B, ... (each round reverses the
# order of the one before, so a machine whose speed drifts slowly favours neither), then one table of per-round ratios.
# Only comparisons inside one run mean anything on a machine whose speed drifts between runs minutes apart; this
# script makes the two builds' runs neighbours and compares each round's pair.
#
# Usage: scripts/bench-ab.sh A_COMMIT B_COMMIT OUT_DIR ROUNDS -- BENCHMARKDOTNET ARGUMENTS...
#   A_COMMIT, B_COMMIT  commits; each is checked out into a temporary worktree and its harness built once (Release,
#                       net10.0). Commits, not the working tree: BenchmarkDotNet rebuilds the project it benchmarks at
#                       every run, so a tree edited during the run would be measured half old, half new.
#   OUT_DIR             where the runs' artifacts, ab.csv (per round, per benchmark: A and B medians, B/A) and ab.md
#                       (per benchmark: the median of B/A over the rounds, its range, and the DivCon-to-baseline ratio of
#                       each build) go; default results-local/bench-ab (ignored by git)
#   ROUNDS              rounds (each runs both builds once); 3 or more for a range worth reading
#   after --            passed to `bench` unchanged, e.g. --filter '*FineGranularity*' --job short
# Example (about 25 minutes):
#   scripts/bench-ab.sh 937613f HEAD results-local/ab 3 -- --filter '*SkeletonBenchmarks*' '*FineGranularityBenchmarks*' --job short
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 5 && $5 == "--" ]] || { echo "usage: scripts/bench-ab.sh A_COMMIT B_COMMIT OUT_DIR ROUNDS -- BENCHMARKDOTNET ARGUMENTS..." >&2; exit 1; }
a_ref=$1 b_ref=$2 out=$3 rounds=$4
git rev-parse -q --verify "$a_ref^{commit}" >/dev/null || { echo "bench-ab: A_COMMIT '$a_ref' is not a commit" >&2; exit 1; }
git rev-parse -q --verify "$b_ref^{commit}" >/dev/null || { echo "bench-ab: B_COMMIT '$b_ref' is not a commit" >&2; exit 1; }
shift 5
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench-ab: ROUNDS must be a positive integer, got '$rounds'" >&2; exit 1; }
mkdir -p "$out"
repo=$(pwd)
tmp=$(mktemp -d)
trap 'for d in "$tmp"/a "$tmp"/b; do [[ -d $d ]] && git -C "$repo" worktree remove --force "$d" >/dev/null 2>&1; done; rm -rf "$tmp"' EXIT

prepare() { # $1 = a|b, $2 = ref: prints the harness dll
  local dir="$tmp/$1" ref=$2
  git worktree add -q --detach "$dir" "$ref"
  dotnet build "$dir/src/Harness" -c Release -f net10.0 -nologo -v q >&2
  echo "$dir/src/Harness/bin/Release/net10.0/DivCon.Harness.dll"
}
a_dll=$(prepare a "$a_ref")
b_dll=$(prepare b "$b_ref")
describe() { git rev-parse --short "$1"; }
{
  echo "date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S')"
  echo "A: $(describe "$a_ref")"
  echo "B: $(describe "$b_ref")"
  echo "command: scripts/bench-ab.sh $a_ref $b_ref $out $rounds -- $*"
  echo "cpu: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs allowed"
  echo "os: $(uname -srm); dotnet sdk $(dotnet --version)"
  echo "load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg)"
} >"$out/stamp.txt"

for ((r = 1; r <= rounds; r++)); do
  if ((r % 2 == 1)); then order="a b"; else order="b a"; fi
  for side in $order; do
    dll=$a_dll; [[ $side == b ]] && dll=$b_dll
    echo "bench-ab: round $r, build ${side^^} ($(date -u +%H:%M:%S))" >&2
    dotnet "$dll" bench "$@" --exporters json --artifacts "$out/round$r-$side" >"$out/round$r-$side.log" 2>&1 \
      || { echo "bench-ab: round $r build ${side^^} failed, see $out/round$r-$side.log" >&2; exit 3; }
    # BenchmarkDotNet exits 0 when its generated project fails to build or a benchmark throws: look for that.
    if grep -q -e 'Build Error' -e 'executed benchmarks: 0' -e 'Benchmarks with issues' "$out/round$r-$side.log"; then
      echo "bench-ab: round $r build ${side^^} ran no benchmark or had issues, see $out/round$r-$side.log" >&2; exit 3
    fi
  done
done

python3 - "$out" "$rounds" <<'EOF'
import glob, json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])

def medians(folder):
    """Benchmark name (type.method(params)) -> median in ns, from BenchmarkDotNet's full JSON reports."""
    found = {}
    for path in glob.glob(os.path.join(folder, 'results', '*-report-full*.json')):
        with open(path) as f:
            report = json.load(f)
        for b in report.get('Benchmarks', []):
            stats = b.get('Statistics')
            if stats is None:
                continue
            key = f"{b['Type']}.{b['Method']}" + (f"({b['Parameters']})" if b.get('Parameters') else '')
            found[key] = stats['Median']
    return found

rows = []
for r in range(1, rounds + 1):
    a, b = medians(f'{out}/round{r}-a'), medians(f'{out}/round{r}-b')
    for key in sorted(set(a) & set(b)):
        rows.append((r, key, a[key], b[key], b[key] / a[key]))
with open(f'{out}/ab.csv', 'w') as f:
    f.write('round,benchmark,a_median_ns,b_median_ns,b_over_a\n')
    for r, key, av, bv, ratio in rows:
        f.write(f'{r},"{key}",{av:.1f},{bv:.1f},{ratio:.4f}\n')
by = {}
for r, key, av, bv, ratio in rows:
    by.setdefault(key, []).append((av, bv, ratio))
with open(f'{out}/ab.md', 'w') as f:
    f.write('| benchmark | A median (ns, median over rounds) | B median | B / A, median over rounds | B / A, range | rounds |\n')
    f.write('| --- | ---: | ---: | ---: | --- | ---: |\n')
    for key, vals in by.items():
        ratios = [v[2] for v in vals]
        f.write(f'| {key} | {statistics.median(v[0] for v in vals):,.0f} | {statistics.median(v[1] for v in vals):,.0f} | '
                f'{statistics.median(ratios):.3f} | {min(ratios):.3f}-{max(ratios):.3f} | {len(vals)} |\n')
print(open(f'{out}/ab.md').read())
EOF
