//! Clusters from a device tree: `/cpus/cpu-map`, or MPIDR affinity.
//!
//! The cpu-map binding (Linux `Documentation/devicetree/bindings/cpu/cpu-topology.txt`, read
//! by `drivers/base/arch_topology.c`): `cpu-map` holds `socketN` or `clusterN` nodes; a
//! socket holds clusters; a cluster holds clusters or `coreN` nodes; a core names its CPU
//! node with `cpu = <&phandle>`, or holds `threadN` nodes that each do. Here a node's kind
//! comes from its name (the prefix and a decimal number, any number: Linux stops at the
//! first gap in the numbering, this reader does not), and:
//! - cores may sit in the cpu-map, a socket or a cluster, as Linux accepts them; their
//!   *group* is that node;
//! - anything else out of place, or of another name, is ignored ([`Problem::CpuMapOdd`]),
//!   as is nesting beyond [`MAX_DEPTH`] ([`Problem::CpuMapTooDeep`]);
//! - a `cpu` phandle is looked up among the CPU nodes of `/cpus` only (their `phandle`, or
//!   the older `linux,phandle`), so a phandle to any other node, the cpu-map's own
//!   included, is no CPU ([`Problem::CpuMapPhandle`]) and nothing is followed twice.

use super::{numbered_as_mt, Key, Problem, Source, Topology, MAX_CPUS};
use crate::fdt::{Children, Fdt, Node};
use crate::platform::{cpu_nodes, dtb_size};

/// Most levels of cpu-map nodes read, the cpu-map included: enough for a socket, three
/// nested clusters, a core and a thread.
pub const MAX_DEPTH: usize = 8;

/// The kind of a cpu-map node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Map,
    Socket,
    Cluster,
    Core,
    Thread,
}

impl Level {
    /// The kind a node's name gives: `socket`, `cluster`, `core` or `thread`, then digits.
    pub(super) fn of(name: &str) -> Option<Level> {
        [
            ("socket", Level::Socket),
            ("cluster", Level::Cluster),
            ("core", Level::Core),
            ("thread", Level::Thread),
        ]
        .iter()
        .find_map(|&(prefix, level)| {
            let number = name.strip_prefix(prefix)?;
            let digits = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
            digits.then_some(level)
        })
    }

    /// Whether a node of this kind may hold one of `child`'s.
    pub(super) fn holds(self, child: Level) -> bool {
        match self {
            Level::Map => matches!(child, Level::Socket | Level::Cluster | Level::Core),
            Level::Socket => matches!(child, Level::Cluster | Level::Core),
            Level::Cluster => matches!(child, Level::Cluster | Level::Core),
            Level::Core => child == Level::Thread,
            Level::Thread => false,
        }
    }

    /// Whether cores in a node of this kind form its group.
    fn is_group(self) -> bool {
        matches!(self, Level::Map | Level::Socket | Level::Cluster)
    }
}

/// A cpu-map node being walked: its kind, the children still to visit, and its group once a
/// CPU was found in it.
#[derive(Clone)]
struct Frame<'a> {
    level: Level,
    children: Children<'a>,
    group: Option<u16>,
}

/// The CPUs of `/cpus` as the cpu-map walk sees them.
struct Cpus {
    /// Each CPU's `phandle` (or `linux,phandle`).
    phandles: [Option<u32>; MAX_CPUS],
    /// Each CPU's group, once placed.
    groups: [Option<u16>; MAX_CPUS],
    /// How many CPUs.
    count: usize,
}

