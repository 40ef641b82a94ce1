//! Builds ACPI tables and memory images for the ACPI tests, from the byte layouts of the
//! ACPI 6.5 specification (RSDP 5.2.5, header 5.2.6, RSDT/XSDT 5.2.7-8, FADT 5.2.9, MADT
//! GICC 5.2.12.14) and Microsoft's SPCR specification; and loads the real QEMU tables of
//! `tests/acpi/`.
#![allow(dead_code)]

use mairbench_core::acpi::{Phys, Window};

/// Flat physical memory: `bytes` at `base`.
#[derive(Clone)]
pub struct Mem {
    pub base: u64,
    pub bytes: Vec<u8>,
}

impl Phys for Mem {
    fn read(&self, pa: u64, len: usize) -> Option<&[u8]> {
        let start = usize::try_from(pa.checked_sub(self.base)?).ok()?;
        self.bytes.get(start..start.checked_add(len)?)
    }
}

impl Mem {
    pub fn window(&self) -> Window<'_> {
        Window {
            base: self.base,
            bytes: &self.bytes,
        }
    }
}

/// Sets byte 9 so that the table sums to 0.
pub fn fix_checksum(table: &mut [u8]) {
    table[9] = 0;
    let sum = table.iter().fold(0u8, |s, &b| s.wrapping_add(b));
    table[9] = 0u8.wrapping_sub(sum);
}

/// A table: the 36-byte header, then `body`; checksum set.
pub fn table(signature: &[u8; 4], revision: u8, oem: (&[u8; 6], &[u8; 8]), body: &[u8]) -> Vec<u8> {
    let mut t = Vec::with_capacity(36 + body.len());
    t.extend(signature);
    t.extend(((36 + body.len()) as u32).to_le_bytes());
    t.push(revision);
    t.push(0);
    t.extend(oem.0);
    t.extend(oem.1);
    t.extend(1u32.to_le_bytes()); // OEM revision
    t.extend(b"MBT "); // creator ID
    t.extend(1u32.to_le_bytes()); // creator revision
    t.extend(body);
    fix_checksum(&mut t);
    t
}

/// Sets both RSDP checksums.
pub fn fix_rsdp(r: &mut [u8]) {
    r[8] = 0;
    let sum = r[..20].iter().fold(0u8, |s, &b| s.wrapping_add(b));
    r[8] = 0u8.wrapping_sub(sum);
    if r.len() >= 36 {
        r[32] = 0;
        let sum = r[..36].iter().fold(0u8, |s, &b| s.wrapping_add(b));
        r[32] = 0u8.wrapping_sub(sum);
    }
}

/// An RSDP: revision 0 (20 bytes, RSDT only) or 2 (36 bytes, RSDT and XSDT).
pub fn rsdp(revision: u8, rsdt: u32, xsdt: u64) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend(b"RSD PTR ");
    r.push(0);
    r.extend(b"MBTEST");
    r.push(revision);
    r.extend(rsdt.to_le_bytes());
    if revision >= 2 {
        r.extend(36u32.to_le_bytes());
        r.extend(xsdt.to_le_bytes());
        r.extend([0; 4]);
    }
    fix_rsdp(&mut r);
    r
}

pub const OEM: (&[u8; 6], &[u8; 8]) = (b"MBTEST", b"BOARD   ");
pub const QEMU_OEM: (&[u8; 6], &[u8; 8]) = (b"BOCHS ", b"BXPC    ");

/// An XSDT listing `entries`.
pub fn xsdt(oem: (&[u8; 6], &[u8; 8]), entries: &[u64]) -> Vec<u8> {
    let body: Vec<u8> = entries.iter().flat_map(|e| e.to_le_bytes()).collect();
    table(b"XSDT", 1, oem, &body)
}

/// An RSDT listing `entries`.
pub fn rsdt(oem: (&[u8; 6], &[u8; 8]), entries: &[u32]) -> Vec<u8> {
    let body: Vec<u8> = entries.iter().flat_map(|e| e.to_le_bytes()).collect();
    table(b"RSDT", 1, oem, &body)
}

/// A FADT of ACPI `revision.minor` (276 bytes, ACPI 6.x) with these ARM boot flags, hardware
/// reduced.
pub fn fadt(revision: u8, minor: u8, arm_boot_flags: u16) -> Vec<u8> {
    let mut body = vec![0u8; 276 - 36];
    body[112 - 36..116 - 36].copy_from_slice(&(1u32 << 20).to_le_bytes()); // HW_REDUCED_ACPI
    body[129 - 36..131 - 36].copy_from_slice(&arm_boot_flags.to_le_bytes());
    body[131 - 36] = minor;
    table(b"FACP", revision, OEM, &body)
}

