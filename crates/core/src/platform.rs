//! What the firmware learns from the flattened device tree (DTB) its boot loader passes.
//!
//! [`discover`] reads the console UART, the PSCI conduit, the RAM regions, the
//! bootargs and the model from a DTB. Whatever is missing, malformed or unsupported
//! falls back to the [`QEMU_VIRT`] defaults and is recorded in [`Platform::problems`].
//! It never panics, whatever the bytes.
//!
//! # Parser
//!
//! Nodes and properties are read with Google's `dtoolkit` crate (0.4.1, no
//! `alloc`): [`Fdt::root`], [`Fdt::chosen`], [`Fdt::find_node`], `child`,
//! `children`, `property`, `compatible`, `model`, `reg`, `ranges`,
//! `#address-cells` and `#size-cells`. It steps over `FDT_NOP` tokens wherever
//! they are: libfdt's `fdt_nop_property()` and `fdt_nop_node()` leave them when a
//! boot loader deletes a property or node in place. None of it recurses (its
//! walks are loops), so nesting depth is not limited; `/aliases` is resolved
//! here, once, without following an alias to another alias.
//!
//! # The structure check, and why `Fdt::new` is not used
//!
//! `dtoolkit`'s readers assume a valid blob: they `expect("Fdt should be
//! valid")` on every token, name and property they step over, and
//! `panic!("Fdt should be valid")` on a property after a child node. Its
//! `Fdt::new` makes those unreachable by checking the whole blob first, and the
//! mutation test (`tests/dtb_mutations.rs`) finds no input that makes it or the
//! readers panic. But `Fdt::new` also enforces the Devicetree Specification's
//! naming rules (`validate.rs`): node and property names of at most 31
//! characters, from a small character set. Real DTBs break them: Linux's
//! `rk3399.dtsi`, so every RK3399 board's DTB, has `snps,dis-u2-freeclk-exists-quirk`
//! (32 characters) and `snps,dis-tx-ipgap-linecheck-quirk` (33) in its DWC3
//! nodes, as have other SoCs' DWC3 nodes; dtc, libfdt, U-Boot and Linux accept
//! them. `Fdt::new` would throw such a board's DTB away, and fall back to the
//! QEMU defaults, for a name this module never reads.
//!
//! So [`discover`] builds the `Fdt` with `Fdt::new_unchecked` (a safe function,
//! despite its name) after its own check, which establishes what those
//! `expect`s rely on, and no more:
//! - the header is at least 40 bytes, with version 17 and a total size within
//!   the buffer ([`dtb_size`]);
//! - the structure and strings blocks lie inside the blob, and the structure
//!   block is 4-byte aligned (`dtoolkit` aligns token offsets within the blob,
//!   the check within the block);
//! - the structure block holds one root (empty name) whose tokens are all
//!   known, in bounds and in order: properties before child nodes, every node
//!   closed, `FDT_END` right after the root; `FDT_NOP` anywhere inside the root;
//! - every node name is NUL-terminated UTF-8 (`FdtNode::name` expects it), and
//!   every property's name offset points to NUL-terminated UTF-8 inside the
//!   strings block (the property readers expect it).
//!
//! On all of that it is at least as strict as `Fdt::new` (it also keeps tokens
//! and values inside `size_dt_struct`, which `Fdt::new` ignores); it differs
//! only in ignoring the naming rules, the memory reservation map (never read
//! here) and where the blocks lie relative to one another.
//! `tests/dtb_mutations.rs` checks both statements on every mutated blob, and
//! walks every node and property of each blob the check accepts through
//! `dtoolkit`'s readers. `tests/platform.rs` fails once a `dtoolkit` accepts the
//! long names: this check can then give way to `Fdt::new`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use core::fmt;

use dtoolkit::fdt::{Fdt, FdtNode};
use dtoolkit::standard::{Chosen, NodeStandard};
use dtoolkit::{Node, Property};

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
    /// The DTB structure block is malformed.
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
                "the device tree structure block is malformed",
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

