//! Device trees for `MAIRBENCH_DTB`: QEMU virt's own (`dumpdtb`, for the runner's default
//! machine: cortex-a72, one CPU, 256 MiB, EL1), with `/memreserve/` entries and a
//! `/reserved-memory` node added. The DTB given with `-dtb` must describe the machine QEMU
//! builds, so it is dumped from that machine, never kept in the repository.

use std::path::PathBuf;

const FDT_BEGIN_NODE: u32 = 1;
const FDT_END_NODE: u32 = 2;
const FDT_PROP: u32 = 3;
const FDT_END: u32 = 9;

/// A node to add: its name, properties (name, raw value) and children.
pub struct Node {
    pub name: &'static str,
    pub props: Vec<(&'static str, Vec<u8>)>,
    pub children: Vec<Node>,
}

impl Node {
    pub fn new(name: &'static str) -> Self {
        Node {
            name,
            props: Vec::new(),
            children: Vec::new(),
        }
    }

    pub fn prop(mut self, name: &'static str, value: impl Into<Vec<u8>>) -> Self {
        self.props.push((name, value.into()));
        self
    }

    /// A property of big-endian cells.
    pub fn cells(self, name: &'static str, cells: &[u32]) -> Self {
        let value: Vec<u8> = cells.iter().flat_map(|c| c.to_be_bytes()).collect();
        self.prop(name, value)
    }

    /// `reg = <base size>` with two address and two size cells.
    pub fn reg(self, base: u64, size: u64) -> Self {
        let cells = [base >> 32, base, size >> 32, size].map(|c| c as u32);
        self.cells("reg", &cells)
    }