/// GICC flags.
pub const ENABLED: u32 = 1;
pub const ONLINE_CAPABLE: u32 = 1 << 3;

/// A MADT GICC entry of ACPI 6.0 (80 bytes).
pub fn gicc(uid: u32, mpidr: u64, flags: u32) -> Vec<u8> {
    gicc_parked(uid, mpidr, flags, 0, 0)
}

/// A GICC entry with a parking protocol mailbox.
pub fn gicc_parked(uid: u32, mpidr: u64, flags: u32, version: u32, parked: u64) -> Vec<u8> {
    let mut e = vec![0u8; 80];
    e[0] = 0x0b;
    e[1] = 80;
    e[4..8].copy_from_slice(&uid.to_le_bytes()); // CPU interface number
    e[8..12].copy_from_slice(&uid.to_le_bytes()); // ACPI processor UID
    e[12..16].copy_from_slice(&flags.to_le_bytes());
    e[16..20].copy_from_slice(&version.to_le_bytes());
    e[20..24].copy_from_slice(&23u32.to_le_bytes()); // performance interrupt
    e[24..32].copy_from_slice(&parked.to_le_bytes());
    e[68..76].copy_from_slice(&mpidr.to_le_bytes());
    e
}

/// A GIC distributor entry (type 0x0C, 24 bytes), as every MADT has.
pub fn gicd() -> Vec<u8> {
    let mut e = vec![0u8; 24];
    e[0] = 0x0c;
    e[1] = 24;
    e[8..16].copy_from_slice(&0x0800_0000u64.to_le_bytes());
    e[20] = 3; // GICv3
    e
}

/// A MADT (revision 5, ACPI 6.3+) of these entries.
pub fn madt(entries: &[Vec<u8>]) -> Vec<u8> {
    let mut body = vec![0u8; 8];
    for e in entries {
        body.extend(e);
    }
    table(b"APIC", 5, OEM, &body)
}

/// The generic address structure of an SPCR.
#[derive(Clone, Copy)]
pub struct Gas {
    pub space: u8,
    pub bit_width: u8,
    pub access_size: u8,
    pub address: u64,
}

/// A UART in system memory with 32-bit registers and accesses.
pub fn mmio32(address: u64) -> Gas {
    Gas {
        space: 0,
        bit_width: 32,
        access_size: 3,
        address,
    }
}

/// An SPCR of revision 2 (80 bytes): interface type, base address, configured baud rate.
pub fn spcr(interface: u8, gas: Gas, baud: u8) -> Vec<u8> {
    let mut body = vec![0u8; 80 - 36];
    body[0] = interface;
    body[4] = gas.space;
    body[5] = gas.bit_width;
    body[6] = 0;
    body[7] = gas.access_size;
    body[8..16].copy_from_slice(&gas.address.to_le_bytes());
    body[58 - 36] = baud;
    body[60 - 36] = 1; // stop bits
    body[64 - 36..68 - 36].copy_from_slice(&[0xff; 4]); // no PCI device
    table(b"SPCR", 2, OEM, &body)
}

/// An SPCR of revision 4 (88 bytes, no namespace string) with a precise baud rate.
pub fn spcr_precise(interface: u8, gas: Gas, baud: u8, precise: u32) -> Vec<u8> {
    let mut t = spcr(interface, gas, baud);
    t[8] = 4;
    t.extend(precise.to_le_bytes());
    t.extend([0; 4]);
    let len = t.len() as u32;
    t[4..8].copy_from_slice(&len.to_le_bytes());
    fix_checksum(&mut t);
    t
}

/// Where [`assemble`] puts things.
pub const BASE: u64 = 0x8000_0000;
/// The RSDP's address in an assembled image.
pub const RSDP: u64 = BASE;

/// Where [`assemble`] puts the XSDT.
pub const XSDT: u64 = BASE + 0x40;

/// A memory image at [`BASE`]: an RSDP of revision 2 at its start, then an XSDT listing
/// `tables`, then the tables, 16-byte aligned. Returns the image and each table's address.
pub fn assemble(tables: &[Vec<u8>]) -> (Mem, Vec<u64>) {
    assemble_with(tables, tables.len(), |at| at.to_vec())
}

