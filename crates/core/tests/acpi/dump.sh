#!/bin/sh
# Regenerates the real ACPI tables of the mairbench-core tests: QEMU virt booted into EDK2
# (Debian's qemu-efi-aarch64, /usr/share/AAVMF), which installs QEMU's tables; once its
# shell prompt appears, guest RAM is saved over QMP and the tables are cut out of it,
# RSDP first, at the physical addresses EDK2 put them (listed in each directory's
# `addresses`). QEMU 10.0.2 and Debian's EDK2 2024.11 were used; other versions move the
# tables and may change their contents.
#   qemu-virt/                     -machine virt -cpu max -smp 4 (GICv2, PSCI over HVC)
#   qemu-virt-el2-gicv3-20cpus/    -machine virt,virtualization=on,gic-version=3 -smp 20
#                                  (EL2: PSCI over SMC; MPIDRs 0..0xf, 0x100..0x103)
# Needs qemu-system-aarch64, the AAVMF firmware and python3; about 20 s per machine.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
code=/usr/share/AAVMF/AAVMF_CODE.fd

dump() { # directory machine smp
	cp /usr/share/AAVMF/AAVMF_VARS.fd "$tmp/vars.fd"
	: >"$tmp/serial.log"
	timeout 300 qemu-system-aarch64 -machine "$2" -cpu max -smp "$3" -m 256 -nographic -net none \
		-drive if=pflash,format=raw,readonly=on,file=$code \
		-drive if=pflash,format=raw,file="$tmp/vars.fd" \
		-qmp unix:"$tmp/qmp.sock",server,nowait -serial file:"$tmp/serial.log" >/dev/null 2>&1 &
	i=0
	until grep -q "Shell>" "$tmp/serial.log"; do
		i=$((i + 1))
		[ $i -lt 120 ] || { echo "EDK2 never reached its shell" >&2; exit 1; }
		sleep 1
	done
	python3 - "$tmp" <<'PY'
import json, socket, sys
tmp = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
s.connect(tmp + "/qmp.sock")
f = s.makefile("rw")
f.readline()
for cmd in [{"execute": "qmp_capabilities"},
            {"execute": "pmemsave", "arguments": {"val": 0x40000000, "size": 0x10000000,
                                                  "filename": tmp + "/ram.bin"}},
            {"execute": "quit"}]:
    f.write(json.dumps(cmd) + "\n"); f.flush(); f.readline()
PY
	wait
	python3 - "$tmp/ram.bin" "$1" <<'PY'
import os, struct, sys
ram, out = sys.argv[1], sys.argv[2]
base = 0x40000000
d = open(ram, "rb").read()
os.makedirs(out, exist_ok=True)
i = d.find(b"RSD PTR ")
while i >= 0 and sum(d[i:i + 20]) & 0xff:
    i = d.find(b"RSD PTR ", i + 1)
assert i >= 0, "no RSDP in RAM"
rsdp = d[i:i + 36]
found = [("RSDP", base + i, rsdp)]
def table(pa):
    o = pa - base
    return d[o:o + 4].decode(), d[o:o + struct.unpack_from("<I", d, o + 4)[0]]
xsdt = struct.unpack_from("<Q", rsdp, 24)[0]
sig, x = table(xsdt)
found.append((sig, xsdt, x))
for k in range((len(x) - 36) // 8):
    pa = struct.unpack_from("<Q", x, 36 + 8 * k)[0]
    sig, t = table(pa)
    found.append((sig, pa, t))
    if sig == "FACP":
        dsdt = struct.unpack_from("<Q", t, 140)[0]
        found.append(table(dsdt)[:1] + (dsdt, table(dsdt)[1]))
with open(out + "/addresses", "w") as idx:
    for sig, pa, t in found:
        open(out + "/" + sig, "wb").write(t)
        idx.write(f"{sig} {pa:#x}\n")
PY
}
dump qemu-virt virt 4
dump qemu-virt-el2-gicv3-20cpus virt,virtualization=on,gic-version=3 20
