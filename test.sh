#!/usr/bin/env bash
# Every test of mairbench: host unit tests of the pure logic, then the firmware booted in QEMU
# (boot matrix, output contract, error paths, UEFI). Adds the Rust target and tools to the toolchain,
# and installs QEMU, U-Boot and EDK2, when they are missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

qemu/toolchain
qemu/deps uboot uefi
qemu/dtbs >/dev/null
cargo build --release
cargo host-test "$@"
