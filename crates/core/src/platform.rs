//! What the firmware learns from the flattened device tree (DTB) its boot loader passes.
//!
//! [`discover`] reads the console UART, the PSCI conduit, the RAM regions, the
//! bootargs and the model from a DTB. Whatever is missing, malformed or unsupported
//! falls back to the [`QEMU_VIRT`] defaults and is recorded in [`Platform::problems`].
//! It never panics, whatever the bytes.
//!
//! # Parser
//!
//! Nodes and properties are read with the `fdt` 0.1.5 crate, but only after
//! [`discover`] has checked the whole blob itself: header fields in bounds, every
//! token of the structure block well formed and in bounds, every node name and
//! property name NUL-terminated UTF-8, properties before child nodes, one root,
//! nesting at most 32 deep, and no `FDT_NOP` tokens.
//!
//! Why: without that check the mutation test (`tests/dtb_mutations.rs`) makes
//! `fdt` 0.1.5 panic thousands of times, and its convenience API panics on more
//! than half of bit-flipped or truncated QEMU DTBs (unchecked slicing of the
//! blocks and of property values, `expect`s and `assert`s on tokens,
//! `value[..len - 1]` on empty strings); it trips over `FDT_NOP` between
//! properties, recurses once per nesting level, and retries failed `find_node`
//! lookups through `/aliases`, so an alias naming itself overflows the stack.
//! `flat_device_tree` 3.1.1 removes most `expect`s but keeps the unchecked depth
//! counter of `all_nodes`, the recursion and the alias retry, so it would need
//! the same check: `fdt` 0.1.5 stays.
//!
//! On a checked blob this module calls only `Fdt::new`, `Fdt::all_nodes` (for
//! the root), `FdtNode::children` and `FdtNode::property`, which are then
//! panic-free, and decodes every property value itself; never `find_node`,
//! `chosen`, `memory`, `root`, `aliases`, `reg` or `cell_sizes`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use core::fmt;

use fdt::node::FdtNode;
use fdt::Fdt;

/// The kind of console UART, with what its driver needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsoleKind {
    /// An Arm PL011 (`arm,pl011`).
    Pl011,
    /// A 16550-compatible UART.
    Ns16550 {
        /// Register `i` is at byte offset `i << reg_shift` (`reg-shift`, default 0).
        reg_shift: u8,
        /// Access width in bytes, 1 or 4 (`reg-io-width`, default 1).
        io_width: u8,
    },
}

/// The console UART.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsoleInfo {
    /// Which driver to use.
    pub kind: ConsoleKind,
    /// CPU physical address of the register block.
    pub base: u64,
}

/// How PSCI calls reach the firmware that implements them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PsciConduit {
    /// `HVC #0` (a hypervisor, e.g. QEMU's built-in PSCI at EL1).
    Hvc,
    /// `SMC #0` (EL3 firmware, or QEMU's built-in PSCI at EL2).
    Smc,
}

/// A range of physical memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemRegion {
    /// First byte.
    pub base: u64,
    /// Length in bytes.
    pub size: u64,
}

impl MemRegion {
    /// Whether `addr` lies inside the region.
    pub fn contains(&self, addr: u64) -> bool {
        addr.checked_sub(self.base)
            .is_some_and(|off| off < self.size)
    }
}

/// Something the device tree lacked or got wrong, and what was assumed instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Problem {
    /// No DTB was passed.
    NoDtb,
    /// The DTB header is not valid.
    DtbHeader,
    /// The DTB structure block is malformed or uses what the parser rejects.
    DtbStructure,
    /// `/chosen/stdout-path` is absent.
    NoStdoutPath,
    /// `/chosen/stdout-path` names no node.
    StdoutNotFound,
    /// The console is not a supported UART.
    ConsoleUnsupported,
    /// The console's address is missing or cannot be translated to a CPU address.
    ConsoleNoAddress,
    /// No usable `/memory` region.
    NoMemory,
    /// More RAM regions than [`MAX_RAM_REGIONS`].
    TooManyMemoryRegions,
    /// No `/psci` node with a known method.
    NoPsci,
}

