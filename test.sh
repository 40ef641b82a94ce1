#!/usr/bin/env bash
# Every test of mairbench: host unit tests of the pure logic, then the firmware booted in QEMU
# (boot matrix, output contract, error paths, UEFI, U-Boot, LAVA, the Linux twin).
# First, once, before any test: the Rust target and tools (qemu/toolchain), every system
# package the tests use (qemu/deps test: one apt-get update at most, one apt-get install of
# what is missing; the table is qemu/packages), and the downloads kept outside the repository
# (Debian's arm64 kernel and busybox, the boards' device trees, LAVA's dispatcher; never
# installed). The tests themselves install nothing (MAIRBENCH_INSTALL=0): a missing package
# is named, and fails the test under CI=true.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

qemu/toolchain
qemu/deps test
qemu/dtbs >/dev/null
lava/deps dispatcher >/dev/null
cargo build --release
# mairbench-linux, which host/tests/twin.rs runs under user-mode QEMU (qemu-aarch64).
cargo build --release -p mairbench-linux
MAIRBENCH_INSTALL=0 cargo host-test "$@"
