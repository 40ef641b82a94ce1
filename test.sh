#!/usr/bin/env bash
# Every test of mairbench: host unit tests of the pure logic, then the firmware booted in QEMU
# (boot matrix, output contract, error paths, UEFI). Adds the Rust target and tools to the toolchain,
# installs QEMU, U-Boot and EDK2, and fetches Debian's arm64 kernel and busybox for the Linux boot
# (never installed), when they are missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

qemu/toolchain
qemu/deps uboot uefi linux
qemu/dtbs >/dev/null
cargo build --release
cargo host-test "$@"
