#!/usr/bin/env bash
# The README's main command: makes sure the Rust toolchain has the aarch64-unknown-none target
# and tools (qemu/toolchain), then builds the firmware and boots it in QEMU virt through
# qemu/run (cargo run --release). Once the target is installed, `cargo run --release` alone
# does the same.
#
# Usage: ./run.sh [bootargs ...]            e.g. ./run.sh mairbench.quick
# Exit status: qemu/run's (docs/runner.md); 3 when the toolchain lacks something that
# could not be added; cargo's when the build fails.
set -euo pipefail
# Relative paths in the settings keep meaning what they meant where this was started.
for v in MAIRBENCH_LOG MAIRBENCH_DTB; do
    if [[ -n "${!v:-}" && "${!v}" != /* ]]; then export "$v=$PWD/${!v}"; fi
done
# cargo finds rust-toolchain.toml and .cargo/config.toml (target, runner) from here.
cd "$(dirname "${BASH_SOURCE[0]}")"
qemu/toolchain || exit 3
exec cargo run --release -- "$@"
