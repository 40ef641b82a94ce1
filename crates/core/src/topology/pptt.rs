//! Clusters from ACPI: the PPTT, with the MADT giving each processor its MPIDR.
//!
//! The layout is the ACPI specification's (6.3, section 5.2.29 "Processor Properties Topology
//! Table (PPTT)"): the 36-byte header, then structures, each starting with its type and its
//! length (a byte each):
//! - type 0, "Processor hierarchy node structure" (5.2.29.1): flags at 4 (bit 0 physical
//!   package, bit 1 ACPI Processor ID valid, bit 2 processor is a thread, bit 3 node is a
//!   leaf), the parent at 8 (its offset from the start of the table; 0 for none), the ACPI
//!   Processor ID at 12, the number of private resources at 16, and from 20 the resources,
//!   4-byte offsets of structures (the node's private caches);
//! - type 1, "Cache type structure" (5.2.29.2): flags at 4 (bit 0 size valid, bit 1 number
//!   of sets valid, bit 2 associativity valid, bit 6 line size valid), the next level of cache
//!   at 8 (an offset, 0 for none), the size at 12, the number of sets at 16, the associativity
//!   at 20 (a byte), the attributes at 21 (bits 3:2, the cache type: 0 data, 1 instruction, 2
//!   or 3 unified) and the line size at 22 (2 bytes); 24 bytes at least.
//!
//! Read as Linux reads it (`drivers/acpi/pptt.c`):
//! - a CPU's node is the leaf whose ACPI Processor ID is its MADT GICC's ACPI Processor UID
//!   (`acpi_find_processor_node`); a node is a leaf by its flag from table revision 2, before
//!   it if no processor node names it as parent (`acpi_pptt_leaf_node`);
//! - its group is its core's parent: the leaf's parent, its grandparent when the leaf is a
//!   thread (`find_acpi_cpu_topology_cluster`); a core with no parent is a group of its own;
//! - cache levels count from the leaf up: a node's private caches are one level above the
//!   deepest reached below it on the way, each next level of cache one more
//!   (`acpi_count_levels`, `acpi_find_cache_level`). A cache met a second time (listed by a
//!   node and reached by a next level of cache too) is counted once, where first met.
//!   Instruction caches are left out.
//!
//! Every offset is checked against the table before it is read; parents and next levels of
//! cache are followed at most [`MAX_HOPS`] times, so loops end (and are named); at most
//! [`MAX_STRUCTURES`] structures are searched for leaves.

use super::{numbered_as_mt, Caches, Key, Problem, Problems, Source, Topology, MAX_CPUS};
use crate::acpi::{byte, processors, u16_at, u32_at};
use crate::cache::{CacheLevel, CacheType, MAX_LEVELS};

/// The table header's length.
const HEADER: usize = 36;
/// Most parents followed from a leaf, and most caches followed along a next-level chain.
pub const MAX_HOPS: usize = 16;
/// Most structures searched for leaves ([`Problem::PpttTooMany`] beyond): thousands more than
/// a machine of [`MAX_CPUS`] CPUs needs, and few enough that a revision 1 table's leaf test
/// (a walk of the table per node) stays short.
pub const MAX_STRUCTURES: usize = 4096;

const PROCESSOR: u8 = 0;
const CACHE: u8 = 1;
const PROCESSOR_LEN: usize = 20;
const CACHE_LEN: usize = 24;

const NODE_FLAGS: usize = 4;
const NODE_PARENT: usize = 8;
const NODE_ID: usize = 12;
const NODE_RESOURCES: usize = 16;
const IS_THREAD: u32 = 1 << 2;
const IS_LEAF: u32 = 1 << 3;

