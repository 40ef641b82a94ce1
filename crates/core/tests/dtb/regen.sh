#!/bin/sh
# Regenerates the device-tree fixtures of the mairbench-core tests.
# Needs qemu-system-aarch64 (7.2 was used), dtc and python3. QEMU pads its dumps
# to 1 MiB, so each dump is recompiled by dtc to shrink it, and decompiled to
# .dts for review. QEMU dumps contain random rng-seed/kaslr-seed values, so
# regenerating them changes those bytes only.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dump() { # name machine-options [extra qemu args...]
	name=$1 machine=$2
	shift 2
	qemu-system-aarch64 -machine "$machine,dumpdtb=$tmp/$name.dtb" -cpu cortex-a72 \
		-nographic -net none "$@" 2>/dev/null
	dtc -q -I dtb -O dtb -o "$name.dtb" "$tmp/$name.dtb"
	dtc -q -I dtb -O dts -o "$name.dts" "$name.dtb"
}
head -c 4096 /dev/zero >"$tmp/kernel" # -append needs a -kernel; QEMU only loads it
dump qemu-virt virt
dump qemu-virt-el2 virt,virtualization=on
dump qemu-virt-el3 virt,secure=on
dump qemu-virt-bootargs virt -kernel "$tmp/kernel" -append "mairbench.quick foo"

for dts in ns16550-bus alias no-chosen no-psci psci-smc untranslatable unsupported-console; do
	dtc -q -I dts -O dtb -o "$dts.dtb" "$dts.dts"
done

python3 -c 'import random, sys; random.seed(1); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(512)))' >garbage.dtb
head -c 1000 qemu-virt.dtb >truncated.dtb
: >empty.dtb