/// [`assemble`] with room for `room` XSDT entries, which `list` gives from the tables'
/// addresses.
pub fn assemble_with(
    tables: &[Vec<u8>],
    room: usize,
    list: impl Fn(&[u64]) -> Vec<u64>,
) -> (Mem, Vec<u64>) {
    let xsdt_at = XSDT - BASE;
    let mut at = (xsdt_at + 36 + 8 * room as u64).next_multiple_of(16);
    let mut addresses = Vec::new();
    for t in tables {
        addresses.push(BASE + at);
        at = (at + t.len() as u64).next_multiple_of(16);
    }
    let mut bytes = vec![0u8; at as usize];
    let r = rsdp(2, 0, XSDT);
    bytes[..r.len()].copy_from_slice(&r);
    let entries = list(&addresses);
    assert!(entries.len() <= room);
    let x = xsdt(OEM, &entries);
    bytes[xsdt_at as usize..][..x.len()].copy_from_slice(&x);
    for (t, &pa) in tables.iter().zip(&addresses) {
        bytes[(pa - BASE) as usize..][..t.len()].copy_from_slice(t);
    }
    (Mem { base: BASE, bytes }, addresses)
}

/// Writes `bytes` at physical address `at` of `mem`.
pub fn patch(mem: &mut Mem, at: u64, bytes: &[u8]) {
    let off = (at - mem.base) as usize;
    mem.bytes[off..off + bytes.len()].copy_from_slice(bytes);
}

/// The real tables of `tests/acpi/NAME/` at their addresses: one window per table, and the
/// RSDP's address.
pub fn qemu(name: &str) -> (Vec<Mem>, u64) {
    let dir = format!("{}/tests/acpi/{name}", env!("CARGO_MANIFEST_DIR"));
    let index = std::fs::read_to_string(format!("{dir}/addresses")).unwrap();
    let mut windows = Vec::new();
    let mut rsdp = 0;
    for line in index.lines() {
        let (sig, pa) = line.split_once(' ').unwrap();
        let pa = u64::from_str_radix(pa.trim_start_matches("0x"), 16).unwrap();
        if sig == "RSDP" {
            rsdp = pa;
        }
        let bytes = std::fs::read(format!("{dir}/{sig}")).unwrap();
        windows.push(Mem { base: pa, bytes });
    }
    (windows, rsdp)
}