    pub fn child(mut self, child: Node) -> Self {
        self.children.push(child);
        self
    }
}

/// `/reserved-memory` with two-cell addresses and sizes and an empty `ranges`.
pub fn reserved_memory(children: Vec<Node>) -> Node {
    let node = Node::new("reserved-memory")
        .cells("#address-cells", &[2])
        .cells("#size-cells", &[2])
        .prop("ranges", []);
    children.into_iter().fold(node, Node::child)
}

/// QEMU virt's device tree for the runner's defaults.
pub fn qemu_virt() -> Vec<u8> {
    let path = tmp("qemu-virt-dump.dtb");
    super::dumpdtb(
        "virt",
        &["-cpu", "cortex-a72", "-smp", "1", "-m", "256M"],
        &path,
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A file under the test target's temporary directory.
pub fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{}-{name}", std::process::id()))
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

/// `dtb` with `memreserve` entries appended to its reservation block and `nodes` added
/// to the root, as a compact blob (version 17) that `dtc -I dtb` reads back.
pub fn with_reservations(dtb: &[u8], memreserve: &[(u64, u64)], nodes: &[Node]) -> Vec<u8> {
    let field = |i: usize| be32(dtb, i * 4) as usize;
    let (off_struct, off_strings, off_rsv) = (field(2), field(3), field(4));
    let (size_strings, size_struct) = (field(8), field(9));
    let old_struct = &dtb[off_struct..off_struct + size_struct];
    let mut strings = dtb[off_strings..off_strings + size_strings].to_vec();

    // The root ends with FDT_END_NODE, FDT_END: the new nodes go just before them.
    let tail = old_struct.len() - 8;
    assert_eq!(be32(old_struct, tail), FDT_END_NODE, "root not closed last");
    assert_eq!(be32(old_struct, tail + 4), FDT_END);
    let mut structs = old_struct[..tail].to_vec();
    for node in nodes {
        write_node(node, &mut structs, &mut strings);
    }
    structs.extend_from_slice(&old_struct[tail..]);

    let mut rsv = Vec::new();
    for entry in dtb[off_rsv..].chunks(16) {
        if entry.iter().all(|&b| b == 0) {
            break;
        }
        rsv.extend_from_slice(entry);
    }
    for &(base, size) in memreserve {
        rsv.extend(base.to_be_bytes());
        rsv.extend(size.to_be_bytes());
    }
    rsv.extend([0; 16]);

    let off_rsv = 40;
    let off_struct = off_rsv + rsv.len();
    let off_strings = off_struct + structs.len();
    let total = off_strings + strings.len();
    let header = [
        0xd00d_feed,
        total as u32,
        off_struct as u32,
        off_strings as u32,
        off_rsv as u32,
        17,
        16,
        be32(dtb, 28),
        strings.len() as u32,
        structs.len() as u32,
    ];
    let mut out: Vec<u8> = header.iter().flat_map(|w| w.to_be_bytes()).collect();
    out.extend(rsv);
    out.extend(structs);
    out.extend(strings);
    out
}

/// `dtb` without the nodes (with everything below them) and properties `drop` names: a node
/// by its path (`/pl011@9000000`), a property as `path:name` (`/chosen:stdout-path`,
/// `/:compatible` for the root's).
pub fn without(dtb: &[u8], drop: &[&str]) -> Vec<u8> {
    let field = |i: usize| be32(dtb, i * 4) as usize;
    let (off_struct, off_strings, size_struct) = (field(2), field(3), field(9));
    let old = &dtb[off_struct..off_struct + size_struct];
    let name_at = |off: usize| {
        let s = &dtb[off_strings + off..];
        String::from_utf8_lossy(&s[..s.iter().position(|&b| b == 0).unwrap()]).into_owned()
    };
    let mut out = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut skipping_from: Option<usize> = None;
    let mut at = 0;
    while at < old.len() {
        let token = be32(old, at);
        let start = at;
        at += 4;
        let here = |path: &[String]| {
            let p = path.join("/");
            if p.is_empty() {
                "/".to_owned()
            } else {
                p
            }
        };
        match token {
            FDT_BEGIN_NODE => {
                let len = old[at..].iter().position(|&b| b == 0).unwrap();
                let name = String::from_utf8_lossy(&old[at..at + len]).into_owned();
                at = (at + len + 1).next_multiple_of(4);
                path.push(name);
                if skipping_from.is_none() && drop.contains(&here(&path).as_str()) {
                    skipping_from = Some(path.len());
                }
            }
            FDT_END_NODE => {
                if skipping_from == Some(path.len()) {
                    skipping_from = None;
                    path.pop();
                    continue;
                }
                path.pop();
            }
            FDT_PROP => {
                let len = be32(old, at) as usize;
                let name = name_at(be32(old, at + 4) as usize);
                at = (at + 8 + len).next_multiple_of(4);
                if drop.contains(&format!("{}:{name}", here(&path)).as_str()) {
                    continue;
                }
            }
            _ => {}
        }
        if skipping_from.is_none() {
            out.extend_from_slice(&old[start..at]);
        }
    }
    let mut blob = dtb[..off_struct].to_vec();
    blob.extend(&out);
    let off_strings_new = blob.len();
    blob.extend(&dtb[off_strings..off_strings + field(8)]);
    let set = |blob: &mut Vec<u8>, i: usize, v: usize| {
        blob[i * 4..i * 4 + 4].copy_from_slice(&(v as u32).to_be_bytes())
    };
    let total = blob.len();
    set(&mut blob, 1, total);
    set(&mut blob, 3, off_strings_new);
    set(&mut blob, 9, out.len());
    blob
}

/// `dtb` with properties added to existing nodes: each `(path, name, value)` goes first in
/// the node at `path` (`/cpus/cpu@0`).
pub fn with_props(dtb: &[u8], add: &[(&str, &str, Vec<u8>)]) -> Vec<u8> {
    let field = |i: usize| be32(dtb, i * 4) as usize;
    let (off_struct, off_strings, size_struct) = (field(2), field(3), field(9));
    let old = &dtb[off_struct..off_struct + size_struct];
    let mut strings = dtb[off_strings..off_strings + field(8)].to_vec();
    let mut out = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut added = 0;
    let mut at = 0;
    while at < old.len() {
        let token = be32(old, at);
        let start = at;
        at += 4;
        match token {
            FDT_BEGIN_NODE => {
                let len = old[at..].iter().position(|&b| b == 0).unwrap();
                path.push(String::from_utf8_lossy(&old[at..at + len]).into_owned());
                at = (at + len + 1).next_multiple_of(4);
                out.extend_from_slice(&old[start..at]);
                let here = path.join("/");
                let here = if here.is_empty() {
                    "/".to_owned()
                } else {
                    here
                };
                for (_, name, value) in add.iter().filter(|(p, ..)| *p == here) {
                    let name_off = strings.len() as u32;
                    strings.extend(name.as_bytes());
                    strings.push(0);
                    out.extend(FDT_PROP.to_be_bytes());
                    out.extend((value.len() as u32).to_be_bytes());
                    out.extend(name_off.to_be_bytes());
                    out.extend(value);
                    out.resize(out.len().next_multiple_of(4), 0);
                    added += 1;
                }
                continue;
            }
            FDT_END_NODE => {
                path.pop();
            }
            FDT_PROP => at = (at + 8 + be32(old, at) as usize).next_multiple_of(4),
            _ => {}
        }
        out.extend_from_slice(&old[start..at]);
    }
    assert_eq!(added, add.len(), "a node to add a property to is missing");
    let mut blob = dtb[..off_struct].to_vec();
    blob.extend(&out);
    let off_strings_new = blob.len();
    blob.extend(&strings);
    let set = |blob: &mut Vec<u8>, i: usize, v: usize| {
        blob[i * 4..i * 4 + 4].copy_from_slice(&(v as u32).to_be_bytes())
    };
    let total = blob.len();
    set(&mut blob, 1, total);
    set(&mut blob, 3, off_strings_new);
    set(&mut blob, 8, strings.len());
    set(&mut blob, 9, out.len());
    blob
}

/// QEMU virt's device tree with four CPUs in two clusters of two (`-smp
/// 4,clusters=2,cores=2`: QEMU writes the `cpu-map`), the first cluster's CPUs given
/// `capacity-dmips-mhz` 485 and the second's 1024 (the RK3399's A53 and A72 values), written
/// to a file named `name` for `MAIRBENCH_DTB` with `MAIRBENCH_SMP=4`.
pub fn virt_two_clusters(name: &str) -> PathBuf {
    let dump = tmp(&format!("{name}.dump"));
    super::dumpdtb(
        "virt",
        &[
            "-cpu",
            "cortex-a72",
            "-smp",
            "4,clusters=2,cores=2",
            "-m",
            "256M",
        ],
        &dump,
    );
    let dtb = std::fs::read(&dump).unwrap_or_else(|e| panic!("{}: {e}", dump.display()));
    let capacity = |v: u32| v.to_be_bytes().to_vec();
    let dtb = with_props(
        &dtb,
        &[
            ("/cpus/cpu@0", "capacity-dmips-mhz", capacity(485)),
            ("/cpus/cpu@1", "capacity-dmips-mhz", capacity(485)),
            ("/cpus/cpu@2", "capacity-dmips-mhz", capacity(1024)),
            ("/cpus/cpu@3", "capacity-dmips-mhz", capacity(1024)),
        ],
    );
    mairbench_core::fdt::Fdt::new(&dtb).expect("the edited DTB is well-formed");
    let path = tmp(name);
    std::fs::write(&path, &dtb).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

fn write_node(node: &Node, structs: &mut Vec<u8>, strings: &mut Vec<u8>) {
    let pad = |s: &mut Vec<u8>| s.resize(s.len().next_multiple_of(4), 0);
    structs.extend(FDT_BEGIN_NODE.to_be_bytes());
    structs.extend(node.name.as_bytes());
    structs.push(0);
    pad(structs);
    for (name, value) in &node.props {
        let name_off = strings.len() as u32;
        strings.extend(name.as_bytes());
        strings.push(0);
        structs.extend(FDT_PROP.to_be_bytes());
        structs.extend((value.len() as u32).to_be_bytes());
        structs.extend(name_off.to_be_bytes());
        structs.extend(value);
        pad(structs);
    }
    for child in &node.children {
        write_node(child, structs, strings);
    }
    structs.extend(FDT_END_NODE.to_be_bytes());
}

/// Writes QEMU virt's device tree with these reservations to a file named `name` (for
/// `MAIRBENCH_DTB`), checked by `mairbench_core`'s reader.
pub fn virt_with(name: &str, memreserve: &[(u64, u64)], nodes: &[Node]) -> PathBuf {
    let dtb = with_reservations(&qemu_virt(), memreserve, nodes);
    mairbench_core::fdt::Fdt::new(&dtb).expect("the edited DTB is well-formed");
    let path = tmp(name);
    std::fs::write(&path, &dtb).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

/// The reservations of the QEMU runs: `/memreserve/` 0x49000000 + 1 MiB, a no-map
/// `secmon@4c000000` of 64 MiB (the top of the 256 MiB of RAM), a dynamic 16 MiB
/// `linux,cma`, and a disabled `disabled@4a000000` of 32 MiB that must be ignored.
pub fn virt_reserved(name: &str) -> PathBuf {
    const MIB: u64 = 1 << 20;
    let children = vec![
        Node::new("secmon@4c000000")
            .reg(0x4c00_0000, 64 * MIB)
            .prop("no-map", []),
        Node::new("linux,cma")
            .prop("compatible", "shared-dma-pool\0")
            .prop("reusable", [])
            .cells("size", &[0, 16 << 20]),
        Node::new("disabled@4a000000")
            .reg(0x4a00_0000, 32 * MIB)
            .prop("status", "disabled\0"),
    ];
    virt_with(name, &[(0x4900_0000, MIB)], &[reserved_memory(children)])
}