impl Problem {
    /// Every problem, in bit order.
    pub const ALL: [Problem; 10] = [
        Problem::NoDtb,
        Problem::DtbHeader,
        Problem::DtbStructure,
        Problem::NoStdoutPath,
        Problem::StdoutNotFound,
        Problem::ConsoleUnsupported,
        Problem::ConsoleNoAddress,
        Problem::NoMemory,
        Problem::TooManyMemoryRegions,
        Problem::NoPsci,
    ];

    /// A sentence saying what was wrong and what was assumed.
    pub const fn message(self) -> &'static str {
        macro_rules! assume_qemu_virt {
            () => {
                ": assuming QEMU virt (PL011 at 0x9000000, 128 MiB of RAM at 0x40000000)"
            };
        }
        macro_rules! use_qemu_pl011 {
            () => {
                ": using the QEMU virt PL011 at 0x9000000"
            };
        }
        match self {
            Problem::NoDtb => concat!("no device tree", assume_qemu_virt!()),
            Problem::DtbHeader => concat!(
                "the device tree header is invalid (magic, version or size)",
                assume_qemu_virt!()
            ),
            Problem::DtbStructure => concat!(
                "the device tree structure is malformed, nests deeper than 32 or holds FDT_NOP",
                assume_qemu_virt!()
            ),
            Problem::NoStdoutPath => concat!("no /chosen/stdout-path", use_qemu_pl011!()),
            Problem::StdoutNotFound => concat!(
                "/chosen/stdout-path names no node (or an unknown alias)",
                use_qemu_pl011!()
            ),
            Problem::ConsoleUnsupported => concat!(
                "the stdout-path device is neither a PL011 nor a 16550 with reg-shift 0 to 7 and \
                 reg-io-width 1 or 4",
                use_qemu_pl011!()
            ),
            Problem::ConsoleNoAddress => concat!(
                "the stdout-path device has no reg, or no translation through its buses' ranges",
                use_qemu_pl011!()
            ),
            Problem::NoMemory => {
                "no enabled /memory node with a usable reg: assuming 128 MiB of RAM at 0x40000000"
            }
            Problem::TooManyMemoryRegions => "more than 8 RAM regions: ignoring the rest",
            Problem::NoPsci => "no /psci node with method \"hvc\" or \"smc\": PSCI is unavailable",
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// A set of [`Problem`]s.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Problems(u16);

impl Problems {
    /// The empty set.
    pub const NONE: Problems = Problems(0);

    /// Adds `p`.
    pub fn insert(&mut self, p: Problem) {
        self.0 |= 1 << p as u8;
    }

    /// Whether `p` is in the set.
    pub fn contains(self, p: Problem) -> bool {
        self.0 & (1 << p as u8) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The problems in the set, in [`Problem::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Problem> {
        Problem::ALL.into_iter().filter(move |&p| self.contains(p))
    }
}

impl fmt::Debug for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// How many RAM regions [`Platform`] keeps.
pub const MAX_RAM_REGIONS: usize = 8;

/// Largest DTB [`dtb_size`] accepts.
pub const MAX_DTB_SIZE: usize = 4 << 20;

/// Deepest node nesting [`discover`] accepts (the root is at depth 1).
const MAX_DEPTH: usize = 32;

/// What the firmware knows about the machine it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform<'a> {
    /// The console UART.
    pub console: ConsoleInfo,
    /// Whether `console` came from the DTB (else it is the QEMU virt PL011).
    pub console_from_dtb: bool,
    /// PSCI conduit; `None` when unknown.
    pub psci: Option<PsciConduit>,
    /// The first RAM region: the first `reg` entry of the first enabled memory node.
    pub ram: MemRegion,
    /// Whether `ram` came from the DTB (else it is QEMU virt's 128 MiB at 0x4000_0000).
    pub ram_from_dtb: bool,
    ram_regions: [MemRegion; MAX_RAM_REGIONS],
    ram_region_count: usize,
    /// `/chosen/bootargs`; `""` when absent or not UTF-8.
    pub bootargs: &'a str,
    /// `/model`, else the first root `compatible` string, else `"unknown"`.
    pub model: &'a str,
    /// Whether this is QEMU's `virt` machine: the root `compatible` lists
    /// `linux,dummy-virt`. That is also true under KVM, where the CPU and its
    /// caches are real; false without a valid DTB.
    pub emulated: bool,
    /// Whether a DTB was passed and passed the structural check.
    pub dtb_ok: bool,
    /// What was missing or odd.
    pub problems: Problems,
}

impl Platform<'_> {
    /// All RAM regions (at least one; `ram` first), in DTB order, at most
    /// [`MAX_RAM_REGIONS`]. Zero-sized entries and memory nodes whose `status`
    /// is not `okay` are skipped.
    pub fn ram_regions(&self) -> &[MemRegion] {
        self.ram_regions
            .get(..self.ram_region_count)
            .unwrap_or(&self.ram_regions)
    }
}

const QEMU_VIRT_RAM: MemRegion = MemRegion {
    base: 0x4000_0000,
    size: 128 << 20,
};

/// The defaults: QEMU `virt` with its PL011 at 0x0900_0000 and 128 MiB of RAM
/// at 0x4000_0000, PSCI unknown, no bootargs, model `"unknown"`, no problems.
pub const QEMU_VIRT: Platform<'static> = Platform {
    console: ConsoleInfo {
        kind: ConsoleKind::Pl011,
        base: 0x0900_0000,
    },
    console_from_dtb: false,
    psci: None,
    ram: QEMU_VIRT_RAM,
    ram_from_dtb: false,
    ram_regions: [QEMU_VIRT_RAM; MAX_RAM_REGIONS],
    ram_region_count: 1,
    bootargs: "",
    model: "unknown",
    emulated: false,
    dtb_ok: false,
    problems: Problems::NONE,
};

const FDT_MAGIC: u32 = 0xd00d_feed;
const HEADER_LEN: usize = 40;
const FDT_BEGIN_NODE: u32 = 1;
const FDT_END_NODE: u32 = 2;
const FDT_PROP: u32 = 3;
const FDT_END: u32 = 9;

/// Size of the DTB whose header starts `header`, so the firmware can build a
/// slice from the pointer its boot loader passed.
///
/// `header` must hold the 40-byte header. Returns `None` unless the magic is
/// `0xd00dfeed`, the version is 17 or later and compatible with 17, and the
/// total size is between 40 bytes and [`MAX_DTB_SIZE`].
pub fn dtb_size(header: &[u8]) -> Option<usize> {
    let field = |i: usize| be32(header, i.checked_mul(4)?);
    let total = usize::try_from(field(1)?).ok()?;
    let ok = header.len() >= HEADER_LEN
        && field(0)? == FDT_MAGIC
        && field(5)? >= 17
        && field(6)? <= 17
        && (HEADER_LEN..=MAX_DTB_SIZE).contains(&total);
    ok.then_some(total)
}

/// Reads the platform description from `dtb`; see the module documentation.
///
/// Rules:
/// - console: `/chosen/stdout-path` (or `linux,stdout-path`) up to any `:`;
///   a path not starting with `/` begins with an alias resolved through
///   `/aliases`. A path component without `@` also matches a node by its name
///   without the unit address. `arm,pl011` is a PL011; `ns16550a`, `ns16550`,
///   `ns16450`, `ns8250` or `snps,dw-apb-uart` anywhere in `compatible` is a
///   16550 with `reg-shift` (0..=7, default 0) and `reg-io-width` (1 or 4,
///   default 1). `brcm,bcm2835-aux-uart` is not accepted: its registers are
///   16550-like but the DT does not say so. The base is the first `reg` entry
///   translated through the `ranges` of every parent bus (empty `ranges` is the
///   identity; a bus without `ranges` cannot be translated). Addresses and sizes
///   of more than 2 cells (PCI) are not supported.
/// - PSCI: `/psci` `method`, `"hvc"` or `"smc"`.
/// - RAM: the `reg` entries of the root's children with `device_type = "memory"`
///   whose `status` is absent or `okay`.
/// - `/secure-chosen` is ignored.
pub fn discover(dtb: Option<&[u8]>) -> Platform<'_> {
    let mut p = QEMU_VIRT;
    let Some(dtb) = dtb else {
        p.problems.insert(Problem::NoDtb);
        return p;
    };
    let blob = match check(dtb) {
        Ok(blob) => blob,
        Err(problem) => {
            p.problems.insert(problem);
            return p;
        }
    };
    let Ok(fdt) = Fdt::new(blob) else {
        p.problems.insert(Problem::DtbHeader);
        return p;
    };
    let Some(root) = fdt.all_nodes().next() else {
        p.problems.insert(Problem::DtbStructure);
        return p;
    };
    p.dtb_ok = true;

    let root_compatible = prop(root, "compatible").unwrap_or_default();
    p.emulated = strings(root_compatible).any(|c| c == "linux,dummy-virt");
    p.model = prop_str(root, "model")
        .filter(|m| !m.is_empty())
        .or_else(|| strings(root_compatible).next())
        .unwrap_or("unknown");

    let chosen = child(root, "chosen");
    p.bootargs = chosen
        .and_then(|c| prop_str(c, "bootargs"))
        .unwrap_or_default();
    match console(root, chosen) {
        Ok(console) => {
            p.console = console;
            p.console_from_dtb = true;
        }
        Err(problem) => p.problems.insert(problem),
    }

    p.psci = match child(root, "psci").and_then(|n| prop_str(n, "method")) {
        Some("hvc") => Some(PsciConduit::Hvc),
        Some("smc") => Some(PsciConduit::Smc),
        _ => None,
    };
    if p.psci.is_none() {
        p.problems.insert(Problem::NoPsci);
    }

    memory(root, &mut p);
    p
}

/// Checks the blob as described in the module documentation; returns it cut to
/// its total size.
fn check(dtb: &[u8]) -> Result<&[u8], Problem> {
    let total = dtb_size(dtb).ok_or(Problem::DtbHeader)?;
    let blob = dtb.get(..total).ok_or(Problem::DtbHeader)?;
    let block = |off_field: usize, size_field: usize| {
        let off = usize::try_from(be32(blob, off_field.checked_mul(4)?)?).ok()?;
        let size = usize::try_from(be32(blob, size_field.checked_mul(4)?)?).ok()?;
        blob.get(off..off.checked_add(size)?)
    };
    let structs = block(2, 9).ok_or(Problem::DtbHeader)?;
    let strings = block(3, 8).ok_or(Problem::DtbHeader)?;
    check_structure(structs, strings).ok_or(Problem::DtbStructure)?;
    Ok(blob)
}

/// Walks the structure block, token by token, as `fdt` will.
fn check_structure(structs: &[u8], strings: &[u8]) -> Option<()> {
    let align4 = |n: usize| Some(n.checked_add(3)? & !3);
    let mut pos = 0;
    let mut depth = 0usize;
    // Properties may follow a node's name, but not its first child.
    let mut props_allowed = false;
    loop {
        let token_pos = pos;
        let token = be32(structs, pos)?;
        pos = pos.checked_add(4)?;
        match token {
            FDT_BEGIN_NODE if depth > 0 || token_pos == 0 => {
                let name = cstr(structs, pos)?;
                if depth == 0 && !name.is_empty() {
                    return None;
                }
                pos = align4(pos.checked_add(name.len())?.checked_add(1)?)?;
                depth = depth.checked_add(1).filter(|&d| d <= MAX_DEPTH)?;
                props_allowed = true;
            }
            FDT_END_NODE => {
                depth = depth.checked_sub(1)?;
                props_allowed = false;
            }
            FDT_PROP if props_allowed => {
                let len = usize::try_from(be32(structs, pos)?).ok()?;
                let name_off = usize::try_from(be32(structs, pos.checked_add(4)?)?).ok()?;
                cstr(strings, name_off)?;
                // Reading the next token checks that the value fits.
                pos = align4(pos.checked_add(8)?.checked_add(len)?)?;
            }
            // The root has been closed (a first token FDT_END is caught here too).
            FDT_END if depth == 0 && token_pos > 0 => return Some(()),
            // FDT_NOP, a second root, misplaced or unknown tokens.
            _ => return None,
        }
    }
}

/// The console from `/chosen/stdout-path`.
fn console(root: FdtNode<'_, '_>, chosen: Option<FdtNode<'_, '_>>) -> Result<ConsoleInfo, Problem> {
    let path = chosen
        .and_then(|c| prop_str(c, "stdout-path").or_else(|| prop_str(c, "linux,stdout-path")))
        .ok_or(Problem::NoStdoutPath)?;
    let path = path.split(':').next().unwrap_or_default();
    let mut chain = Chain::new(root);
    let found = if path.starts_with('/') {
        chain.walk(path)
    } else {
        let (alias, rest) = path.split_once('/').unwrap_or((path, ""));
        child(root, "aliases")
            .and_then(|aliases| prop_str(aliases, alias))
            .filter(|target| target.starts_with('/'))
            .and_then(|target| chain.walk(target))
            .and_then(|()| chain.walk(rest))
    };
    let nodes = chain.nodes();
    let (&node, buses) = nodes.split_last().ok_or(Problem::StdoutNotFound)?;
    if found.is_none() || buses.is_empty() {
        return Err(Problem::StdoutNotFound);
    }
    let kind = console_kind(node).ok_or(Problem::ConsoleUnsupported)?;
    let base = translate(node, buses).ok_or(Problem::ConsoleNoAddress)?;
    Ok(ConsoleInfo { kind, base })
}

const NS16550_COMPATIBLE: [&str; 5] = [
    "ns16550a",
    "ns16550",
    "ns16450",
    "ns8250",
    "snps,dw-apb-uart",
];
const MAX_REG_SHIFT: u32 = 7;

fn console_kind(node: FdtNode<'_, '_>) -> Option<ConsoleKind> {
    let compatible = prop(node, "compatible")?;
    if strings(compatible).any(|c| c == "arm,pl011") {
        return Some(ConsoleKind::Pl011);
    }
    if !strings(compatible).any(|c| NS16550_COMPATIBLE.contains(&c)) {
        return None;
    }
    let reg_shift = prop_u32_or(node, "reg-shift", 0).filter(|&s| s <= MAX_REG_SHIFT)?;
    let io_width = prop_u32_or(node, "reg-io-width", 1).filter(|&w| w == 1 || w == 4)?;
    Some(ConsoleKind::Ns16550 {
        reg_shift: u8::try_from(reg_shift).ok()?,
        io_width: u8::try_from(io_width).ok()?,
    })
}

/// The CPU address of the first `reg` entry of `node`, whose ancestors are
/// `buses` (root first).
fn translate(node: FdtNode<'_, '_>, buses: &[FdtNode<'_, '_>]) -> Option<u64> {
    let &parent = buses.last()?;
    // With 0 address cells the device has no address.
    let cells = address_cells(parent).filter(|&n| n > 0)?;
    let (mut addr, _) = read_cells(prop(node, "reg")?, cells)?;
    for pair in buses.windows(2).rev() {
        let &[up, bus] = pair else { return None };
        addr = map_through_ranges(bus, up, addr)?;
    }
    Some(addr)
}

/// Maps `addr` from the address space of `bus`'s children into that of `up`.
fn map_through_ranges(bus: FdtNode<'_, '_>, up: FdtNode<'_, '_>, addr: u64) -> Option<u64> {
    let ranges = prop(bus, "ranges")?;
    if ranges.is_empty() {
        return Some(addr);
    }
    let (child_cells, parent_cells, size_cells) =
        (address_cells(bus)?, address_cells(up)?, size_cells(bus)?);
    let entry = cells_len(
        child_cells
            .checked_add(parent_cells)?
            .checked_add(size_cells)?,
    )?;
    if entry == 0 {
        return None;
    }
    ranges.chunks_exact(entry).find_map(|range| {
        let (child, rest) = read_cells(range, child_cells)?;
        let (parent, rest) = read_cells(rest, parent_cells)?;
        let (len, _) = read_cells(rest, size_cells)?;
        let off = addr.checked_sub(child).filter(|&off| off < len)?;
        parent.checked_add(off)
    })
}

/// Fills the RAM fields of `p` from the memory nodes.
fn memory(root: FdtNode<'_, '_>, p: &mut Platform<'_>) {
    let mut count = 0;
    if let (Some(addr_cells), Some(size_cells)) = (address_cells(root), size_cells(root)) {
        let entry = cells_len(addr_cells.saturating_add(size_cells)).unwrap_or(0);
        for node in root.children() {
            let is_memory = prop_str(node, "device_type") == Some("memory");
            let enabled = matches!(prop_str(node, "status"), None | Some("okay" | "ok"));
            let Some(reg) = prop(node, "reg").filter(|_| is_memory && enabled && entry > 0) else {
                continue;
            };
            for range in reg.chunks_exact(entry) {
                let Some((base, rest)) = read_cells(range, addr_cells) else {
                    continue;
                };
                let Some((size, _)) = read_cells(rest, size_cells).filter(|&(size, _)| size > 0)
                else {
                    continue;
                };
                match p.ram_regions.get_mut(count) {
                    Some(slot) => *slot = MemRegion { base, size },
                    None => p.problems.insert(Problem::TooManyMemoryRegions),
                }
                count = count.saturating_add(1);
            }
        }
    }
    match p.ram_regions.first() {
        Some(&first) if count > 0 => {
            p.ram = first;
            p.ram_from_dtb = true;
            p.ram_region_count = count.min(MAX_RAM_REGIONS);
        }
        _ => p.problems.insert(Problem::NoMemory),
    }
}

/// A node and its ancestors, root first, as found by walking a path.
struct Chain<'b, 'a> {
    nodes: [FdtNode<'b, 'a>; MAX_DEPTH],
    len: usize,
}

impl<'b, 'a> Chain<'b, 'a> {
    fn new(root: FdtNode<'b, 'a>) -> Self {
        Chain {
            nodes: [root; MAX_DEPTH],
            len: 1,
        }
    }

    fn nodes(&self) -> &[FdtNode<'b, 'a>] {
        self.nodes.get(..self.len).unwrap_or_default()
    }

    /// Descends along the `/`-separated `path`.
    fn walk(&mut self, path: &str) -> Option<()> {
        for name in path.split('/').filter(|n| !n.is_empty()) {
            let &last = self.nodes().last()?;
            *self.nodes.get_mut(self.len)? = child(last, name)?;
            self.len = self.len.checked_add(1)?;
        }
        Some(())
    }
}

/// The first child of `node` called `name`; without `@`, `name` also matches
/// the part of a child's name before its unit address.
fn child<'b, 'a>(node: FdtNode<'b, 'a>, name: &str) -> Option<FdtNode<'b, 'a>> {
    node.children()
        .find(|c| c.name == name || (!name.contains('@') && c.name.split('@').next() == Some(name)))
}

fn prop<'a>(node: FdtNode<'_, 'a>, name: &str) -> Option<&'a [u8]> {
    node.property(name).map(|p| p.value)
}

/// A string property, up to its first NUL.
fn prop_str<'a>(node: FdtNode<'_, 'a>, name: &str) -> Option<&'a str> {
    let value = prop(node, name)?;
    core::str::from_utf8(value.split(|&b| b == 0).next()?).ok()
}

/// A one-cell property; `default` when absent, `None` when malformed.
fn prop_u32_or(node: FdtNode<'_, '_>, name: &str, default: u32) -> Option<u32> {
    match prop(node, name) {
        None => Some(default),
        Some(value) => Some(u32::from_be_bytes(value.try_into().ok()?)),
    }
}

/// `#address-cells` for the children of `node` (default 2); `None` above 2.
fn address_cells(node: FdtNode<'_, '_>) -> Option<u32> {
    prop_u32_or(node, "#address-cells", 2).filter(|&n| n <= 2)
}

/// `#size-cells` for the children of `node` (default 1); `None` above 2.
fn size_cells(node: FdtNode<'_, '_>) -> Option<u32> {
    prop_u32_or(node, "#size-cells", 1).filter(|&n| n <= 2)
}

fn cells_len(cells: u32) -> Option<usize> {
    usize::try_from(cells).ok()?.checked_mul(4)
}

/// Reads a number of `cells` (at most 2) big-endian cells; returns it and the rest.
fn read_cells(bytes: &[u8], cells: u32) -> Option<(u64, &[u8])> {
    if cells > 2 {
        return None;
    }
    let (head, rest) = bytes.split_at_checked(cells_len(cells)?)?;
    let value = head.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
    Some((value, rest))
}

/// The non-empty UTF-8 strings of a string-list property.
fn strings(value: &[u8]) -> impl Iterator<Item = &str> + Clone {
    value
        .split(|&b| b == 0)
        .filter_map(|s| core::str::from_utf8(s).ok())
        .filter(|s| !s.is_empty())
}

fn be32(bytes: &[u8], off: usize) -> Option<u32> {
    let word = bytes.get(off..off.checked_add(4)?)?;
    Some(u32::from_be_bytes(word.try_into().ok()?))
}

/// The NUL-terminated UTF-8 string at `off`.
fn cstr(bytes: &[u8], off: usize) -> Option<&str> {
    let rest = bytes.get(off..)?;
    let len = rest.iter().position(|&b| b == 0)?;
    core::str::from_utf8(rest.get(..len)?).ok()
}