/// One real table of `tests/acpi/NAME/`.
pub fn qemu_table(name: &str, signature: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/acpi/{name}/{signature}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The serial port type of a DBG2 Debug Device Information structure (DBG2 Table 3).
pub const DBG2_SERIAL: u16 = 0x8000;

/// A DBG2 Debug Device Information structure (DBG2 Table 2) of one Generic Address Structure
/// and its address size, then the namespace string `"."`, as EDK2 and QEMU write them.
pub fn dbg2_device(port_type: u16, subtype: u16, gas: Gas, size: u32) -> Vec<u8> {
    let gas_at = 22u16;
    let size_at = gas_at + 12;
    let name_at = size_at + 4;
    let len = name_at + 2;
    let mut d = vec![0u8; len as usize];
    d[0] = 0; // revision
    d[1..3].copy_from_slice(&len.to_le_bytes());
    d[3] = 1; // NumberofGenericAddressRegisters
    d[4..6].copy_from_slice(&2u16.to_le_bytes()); // NamespaceStringLength
    d[6..8].copy_from_slice(&name_at.to_le_bytes()); // NamespaceStringOffset
    d[12..14].copy_from_slice(&port_type.to_le_bytes());
    d[14..16].copy_from_slice(&subtype.to_le_bytes());
    d[18..20].copy_from_slice(&gas_at.to_le_bytes()); // BaseAddressRegisterOffset
    d[20..22].copy_from_slice(&size_at.to_le_bytes()); // AddressSizeOffset
    let g = gas_at as usize;
    d[g] = gas.space;
    d[g + 1] = gas.bit_width;
    d[g + 3] = gas.access_size;
    d[g + 4..g + 12].copy_from_slice(&gas.address.to_le_bytes());
    d[size_at as usize..][..4].copy_from_slice(&size.to_le_bytes());
    d[name_at as usize] = b'.';
    d
}

/// A serial port's Debug Device Information structure, 4 KiB of registers.
pub fn dbg2_serial(subtype: u16, gas: Gas) -> Vec<u8> {
    dbg2_device(DBG2_SERIAL, subtype, gas, 0x1000)
}

/// A DBG2 (DBG2 Table 1) of these Debug Device Information structures, right after its
/// 44-byte fixed part.
pub fn dbg2(oem: (&[u8; 6], &[u8; 8]), devices: &[Vec<u8>]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend(44u32.to_le_bytes()); // OffsetDbgDeviceInfo
    body.extend((devices.len() as u32).to_le_bytes()); // NumberDbgDeviceInfo
    for d in devices {
        body.extend(d);
    }
    table(b"DBG2", 0, oem, &body)
}

/// [`spcr`] with these OEM IDs.
pub fn spcr_of(oem: (&[u8; 6], &[u8; 8]), interface: u8, gas: Gas, baud: u8) -> Vec<u8> {
    let mut t = spcr(interface, gas, baud);
    t[10..16].copy_from_slice(oem.0);
    t[16..24].copy_from_slice(oem.1);
    fix_checksum(&mut t);
    t
}

/// [`fadt`] with these OEM IDs, pointing (X_DSDT) to a DSDT at `dsdt`.
pub fn fadt_of(oem: (&[u8; 6], &[u8; 8]), dsdt: u64) -> Vec<u8> {
    let mut t = fadt(6, 3, 1);
    t[10..16].copy_from_slice(oem.0);
    t[16..24].copy_from_slice(oem.1);
    t[140..148].copy_from_slice(&dsdt.to_le_bytes());
    fix_checksum(&mut t);
    t
}

/// PPTT processor hierarchy node flags (ACPI 6.3, 5.2.29.1).
pub const PPTT_PACKAGE: u32 = 1 << 0;
pub const PPTT_ID_VALID: u32 = 1 << 1;
pub const PPTT_THREAD: u32 = 1 << 2;
pub const PPTT_LEAF: u32 = 1 << 3;

/// PPTT cache type structure flags: size, number of sets, associativity, allocation type,
/// cache type, write policy and line size valid (ACPI 6.3, 5.2.29.2).
pub const PPTT_CACHE_ALL_VALID: u32 = 0x7f;
/// Cache type structure attributes: read-write allocate, write-back, and the cache type in
/// bits 3:2.
pub const PPTT_DATA: u8 = 0b0000_0011;
pub const PPTT_INSTRUCTION: u8 = 0b0000_0111;
pub const PPTT_UNIFIED: u8 = 0b0000_1011;

/// A PPTT processor hierarchy node (type 0): 20 bytes and 4 per private resource.
pub fn pptt_node(flags: u32, parent: u32, id: u32, resources: &[u32]) -> Vec<u8> {
    let mut n = vec![0u8; 20];
    n[1] = (20 + 4 * resources.len()) as u8;
    n[4..8].copy_from_slice(&flags.to_le_bytes());
    n[8..12].copy_from_slice(&parent.to_le_bytes());
    n[12..16].copy_from_slice(&id.to_le_bytes());
    n[16..20].copy_from_slice(&(resources.len() as u32).to_le_bytes());
    for r in resources {
        n.extend(r.to_le_bytes());
    }
    n
}

/// A PPTT cache type structure (type 1, 24 bytes) of `size` bytes, `ways`-way, `line`-byte
/// lines, the number of sets derived, all fields valid; `next`: the next level's offset.
pub fn pptt_cache(size: u32, ways: u8, line: u16, attributes: u8, next: u32) -> Vec<u8> {
    let mut c = vec![0u8; 24];
    c[0] = 1;
    c[1] = 24;
    c[4..8].copy_from_slice(&PPTT_CACHE_ALL_VALID.to_le_bytes());
    c[8..12].copy_from_slice(&next.to_le_bytes());
    c[12..16].copy_from_slice(&size.to_le_bytes());
    c[16..20].copy_from_slice(&(size / u32::from(ways) / u32::from(line)).to_le_bytes());
    c[20] = ways;
    c[21] = attributes;
    c[22..24].copy_from_slice(&line.to_le_bytes());
    c
}

/// Lays out PPTT structures one after another from offset 36, each at the offset
/// [`Pptt::add`] returns, so that later ones can name earlier ones.
#[derive(Default)]
pub struct Pptt {
    body: Vec<u8>,
}

impl Pptt {
    /// Appends `structure`; returns its offset in the table.
    pub fn add(&mut self, structure: Vec<u8>) -> u32 {
        let at = 36 + self.body.len() as u32;
        self.body.extend(structure);
        at
    }

    /// The offset the next structure will have.
    pub fn next(&self) -> u32 {
        36 + self.body.len() as u32
    }

    /// The table, of this revision (3: ACPI 6.3 and later).
    pub fn table(&self, revision: u8) -> Vec<u8> {
        table(b"PPTT", revision, OEM, &self.body)
    }
}