impl Topology<'_> {
    /// The topology of the device tree `dtb`: an invalid tree (as [`crate::platform::discover`]
    /// checks it) gives no CPU ([`Problem::Dtb`]).
    pub fn from_dtb(dtb: &[u8]) -> Topology<'_> {
        match dtb_size(dtb).and_then(|_| Fdt::new(dtb).ok()) {
            Some(fdt) => Topology::from_fdt(fdt),
            None => {
                let mut t = Topology::none();
                t.problems.insert(Problem::Dtb);
                t
            }
        }
    }

    /// The topology of `fdt`: the CPU nodes of `/cpus` as [`crate::platform::Platform::cpus`]
    /// lists them, grouped by `/cpus/cpu-map` (see the module documentation), the CPUs it
    /// leaves out by MPIDR affinity ([`super::affinity_group`]; `reg` carries no MT bit, so
    /// [`numbered_as_mt`] decides for all of them), and each group's CPUs split by their
    /// first `compatible` string and their `capacity-dmips-mhz`.
    pub fn from_fdt(fdt: Fdt<'_>) -> Topology<'_> {
        let mut t = Topology::none();
        let mut cpus = Cpus {
            phandles: [None; MAX_CPUS],
            groups: [None; MAX_CPUS],
            count: 0,
        };
        let mut mpidrs = [0u64; MAX_CPUS];
        for (node, mpidr) in cpu_nodes(fdt) {
            let (Some(phandle), Some(m)) = (
                cpus.phandles.get_mut(cpus.count),
                mpidrs.get_mut(cpus.count),
            ) else {
                t.problems.insert(Problem::TooManyCpus);
                t.cpus_beyond_cap = t.cpus_beyond_cap.saturating_add(1);
                continue;
            };
            *phandle = node
                .property("phandle")
                .or_else(|| node.property("linux,phandle"))
                .and_then(|p| p.as_u32());
            *m = mpidr;
            cpus.count = cpus.count.saturating_add(1);
        }
        if cpus.count == 0 {
            t.problems.insert(Problem::NoCpus);
            return t;
        }
        let map = fdt.find_node("/cpus/cpu-map");
        let map_groups = map.map_or(0, |map| walk(map, &mut cpus, &mut t));
        let count = cpus.count;
        let placed = cpus
            .groups
            .iter()
            .take(count)
            .filter(|g| g.is_some())
            .count();
        t.source = match (map.is_some(), placed) {
            (false, _) => Source::Affinity,
            (true, 0) => {
                t.problems.insert(Problem::CpuMapEmpty);
                Source::Affinity
            }
            (true, n) => {
                if n < count {
                    t.problems.insert(Problem::CpuMapIncomplete);
                }
                Source::CpuMap
            }
        };
        let mpidrs = mpidrs.get(..count).unwrap_or_default();
        let mt = numbered_as_mt(mpidrs);
        Topology::group_by_affinity(mpidrs, &mut cpus.groups, &|_| mt, map_groups);
        for ((node, mpidr), group) in cpu_nodes(fdt).zip(cpus.groups).take(count) {
            let Some(group) = group else {
                continue;
            };
            let key = Key {
                group,
                compatible: node.property("compatible").and_then(|c| c.strings().next()),
                capacity: node.property("capacity-dmips-mhz").and_then(|c| c.as_u32()),
                caches: None,
                part: None,
            };
            t.place(mpidr, key, None);
        }
        t
    }
}

/// Walks the cpu-map `map`, giving each CPU it names a group in `cpus`; returns how many
/// groups it made (numbered from 0).
fn walk(map: Node<'_>, cpus: &mut Cpus, t: &mut Topology<'_>) -> u16 {
    let root = Frame {
        level: Level::Map,
        children: map.children(),
        group: None,
    };
    let mut stack: [Option<Frame<'_>>; MAX_DEPTH] = core::array::from_fn(|_| None);
    if let Some(slot) = stack.first_mut() {
        *slot = Some(root);
    }
    let mut depth = 1usize;
    let mut groups = 0u16;
    while let Some(top) = depth
        .checked_sub(1)
        .and_then(|d| stack.get_mut(d))
        .and_then(Option::as_mut)
    {
        let Some(node) = top.children.next() else {
            depth = depth.saturating_sub(1);
            continue;
        };
        let parent = top.level;
        let Some(level) = Level::of(node.node_name()).filter(|&l| parent.holds(l)) else {
            t.problems.insert(Problem::CpuMapOdd);
            continue;
        };
        let threads = level == Level::Core
            && node
                .children()
                .any(|c| Level::of(c.node_name()) == Some(Level::Thread));
        if level.is_group() || threads {
            if threads && node.property("cpu").is_some() {
                t.problems.insert(Problem::CpuMapOdd);
            }
            match stack.get_mut(depth) {
                Some(slot) => {
                    *slot = Some(Frame {
                        level,
                        children: node.children(),
                        group: None,
                    });
                    depth = depth.saturating_add(1);
                }
                None => t.problems.insert(Problem::CpuMapTooDeep),
            }
            continue;
        }
        // A core without threads, or a thread: its CPU joins the nearest group.
        let Some(cpu) = node.property("cpu") else {
            t.problems.insert(Problem::CpuMapOdd);
            continue;
        };
        let container = stack
            .iter_mut()
            .take(depth)
            .rev()
            .flatten()
            .find(|f| f.level.is_group());
        let Some(container) = container else {
            continue;
        };
        let group = *container.group.get_or_insert_with(|| {
            let g = groups;
            groups = groups.saturating_add(1);
            g
        });
        place(cpu.as_u32(), group, cpus, t);
    }
    groups
}

/// Gives the CPU whose phandle is `phandle` the group `group`.
fn place(phandle: Option<u32>, group: u16, cpus: &mut Cpus, t: &mut Topology<'_>) {
    let at = phandle.filter(|&p| p != 0 && p != u32::MAX).and_then(|p| {
        cpus.phandles
            .iter()
            .take(cpus.count)
            .position(|&h| h == Some(p))
    });
    let Some(slot) = at.and_then(|i| cpus.groups.get_mut(i)) else {
        t.problems.insert(Problem::CpuMapPhandle);
        return;
    };
    if slot.is_some() {
        t.problems.insert(Problem::CpuMapRepeated);
    } else {
        *slot = Some(group);
    }
}
