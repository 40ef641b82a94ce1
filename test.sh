#!/usr/bin/env bash
# Every test of mairbench: host unit tests of the pure logic, then host/tests' five binaries
# (docs/extending.md#a-boot-configuration-or-a-test): the firmware booted in QEMU (the boot
# matrix, the output contract, error paths, UEFI, U-Boot), the Linux twin, the boards' tools
# (LAVA, the serial console), the runner and toolchain, and the host tool on its own.
# First, once, before any test: the Rust targets (armv7-unknown-linux-gnueabihf, the 32-bit
# image's and the 32-bit twin's; i686-unknown-linux-gnu, where core's unit tests run with a
# 32-bit usize) and tools (qemu/toolchain), every system package the
# tests use (qemu/deps test: one apt-get update at most, one apt-get install of what is
# missing; the table is qemu/packages, qemu-system-arm and U-Boot's qemu_arm among them), and
# the downloads kept outside the repository (Debian's arm64 and armhf kernels and busybox, the boards'
# device trees, LAVA's dispatcher; never installed); then the builds the tests use, the
# AArch64 image and the 32-bit one among them. The tests themselves install nothing
# (MAIRBENCH_INSTALL=0): a missing package is named, and fails the test under CI=true.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

qemu/toolchain armv7-unknown-linux-gnueabihf i686-unknown-linux-gnu
qemu/deps test
qemu/dtbs >/dev/null
lava/deps dispatcher >/dev/null
# The firmware and the Linux twin, each for AArch64 and for 32-bit Arm (issue 32): the images
# the boot tests boot in QEMU (host/tests/boot, the 32-bit one in armv7.rs) and the twins
# host/tests/linux runs under user-mode QEMU (qemu-aarch64, qemu-arm). One cargo for the four,
# so that their crates build side by side on two cores (the firmware alone: 40 s instead of
# 58 s for one cargo command per target).
cargo build --release -p mairbench -p mairbench-linux --target aarch64-unknown-none \
    --target armv7-unknown-linux-gnueabihf
# The runner (runner/), which the boot tests start directly: built once, before them.
qemu/runner-bin >/dev/null
export MAIRBENCH_INSTALL=0
# Core's unit tests where usize has 32 bits, as on the 32-bit image's target (issue 32),
# unoptimised: their build took 18 s instead of 26 s at core's opt-level 1, and they run in 1 s.
i686() {
    cargo test -q -p mairbench-core --lib --target i686-unknown-linux-gnu \
        --config 'profile.dev.package.mairbench-core.opt-level=0' \
        --config 'profile.dev.package.dtoolkit.opt-level=0'
}
if [ $# -gt 0 ]; then
    # Arguments name tests (`./test.sh --test boot -- matrix`): the host tests they select,
    # in one cargo, then core's 32-bit unit tests, all of them.
    cargo host-test "$@"
    i686
    exit
fi
# Every test, in two lanes. The boot tests (two QEMUs at a time) leave a third of the two
# cores idle while QEMUs wait for each other; every other test, many of which wait on
# terminals, timers and user-mode QEMU, runs beside them, its output kept and shown after the
# boot tests' (CI on a clean clone: 7:10 in one lane). Both lanes select the same packages,
# so that they share one build: the test files other than the boot tests are named as cargo
# finds them (tests/NAME.rs, tests/NAME/main.rs).
cargo host-test --no-run
others=()
for t in crates/core/tests/*.rs runner/tests/*.rs host/tests/*.rs host/tests/*/main.rs; do
    t=${t%/main.rs} && t=${t##*/} && t=${t%.rs}
    [ "$t" = boot ] || others+=(--test "$t")
done
lane=$(mktemp) && trap 'rm -f "$lane"' EXIT
(cargo host-test --lib --bins "${others[@]}" && cargo host-test --doc && i686) >"$lane" 2>&1 &
other=$!
booted=0 && cargo host-test --test boot || booted=$?
finished=0 && wait "$other" || finished=$?
cat "$lane"
[ "$booted" = 0 ] || echo "test.sh: the boot tests failed (above the other tests' output)" >&2
[ "$finished" = 0 ] || echo "test.sh: a test outside the boot tests failed (above)" >&2
[ "$booted" = 0 ] && [ "$finished" = 0 ]
