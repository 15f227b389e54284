#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when an ELF file the build produced (program, shared library, Python extension module)
# has a RUNPATH or RPATH entry that is empty or relative. The loader reads an empty entry as the
# working folder, and a relative one from it, so such a program loads a library planted where
# the user runs it (issue 23: a libsodium.so.23 in the working folder ran inside hvd-bench).
# Every entry must be absolute or start with $ORIGIN.
# usage: check_runpath.sh READELF BUILD_DIR
set -euo pipefail
readelf=$1 build=$2
checked=0 bad=0
elf_magic=$(printf '\177ELF')
while IFS= read -r -d '' file; do
  [ "$(head -c 4 "$file")" = "$elf_magic" ] || continue
  checked=$((checked + 1))
  # " 0x...1d (RUNPATH)  Library runpath: [/a:/b:]" -> "/a:/b:"
  paths=$("$readelf" -d "$file" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*: \[\(.*\)\]$/\2/p')
  while IFS= read -r list; do
    # An empty entry anywhere: "", ":/a", "/a:", "/a::/b" all hold "::" once wrapped in colons.
    case ":$list:" in
      *::*) echo "FAIL: $file: empty entry in RUNPATH/RPATH [$list]"; bad=$((bad + 1)); continue ;;
    esac
    IFS=: read -r -a entries <<<"$list"
    for entry in "${entries[@]}"; do
      case "$entry" in
        /* | '$ORIGIN' | '$ORIGIN/'* | '${ORIGIN}' | '${ORIGIN}/'*) ;;
        *) echo "FAIL: $file: relative entry '$entry' in RUNPATH/RPATH [$list]"; bad=$((bad + 1)) ;;
      esac
    done
  done < <(printf '%s\n' "$paths" | sed '/^$/d')
done < <(find "$build/bin" "$build"/lib* -type f -print0 2>/dev/null)
if [ "$checked" -eq 0 ]; then
  echo "FAIL: no ELF file under $build/bin or $build/lib*: is this the build folder?"
  exit 1
fi
if [ "$bad" -ne 0 ]; then
  echo "FAIL: $bad bad RUNPATH/RPATH entries in $checked ELF files"
  exit 1
fi
echo "PASS: $checked ELF files, every RUNPATH/RPATH entry absolute or \$ORIGIN"