/// Most nodes on the `/chosen/stdout-path` path, the root included.
const MAX_PATH_NODES: usize = 32;

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
    /// Whether a DTB was passed and passed the structure check.
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
const FDT_NOP: u32 = 4;
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
///
/// String properties must be NUL-terminated UTF-8 and are read up to their first
/// NUL; a malformed `#address-cells` or `#size-cells` makes the addresses below
/// it unusable (rather than defaulted, as `dtoolkit` would).
pub fn discover(dtb: Option<&[u8]>) -> Platform<'_> {
    let mut p = QEMU_VIRT;
    let Some(dtb) = dtb else {
        p.problems.insert(Problem::NoDtb);
        return p;
    };
    let fdt = match check(dtb) {
        // `check` establishes what `dtoolkit`'s readers expect: see the module docs.
        Ok(blob) => Fdt::new_unchecked(blob),
        Err(problem) => {
            p.problems.insert(problem);
            return p;
        }
    };
    p.dtb_ok = true;
    let root = fdt.root();

    p.emulated = root
        .compatible()
        .is_some_and(|mut c| c.any(|c| c == "linux,dummy-virt"));
    p.model = root
        .model()
        .ok()
        .flatten()
        .map(up_to_nul)
        .filter(|m| !m.is_empty())
        .or_else(|| root.compatible()?.find(|c| !c.is_empty()))
        .unwrap_or("unknown");

    let chosen = fdt.chosen();
    // `Chosen::bootargs` borrows from the `Chosen` value: read the node's property.
    p.bootargs = chosen
        .and_then(|chosen| prop_str(*chosen, "bootargs"))
        .unwrap_or_default();
    match console(fdt, chosen) {
        Ok(console) => {
            p.console = console;
            p.console_from_dtb = true;
        }
        Err(problem) => p.problems.insert(problem),
    }

    p.psci = match fdt.find_node("/psci").and_then(|n| prop_str(n, "method")) {
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
    let field = |i: usize| usize::try_from(be32(blob, i.checked_mul(4)?)?).ok();
    let block = |off: usize, size: usize| blob.get(off..off.checked_add(size)?);
    let off_struct = field(2).ok_or(Problem::DtbHeader)?;
    let structs = field(9)
        .and_then(|size| block(off_struct, size))
        .filter(|_| off_struct.is_multiple_of(4))
        .ok_or(Problem::DtbHeader)?;
    let strings = field(3)
        .zip(field(8))
        .and_then(|(off, size)| block(off, size))
        .ok_or(Problem::DtbHeader)?;
    check_structure(structs, strings).ok_or(Problem::DtbStructure)?;
    Ok(blob)
}

/// Walks the structure block, token by token, as `dtoolkit` will.
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
                depth = depth.checked_add(1)?;
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
            FDT_NOP if depth > 0 => {}
            // The root has been closed (a first token FDT_END is caught here too).
            FDT_END if depth == 0 && token_pos > 0 => return Some(()),
            // A second root, anything before the root or between it and FDT_END,
            // misplaced or unknown tokens.
            _ => return None,
        }
    }
}

