#!/usr/bin/env bash
# Two commits' builds of the same timing program, compared pair after pair: child processes of build A and build B
# run back to back (A,B then B,A, alternating), each warming up and timing the flat cases of the fine-grain table
# (bench/Runtimes' `flat` command: the 2^24 sum in every idiom, the every-node-a-task tree, fib) for a short budget,
# so a machine whose speed drifts between minutes slows both members of a pair alike. Per case the median B/A of the
# pairs with a 95% bootstrap interval; per build each case against its baseline in the same child.
#
# Usage: scripts/bench-pairs.sh A_COMMIT B_COMMIT [--pairs 10] [--seconds 1] [--warmup 1] [--workers 2]
#                               [--only case,case] [--out DIR]
#   A_COMMIT, B_COMMIT  commits; each is checked out into a temporary worktree, THIS tree's timing program
#                       (bench/Runtimes and the harness workload files it links) is copied into it, so the same
#                       benchmark code is compiled against each commit's libraries (Release, net10.0)
#   --pairs N           pairs of children (2 to 1000; 10)
#   --seconds S         timed seconds per case and child (1); --warmup S unrecorded seconds before (1)
#   --workers N         workers of DivCon's schedulers (2)
#   --only a,b          cases (names as in bench/Runtimes/README.md)
#   --out DIR           the results folder (default results-local/bench-pairs-<time>, ignored by git); an existing
#                       non-empty folder is refused
# Writes DIR/README.md (command, commits, date, machine, load, .NET, tables), runs.csv, summary.csv, summary.md.
# Any failure (not a commit, a bad option, a build that fails, a child that fails or reports nothing) is one line
# `error: ...` on stderr and exit code 1. The defaults take about 14 minutes on 2 idle CPUs: 1-2 minutes of building,
# then about 36 s a child (17 cases of 1 s warm-up and 1 s timed), 20 children.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "error: $*" >&2; exit 1; }
[[ $# -ge 2 && $1 != -* && $2 != -* ]] || fail "usage: scripts/bench-pairs.sh A_COMMIT B_COMMIT [--pairs N] [--seconds S] [--warmup S] [--workers N] [--only a,b] [--out DIR]"
a_ref=$1 b_ref=$2
shift 2
# Resolved once: a branch that moves during the run (minutes of building) must not change what is built or named.
a_sha=$(git rev-parse -q --verify "$a_ref^{commit}") || fail "A_COMMIT '$a_ref' is not a commit"
b_sha=$(git rev-parse -q --verify "$b_ref^{commit}") || fail "B_COMMIT '$b_ref' is not a commit"
options=("$@")
command_line="scripts/bench-pairs.sh $a_ref $b_ref${*:+ $*}"
repo=$(pwd)
# The same reading of the options as the run itself, before minutes of building.
dotnet build src/Harness -c Release -nologo -v q >/dev/null 2>&1 || fail "the harness does not build (dotnet build src/Harness -c Release)"
harness=src/Harness/bin/Release/net10.0/DivCon.Harness.dll
dotnet "$harness" bench-pairs --validate "${options[@]}" || exit 1

tmp=$(mktemp -d)
trap 'for d in "$tmp"/a "$tmp"/b; do [[ -d $d ]] && git -C "$repo" worktree remove --force "$d" >/dev/null 2>&1; done; rm -rf "$tmp"' EXIT
# The timing program of this tree (its working files: what is measured is what is compiled here, once).
program_files=(bench/Runtimes src/Harness/Benchmarks/TreeWorkloads.cs src/Harness/Benchmarks/GranularityWorkloads.cs
  src/Harness/Benchmarks/BatchTiming.cs src/Harness/Benchmarks/FlatWorkloads.cs)
prepare() { # $1 = a|b, $2 = ref: builds the timing program against the ref's libraries, prints its dll
  local dir="$tmp/$1" ref=$2 log="$tmp/build-$1.log"
  git worktree add -q --detach "$dir" "$ref" >/dev/null 2>&1 || fail "could not check out '$ref' into a temporary worktree"
  rm -rf "$dir/bench/Runtimes"
  mkdir -p "$dir/src/Harness/Benchmarks"
  for f in "${program_files[@]}"; do
    if [[ -d $f ]]; then
      mkdir -p "$dir/$f" && tar -C "$f" --exclude=./bin --exclude=./obj -cf - . | tar -xf - -C "$dir/$f"
    else
      cp "$f" "$dir/$f"
    fi
  done
  # Warnings are not errors here: an older commit's analyzer settings must not stop the measurement of code that
  # builds cleanly in this tree. A real compile error (an API the commit lacks) still fails.
  if ! dotnet build "$dir/bench/Runtimes" -c Release -f net10.0 -nologo -v q -p:TreatWarningsAsErrors=false >"$log" 2>&1; then
    local first
    first=$(grep -m 1 -E ': error [A-Z]+[0-9]+' "$log" | sed -E 's/ \[[^]]*\]$//; s#^[^(]*/((bench|src)/[^(]*\()#\1#' || true)
    fail "this tree's timing program does not compile against $(git rev-parse --short "$ref") (${first:-dotnet build failed}); compare a later commit, or one with the API the named file needs"
  fi
  echo "$dir/bench/Runtimes/bin/Release/net10.0/DivCon.Bench.Runtimes.dll"
}
describe() { git log -1 --format='%h (%cs) %s' "$1"; }
program="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- "${program_files[@]}" || echo ' with uncommitted changes to the timing program')"
a_text="$a_ref = $(describe "$a_sha")" b_text="$b_ref = $(describe "$b_sha")"
echo "bench-pairs: building A ($(git rev-parse --short "$a_sha")) and B ($(git rev-parse --short "$b_sha"))" >&2
a_dll=$(prepare a "$a_sha")
b_dll=$(prepare b "$b_sha")
dotnet "$harness" bench-pairs --a "$a_dll" --b "$b_dll" --a-commit "$a_text" --b-commit "$b_text" \
  --program-commit "$program" --command "$command_line" "${options[@]}" || exit 1
