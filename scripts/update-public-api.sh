#!/usr/bin/env bash
# Brings each library's public API baseline up to date with its code: adds every public symbol missing from
# PublicAPI.Shipped.txt/PublicAPI.Unshipped.txt to PublicAPI.Unshipped.txt (RS0016) and fixes the nullable
# annotations of listed entries (RS0036/RS0037). Entries of removed symbols (RS0017) are reported by the build:
# delete those lines by hand, an API removal being a conscious edit. Review the diff before committing.
# Usage: scripts/update-public-api.sh [project.csproj ...]   (default: the three libraries)
set -euo pipefail
cd "$(dirname "$0")/.."
projects=("$@")
[[ ${#projects[@]} -eq 0 ]] && projects=(src/Skeletons/DivCon.Skeletons.csproj src/Schedulers/DivCon.Schedulers.csproj src/Programs/DivCon.Programs.csproj)
for project in "${projects[@]}"; do
  echo "update-public-api: $project"
  dotnet restore "$project" -v q
  dotnet format analyzers "$project" --no-restore --diagnostics RS0016 RS0036 RS0037 --severity warn -v q || true
done
git --no-pager diff --stat -- 'src/*/PublicAPI.*.txt' || true