/// The console from `/chosen/stdout-path`.
fn console<'a>(fdt: Fdt<'a>, chosen: Option<Chosen<FdtNode<'a>>>) -> Result<ConsoleInfo, Problem> {
    let chosen = chosen.ok_or(Problem::NoStdoutPath)?;
    let path = chosen
        .stdout_path()
        .ok()
        .flatten()
        .or_else(|| prop_str(*chosen, "linux,stdout-path"))
        .ok_or(Problem::NoStdoutPath)?;
    let path = path.split([':', '\0']).next().unwrap_or_default();
    let mut chain = Chain::new(fdt.root());
    let found = if path.starts_with('/') {
        chain.walk(path)
    } else {
        // One lookup: an alias naming another alias is not followed.
        let (alias, rest) = path.split_once('/').unwrap_or((path, ""));
        fdt.find_node("/aliases")
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

fn console_kind(node: FdtNode<'_>) -> Option<ConsoleKind> {
    if node.compatible()?.any(|c| c == "arm,pl011") {
        return Some(ConsoleKind::Pl011);
    }
    if !node.compatible()?.any(|c| NS16550_COMPATIBLE.contains(&c)) {
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
fn translate(node: FdtNode<'_>, buses: &[FdtNode<'_>]) -> Option<u64> {
    let &parent = buses.last()?;
    // With 0 address cells the device has no address (`dtoolkit` would read 0).
    parent.address_cells().ok().filter(|&n| n > 0)?;
    parent.size_cells().ok()?;
    let mut addr = node.reg().ok()??.next()?.address::<u64>().ok()?;
    for pair in buses.windows(2).rev() {
        let &[up, bus] = pair else { return None };
        addr = map_through_ranges(bus, up, addr)?;
    }
    Some(addr)
}

/// Maps `addr` from the address space of `bus`'s children into that of `up`.
fn map_through_ranges(bus: FdtNode<'_>, up: FdtNode<'_>, addr: u64) -> Option<u64> {
    if prop(bus, "ranges")?.is_empty() {
        return Some(addr);
    }
    bus.address_cells().ok()?;
    bus.size_cells().ok()?;
    up.address_cells().ok()?;
    bus.ranges().ok()??.find_map(|range| {
        let child = range.child_bus_address::<u64>().ok()?;
        let parent = range.parent_bus_address::<u64>().ok()?;
        let len = range.length::<u64>().ok()?;
        let off = addr.checked_sub(child).filter(|&off| off < len)?;
        parent.checked_add(off)
    })
}

/// Fills the RAM fields of `p` from the memory nodes.
fn memory(root: FdtNode<'_>, p: &mut Platform<'_>) {
    let mut count = 0;
    let cells_ok = root.address_cells().is_ok() && root.size_cells().is_ok();
    for node in root.children().filter(|_| cells_ok) {
        if prop_str(node, "device_type") != Some("memory")
            || !matches!(prop_str(node, "status"), None | Some("okay" | "ok"))
        {
            continue;
        }
        let Some(reg) = node.reg().ok().flatten() else {
            continue;
        };
        for entry in reg {
            let (Ok(base), Ok(size)) = (entry.address::<u64>(), entry.size::<u64>()) else {
                continue;
            };
            if size == 0 {
                continue;
            }
            match p.ram_regions.get_mut(count) {
                Some(slot) => *slot = MemRegion { base, size },
                None => p.problems.insert(Problem::TooManyMemoryRegions),
            }
            count = count.saturating_add(1);
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
struct Chain<'a> {
    nodes: [FdtNode<'a>; MAX_PATH_NODES],
    len: usize,
}

impl<'a> Chain<'a> {
    fn new(root: FdtNode<'a>) -> Self {
        Chain {
            nodes: [root; MAX_PATH_NODES],
            len: 1,
        }
    }

    fn nodes(&self) -> &[FdtNode<'a>] {
        self.nodes.get(..self.len).unwrap_or_default()
    }

    /// Descends along the `/`-separated `path`; without `@`, a component also
    /// matches a child's name without its unit address.
    fn walk(&mut self, path: &str) -> Option<()> {
        for name in path.split('/').filter(|n| !n.is_empty()) {
            let &last = self.nodes().last()?;
            *self.nodes.get_mut(self.len)? = last.child(name)?;
            self.len = self.len.checked_add(1)?;
        }
        Some(())
    }
}

fn prop<'a>(node: FdtNode<'a>, name: &str) -> Option<&'a [u8]> {
    node.property(name)?.value_as::<&'a [u8]>().ok()
}

/// A NUL-terminated UTF-8 string property, up to its first NUL.
fn prop_str<'a>(node: FdtNode<'a>, name: &str) -> Option<&'a str> {
    node.property(name)?
        .value_as::<&'a str>()
        .ok()
        .map(up_to_nul)
}

fn up_to_nul(s: &str) -> &str {
    s.split('\0').next().unwrap_or_default()
}

/// A one-cell property; `default` when absent, `None` when malformed.
fn prop_u32_or(node: FdtNode<'_>, name: &str, default: u32) -> Option<u32> {
    match node.property(name) {
        None => Some(default),
        Some(p) => p.value_as::<u32>().ok(),
    }
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