const CACHE_FLAGS: usize = 4;
const CACHE_NEXT: usize = 8;
const CACHE_SIZE: usize = 12;
const CACHE_SETS: usize = 16;
const CACHE_WAYS: usize = 20;
const CACHE_ATTRIBUTES: usize = 21;
const CACHE_LINE: usize = 22;
const SIZE_VALID: u32 = 1 << 0;
const SETS_VALID: u32 = 1 << 1;
const WAYS_VALID: u32 = 1 << 2;
const LINE_VALID: u32 = 1 << 6;

/// The PPTT's bytes, cut to its length, and its revision.
#[derive(Clone, Copy)]
struct Pptt<'a> {
    bytes: &'a [u8],
    revision: u8,
}

/// A processor hierarchy node: its offset and its bytes (at least [`PROCESSOR_LEN`]).
#[derive(Clone, Copy)]
struct ProcNode<'a> {
    at: usize,
    bytes: &'a [u8],
}

impl<'a> ProcNode<'a> {
    fn flags(self) -> u32 {
        u32_at(self.bytes, NODE_FLAGS).unwrap_or(0)
    }

    fn parent(self) -> u32 {
        u32_at(self.bytes, NODE_PARENT).unwrap_or(0)
    }

    fn id(self) -> u32 {
        u32_at(self.bytes, NODE_ID).unwrap_or(0)
    }

    /// The private resources' offsets; `Err` when the node is too short for their number
    /// (then none).
    fn resources(self) -> Result<impl Iterator<Item = u32> + 'a, Problem> {
        let count = u32_at(self.bytes, NODE_RESOURCES).unwrap_or(0);
        let len = usize::try_from(count)
            .ok()
            .and_then(|n| n.checked_mul(4))
            .and_then(|n| n.checked_add(PROCESSOR_LEN))
            .filter(|&n| n <= self.bytes.len())
            .ok_or(Problem::PpttStructure)?;
        let list = self.bytes.get(PROCESSOR_LEN..len).unwrap_or_default();
        Ok(list.chunks_exact(4).filter_map(|c| u32_at(c, 0)))
    }
}

impl<'a> Pptt<'a> {
    /// The table `bytes` as a PPTT: `None` when its signature or length is wrong, or the
    /// bytes do not hold its header ([`Problem::PpttHeader`]); cut to the bytes given when its
    /// length is above them ([`Problem::PpttTruncated`]).
    fn new(bytes: &'a [u8], problems: &mut Problems) -> Option<Pptt<'a>> {
        let len = u32_at(bytes, 4).and_then(|l| usize::try_from(l).ok());
        let header = bytes.len() >= HEADER && bytes.starts_with(b"PPTT");
        let Some(len) = len.filter(|&l| l >= HEADER && header) else {
            problems.insert(Problem::PpttHeader);
            return None;
        };
        let bytes = match bytes.get(..len) {
            Some(b) => b,
            None => {
                problems.insert(Problem::PpttTruncated);
                bytes
            }
        };
        Some(Pptt {
            bytes,
            revision: byte(bytes, 8).unwrap_or(0),
        })
    }

    /// The structures, with their offsets, in order, at most [`MAX_STRUCTURES`]:
    /// [`Problem::PpttStructure`] for one whose length is below 2 or runs past the table,
    /// [`Problem::PpttTooMany`] beyond the most; either ends the walk.
    fn structures(self) -> impl Iterator<Item = Result<(usize, &'a [u8]), Problem>> {
        let bytes = self.bytes;
        let mut at = Some(HEADER);
        let mut count = 0usize;
        core::iter::from_fn(move || {
            let start = at.filter(|&a| a != bytes.len())?;
            if count == MAX_STRUCTURES {
                at = None;
                return Some(Err(Problem::PpttTooMany));
            }
            count = count.saturating_add(1);
            let structure = bytes.get(start..).and_then(|rest| {
                let len = usize::from(byte(rest, 1)?);
                rest.get(..len).filter(|_| len >= 2)
            });
            let Some(structure) = structure else {
                at = None;
                return Some(Err(Problem::PpttStructure));
            };
            at = start.checked_add(structure.len());
            Some(Ok((start, structure)))
        })
    }

    /// The structure at `offset`, if it starts inside the table with a length that fits.
    fn structure(self, offset: u32) -> Option<&'a [u8]> {
        let at = usize::try_from(offset).ok().filter(|&a| a >= HEADER)?;
        let rest = self.bytes.get(at..)?;
        let len = usize::from(byte(rest, 1)?);
        rest.get(..len)
    }

