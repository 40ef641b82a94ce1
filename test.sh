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
# mairbench-linux, which host/tests/twin.rs runs under user-mode QEMU (Debian's qemu-user).
cargo build --release -p mairbench-linux
if ! command -v qemu-aarch64 >/dev/null; then
    echo "mairbench: installing qemu-user (qemu-aarch64, for host/tests/twin.rs)" >&2
    sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y qemu-user >/dev/null ||
        { "${sudo[@]}" apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y qemu-user >/dev/null; }
fi
cargo host-test "$@"
