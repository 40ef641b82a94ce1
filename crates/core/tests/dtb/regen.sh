#!/bin/sh
# Regenerates the device-tree fixtures of the mairbench-core tests.
# Needs qemu-system-aarch64 (7.2 was used), dtc and python3. QEMU pads its dumps
# to 1 MiB, so each dump is recompiled by dtc to shrink it, and decompiled to
# .dts for review. QEMU dumps contain random rng-seed/kaslr-seed values, so
# regenerating them changes those bytes only. nop.dtb and qemu-virt-nop.dtb
# are compiled blobs patched with FDT_NOP tokens by nop.py.
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

for dts in ns16550-bus alias no-chosen no-psci psci-smc untranslatable unsupported-console long-names \
	reserved reserved-cells reserved-many; do
	dtc -q -I dts -O dtb -o "$dts.dtb" "$dts.dts"
done

# FDT_NOP tokens, written the way libfdt's fdt_nop_property() and fdt_nop_node()
# write them (fdtput -d does not: it moves the rest of the blob instead).
dtc -q -I dts -O dtb -o "$tmp/nop.dtb" nop.dts
python3 nop.py "$tmp/nop.dtb" nop.dtb /:first /:between /chosen:rng-seed /chosen:kaslr-seed \
	/chosen:last /psci@0 /bus /memory@0 /soc@10000000/serial@1000 \
	/soc@10000000/serial@9000:reg-shift /memory@100000000
python3 nop.py qemu-virt.dtb qemu-virt-nop.dtb /chosen:rng-seed /gpio-keys /pl031@9010000 \
	/psci:compatible

python3 -c 'import random, sys; random.seed(1); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(512)))' >garbage.dtb
head -c 1000 qemu-virt.dtb >truncated.dtb
: >empty.dtb