    /// The processor node at `offset`: type 0, at least [`PROCESSOR_LEN`] bytes, inside.
    fn node(self, offset: u32) -> Option<ProcNode<'a>> {
        let bytes = self
            .structure(offset)
            .filter(|s| byte(s, 0) == Some(PROCESSOR) && s.len() >= PROCESSOR_LEN)?;
        Some(ProcNode {
            at: usize::try_from(offset).ok()?,
            bytes,
        })
    }

    /// `node`'s parent: `None` when it has none, or when its offset is not a processor node
    /// or is its own ([`Problem::PpttParent`]).
    fn parent(self, node: ProcNode<'a>, problems: &mut Problems) -> Option<ProcNode<'a>> {
        let offset = node.parent();
        if offset == 0 {
            return None;
        }
        let parent = self.node(offset).filter(|p| p.at != node.at);
        if parent.is_none() {
            problems.insert(Problem::PpttParent);
        }
        parent
    }

    /// Whether `node` is a leaf: by its flag from revision 2, else when no processor node
    /// names it as parent.
    fn is_leaf(self, node: ProcNode<'a>) -> bool {
        if self.revision >= 2 {
            return node.flags() & IS_LEAF != 0;
        }
        let offset = u32::try_from(node.at).unwrap_or(u32::MAX);
        !self.structures().flatten().any(|(_, s)| {
            byte(s, 0) == Some(PROCESSOR)
                && s.len() >= PROCESSOR_LEN
                && u32_at(s, NODE_PARENT) == Some(offset)
        })
    }

    /// The offset of the group of the CPU whose leaf is `leaf`: its core's parent, or the
    /// core itself when it has no parent.
    fn group_of(self, leaf: ProcNode<'a>, problems: &mut Problems) -> usize {
        let core = if leaf.flags() & IS_THREAD != 0 {
            self.parent(leaf, problems).unwrap_or(leaf)
        } else {
            leaf
        };
        self.parent(core, problems).unwrap_or(core).at
    }

    /// The data and unified caches of the CPU whose leaf is `leaf`, by level; see the module
    /// documentation. Not inlined: inside [`Topology::from_acpi`], whose frame holds its
    /// 256-entry tables, the same code takes more instructions.
    #[inline(never)]
    fn caches(self, leaf: ProcNode<'a>, problems: &mut Problems) -> Option<Caches> {
        let mut found = [None::<CacheLevel>; MAX_LEVELS];
        // Offsets of the caches met, so that one listed twice counts once.
        let mut seen = [0u32; MAX_HOPS];
        let mut seen_count = 0usize;
        let mut base = 0usize;
        let mut node = Some(leaf);
        for _ in 0..MAX_HOPS {
            let Some(n) = node else {
                break;
            };
            let mut deepest = base;
            let resources = match n.resources() {
                Ok(r) => Some(r),
                Err(why) => {
                    problems.insert(why);
                    None
                }
            };
            for resource in resources.into_iter().flatten() {
                let mut offset = resource;
                let mut level = base;
                let chain_start = seen_count;
                for hop in 0..=MAX_HOPS {
                    let known = seen.get(..seen_count).unwrap_or_default();
                    if offset == 0 {
                        break;
                    }
                    // A cache met before was counted with what follows it; met again on this
                    // chain, the chain loops.
                    if let Some(i) = known.iter().position(|&s| s == offset) {
                        if i >= chain_start {
                            problems.insert(Problem::PpttCache);
                        }
                        break;
                    }
                    if hop == MAX_HOPS {
                        problems.insert(Problem::PpttCache);
                        break;
                    }
                    let Some(cache) = self.structure(offset) else {
                        problems.insert(Problem::PpttCache);
                        break;
                    };
                    match byte(cache, 0) {
                        Some(CACHE) if cache.len() >= CACHE_LEN => {}
                        // An ID structure (type 2) names no cache: skipped, as Linux does.
                        Some(2) if hop == 0 => break,
                        _ => {
                            problems.insert(Problem::PpttCache);
                            break;
                        }
                    }
                    level = level.saturating_add(1);
                    deepest = deepest.max(level);
                    if let Some(slot) = seen.get_mut(seen_count) {
                        *slot = offset;
                        seen_count = seen_count.saturating_add(1);
                    }
                    let slot = level.checked_sub(1).and_then(|l| found.get_mut(l));
                    if let (Some(slot @ None), Some(l)) = (slot, cache_level(cache, level)) {
                        *slot = Some(l);
                    }
                    offset = u32_at(cache, CACHE_NEXT).unwrap_or(0);
                }
            }
            base = deepest;
            node = self.parent(n, problems);
        }
        if node.is_some() {
            // Still parents to follow after MAX_HOPS: they loop.
            problems.insert(Problem::PpttParent);
        }
        let levels = found.iter().flatten().copied();
        let mut caches = Caches::NONE;
        levels.for_each(|l| caches.push(l));
        (!caches.levels().is_empty()).then_some(caches)
    }
}

