#!/usr/bin/env bash
# Packs every DivCon package into one folder feed with one command: DivCon.Skeletons, DivCon.Schedulers,
# DivCon.Programs (libraries, with .snupkg symbols) and DivCon.Harness (the `divcon` .NET tool).
# It packs the solution, so a project added to DivCon.sln is packed when it is packable (the tests, the simulator and
# the benchmarks are not).
#
# Usage: scripts/pack.sh [FEED] [extra `dotnet pack` arguments, e.g. --no-build after a Release build]
#   FEED defaults to ./feed. VERSION=<version> overrides the version of Directory.Build.props.
# Then consume the feed as docs/guide.md ("Installing from a folder feed") shows: a nuget.config with package source mapping.
set -euo pipefail
cd "$(dirname "$0")/.."

feed="${1:-feed}"; [[ $# -gt 0 ]] && shift
version_args=()
[[ -n ${VERSION:-} ]] && version_args=("-p:Version=$VERSION")
mkdir -p "$feed"

dotnet pack DivCon.sln -c Release -o "$feed" -nologo -v q "${version_args[@]}" "$@"

echo "packed into $feed:"
ls -1 "$feed" | grep -E '^DivCon\..*\.nupkg$' | sed 's/^/  /'
