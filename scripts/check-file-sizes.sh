#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The house rule on sizes (shared/docs/house-style.md): no production file over 400 lines.
# Lists every tracked production file over the limit, longest first, and fails if there is one.
# Production: the sources of what hvdrun installs and runs (launcher, runtime, libs, trainer,
# python, scripts, cmake), not the tests, fuzz targets, docs or data.
# Usage: scripts/check-file-sizes.sh [LIMIT]   (default 400)
set -euo pipefail
cd "$(dirname "$0")/.."
limit="${1:-400}"
case "$limit" in ''|*[!0-9]*) echo "check-file-sizes: LIMIT must be a number of lines, not '$limit'" >&2; exit 2 ;; esac
command -v git >/dev/null || { echo "check-file-sizes: git is needed to list the tracked files" >&2; exit 2; }

over=()
while IFS= read -r file; do
  [ -f "$file" ] || continue  # deleted in the work tree, not yet committed
  lines=$(wc -l <"$file")
  if [ "$lines" -gt "$limit" ]; then over+=("$lines $file"); fi
done < <(git ls-files -- launcher runtime libs trainer python scripts cmake CMakeLists.txt |
         grep -E '(\.(cc|h|cu|cuh|py|sh|cmake)|CMakeLists\.txt)$')

if [ "${#over[@]}" -eq 0 ]; then
  echo "check-file-sizes: no production file over $limit lines"
  exit 0
fi
echo "check-file-sizes: ${#over[@]} production file(s) over $limit lines (split each by purpose):" >&2
printf '%s\n' "${over[@]}" | sort -rn | sed 's/^/  /' >&2
exit 1