/// A data or unified cache type structure at `level`; `None` for an instruction cache.
/// Fields not flagged valid are 0, the number of sets derived from the size when that, the
/// associativity and the line size are valid.
pub(super) fn cache_level(cache: &[u8], level: usize) -> Option<CacheLevel> {
    let flags = u32_at(cache, CACHE_FLAGS).unwrap_or(0);
    let kind = match (byte(cache, CACHE_ATTRIBUTES).unwrap_or(0) >> 2) & 0b11 {
        0 => CacheType::Data,
        1 => return None,
        _ => CacheType::Unified,
    };
    let valid = |bit: u32, value: Option<u32>| value.filter(|_| flags & bit != 0).unwrap_or(0);
    let line = valid(LINE_VALID, u16_at(cache, CACHE_LINE).map(u32::from));
    let ways = valid(WAYS_VALID, byte(cache, CACHE_WAYS).map(u32::from));
    let size = valid(SIZE_VALID, u32_at(cache, CACHE_SIZE));
    let sets = match valid(SETS_VALID, u32_at(cache, CACHE_SETS)) {
        0 => ways
            .checked_mul(line)
            .and_then(|way_bytes| size.checked_div(way_bytes))
            .unwrap_or(0),
        sets => sets,
    };
    Some(CacheLevel {
        level: u8::try_from(level).ok()?,
        kind,
        line,
        ways,
        sets,
    })
}

