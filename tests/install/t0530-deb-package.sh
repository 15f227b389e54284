#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPack's .deb, installed with `dpkg --root` into a scratch root (its own dpkg database; the
# system's packages stand in for the dependencies), then hvdrun --check-build and a 2-rank job
# from <root>/usr/bin: the package's tree works where it lands.
# Usage: t0530-deb-package.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
fail() { echo "t0530: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/pkg" "$work/root/var/lib/dpkg/info" "$work/root/var/lib/dpkg/updates"
touch "$work/root/var/lib/dpkg/status"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg") \
  >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
debs=("$work"/pkg/hvdrun_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "expected one hvdrun_*.deb in $work/pkg"
deb=${debs[0]}
depends=$(dpkg-deb --field "$deb" Depends)
echo "Depends: $depends"
grep -q libsodium <<<"$depends" || fail "Depends lacks libsodium (dpkg-shlibdeps): $depends"

# The dependencies are the system's, not the scratch root's: --force-depends. The scratch root
# has no shell to chroot into, so the package's (empty) maintainer scripts run chrootless.
dpkg --root="$work/root" --log="$work/dpkg.log" --force-depends --force-not-root \
  --force-script-chrootless \
  -i "$deb" >"$work/dpkg.out" 2>&1 || { cat "$work/dpkg.out"; fail "dpkg -i failed"; }
dpkg --root="$work/root" -s hvdrun | grep -q "^Status: install ok installed" ||
  fail "dpkg -s: not installed"
u="$work/root/usr"
for f in bin/hvdrun lib/libhvd.so share/man/man1/hvdrun.1 share/hvdrun/configs/defaults.yaml \
         share/bash-completion/completions/hvdrun lib/cmake/hvd/hvdConfig.cmake; do
  [ -e "$u/$f" ] || fail "the package lacks /usr/$f"
done
export PATH=/usr/bin:/bin
"$u/bin/hvdrun" --check-build >/dev/null || fail "hvdrun --check-build from the package failed"
out=$("$u/bin/hvdrun" -np 2 -- "$u/bin/hvd-whoami")
echo "$out"
grep -q "2 ranks checked in" <<<"$out" || fail "hvd-whoami under the package's hvdrun: not 2 ranks"
echo "t0530: $(basename "$deb"): ok"
