#!/usr/bin/env bash
# The README's main command: makes sure the Rust toolchain has the image's target and tools
# (qemu/toolchain), then builds the firmware and boots it in QEMU virt through qemu/run
# (cargo run --release). Once the target is installed, `cargo run --release` alone does the
# same for the AArch64 image.
#
# MAIRBENCH_ARCH picks the image: aarch64 (the default: aarch64-unknown-none, booted by
# qemu-system-aarch64) or armv7 (the 32-bit image: armv7-unknown-linux-gnueabihf, a no_std
# executable all the same (.cargo/config.toml says why that target), booted by qemu-system-arm
# on virt with a Cortex-A7; docs/runner.md, "The 32-bit image"). Any other value is refused
# with status 2.
#
# Usage: ./run.sh [bootargs ...]            e.g. ./run.sh mairbench.quick
#        MAIRBENCH_ARCH=armv7 ./run.sh [bootargs ...]
# Exit status: qemu/run's (docs/runner.md); 2 for a bad MAIRBENCH_ARCH; 3 when the toolchain
# lacks something that could not be added; cargo's when the build fails.
set -euo pipefail
# Relative paths in the settings keep meaning what they meant where this was started.
for v in MAIRBENCH_LOG MAIRBENCH_DTB; do
    if [[ -n "${!v:-}" && "${!v}" != /* ]]; then export "$v=$PWD/${!v}"; fi
done
# cargo finds rust-toolchain.toml and .cargo/config.toml (target, runner) from here.
cd "$(dirname "${BASH_SOURCE[0]}")"
case "${MAIRBENCH_ARCH:-aarch64}" in
    aarch64) target=aarch64-unknown-none ;;
    armv7) target=armv7-unknown-linux-gnueabihf ;;
    *)
        echo "mairbench: MAIRBENCH_ARCH must be aarch64 or armv7, not '$MAIRBENCH_ARCH'" >&2
        exit 2
        ;;
esac
# qemu/toolchain always adds aarch64-unknown-none, and the targets named.
qemu/toolchain "$target" || exit 3
exec cargo run --release --target "$target" -- "$@"