impl Topology<'static> {
    /// The topology ACPI describes: the processors of the MADT `madt` (the whole table,
    /// [`crate::acpi::processors`]), grouped by the PPTT `pptt` (the whole table, when there
    /// is one) as the module documentation says, each group's CPUs split by the cache
    /// geometry the PPTT gives them; CPUs without a leaf node, or all of them without a
    /// usable PPTT, grouped by MPIDR affinity ([`super::affinity_group`]; the MADT's MPIDR
    /// field carries no MT bit, so [`numbered_as_mt`] decides for all of them).
    pub fn from_acpi(pptt: Option<&[u8]>, madt: &[u8]) -> Topology<'static> {
        let mut t = Topology::none();
        let mut uids = [0u32; MAX_CPUS];
        let mut mpidrs = [0u64; MAX_CPUS];
        let mut count = 0usize;
        for p in processors(madt) {
            if mpidrs.get(..count).unwrap_or_default().contains(&p.mpidr) {
                t.problems.insert(Problem::RepeatedCpu);
                continue;
            }
            let (Some(uid), Some(mpidr)) = (uids.get_mut(count), mpidrs.get_mut(count)) else {
                t.problems.insert(Problem::TooManyCpus);
                t.cpus_beyond_cap = t.cpus_beyond_cap.saturating_add(1);
                continue;
            };
            (*uid, *mpidr) = (p.uid, p.mpidr);
            count = count.saturating_add(1);
        }
        if count == 0 {
            t.problems.insert(Problem::NoCpus);
            return t;
        }
        let uids = uids.get(..count).unwrap_or_default();
        let mut leaves = [None::<ProcNode<'_>>; MAX_CPUS];
        let table = pptt.and_then(|b| Pptt::new(b, &mut t.problems));
        if let Some(table) = table {
            find_leaves(table, uids, &mut leaves, &mut t.problems);
        }
        let mut groups = [None::<u16>; MAX_CPUS];
        // The offset of each group's node, by group.
        let mut group_nodes = [0usize; MAX_CPUS];
        let mut group_count = 0u16;
        for (leaf, group) in leaves.iter().zip(groups.iter_mut()).take(count) {
            let (Some(table), Some(leaf)) = (table, leaf) else {
                continue;
            };
            let at = table.group_of(*leaf, &mut t.problems);
            let made = group_nodes
                .get(..usize::from(group_count))
                .unwrap_or_default();
            *group = match made.iter().position(|&g| g == at) {
                Some(g) => u16::try_from(g).ok(),
                None => {
                    let g = group_count;
                    if let Some(slot) = group_nodes.get_mut(usize::from(g)) {
                        *slot = at;
                        group_count = group_count.saturating_add(1);
                    }
                    Some(g)
                }
            };
        }
        let mpidrs = mpidrs.get(..count).unwrap_or_default();
        let placed = groups.iter().take(count).filter(|g| g.is_some()).count();
        if table.is_some() && placed < count {
            t.problems.insert(Problem::PpttMissingCpu);
        }
        t.source = if placed > 0 {
            Source::Pptt
        } else {
            Source::Affinity
        };
        let mt = numbered_as_mt(mpidrs);
        Topology::group_by_affinity(mpidrs, &mut groups, &|_| mt, group_count);
        for ((&mpidr, &group), &leaf) in mpidrs.iter().zip(&groups).zip(&leaves) {
            let Some(group) = group else {
                continue;
            };
            let caches = table
                .zip(leaf)
                .and_then(|(table, leaf)| table.caches(leaf, &mut t.problems));
            let key = Key {
                group,
                compatible: None,
                capacity: None,
                caches,
                part: None,
            };
            t.place(mpidr, key, None);
        }
        t
    }
}

/// Gives each CPU, whose ACPI Processor UID is `uids[i]`, its leaf node in `leaves[i]`: the
/// first leaf with that ACPI Processor ID ([`Problem::PpttRepeated`] for a later one).
fn find_leaves<'a>(
    table: Pptt<'a>,
    uids: &[u32],
    leaves: &mut [Option<ProcNode<'a>>],
    problems: &mut Problems,
) {
    for structure in table.structures() {
        let (at, bytes) = match structure {
            Ok(s) => s,
            Err(why) => {
                problems.insert(why);
                break;
            }
        };
        if byte(bytes, 0) != Some(PROCESSOR) {
            continue;
        }
        if bytes.len() < PROCESSOR_LEN {
            problems.insert(Problem::PpttStructure);
            continue;
        }
        let node = ProcNode { at, bytes };
        let Some(i) = uids.iter().position(|&u| u == node.id()) else {
            continue;
        };
        let Some(slot) = leaves.get_mut(i) else {
            continue;
        };
        if !table.is_leaf(node) {
            continue;
        }
        if slot.is_some() {
            problems.insert(Problem::PpttRepeated);
        } else {
            *slot = Some(node);
        }
    }
}
