//! The clusters of the machine: which CPUs are alike (core type, caches) and which of them the
//! sweep should run on, so that a big.LITTLE board is measured on each kind of core rather
//! than on the boot CPU alone.
//!
//! One shape, [`Topology`], from three sources:
//! - a device tree ([`Topology::from_dtb`], in `dt.rs`): `/cpus/cpu-map` (Linux's
//!   `Documentation/devicetree/bindings/cpu/cpu-topology.txt`: `socketN`, `clusterN` nested in
//!   clusters, `coreN`, `threadN`, each core or thread naming its CPU node by `cpu =
//!   <&phandle>`), each CPU node's first `compatible` string (`arm,cortex-a72`) and
//!   `capacity-dmips-mhz` (`Documentation/devicetree/bindings/cpu/cpu-capacity.txt`); without
//!   a cpu-map, the CPUs' MPIDR affinity ([`affinity_group`]);
//! - ACPI ([`Topology::from_acpi`], in `pptt.rs`): the PPTT's processor hierarchy nodes and
//!   cache type structures, the MADT's GICC entries giving each ACPI Processor UID its MPIDR;
//!   without a PPTT, MPIDR affinity again;
//! - what each CPU reports about itself at run time ([`Topology::merge`]): its MIDR_EL1 and the
//!   cache geometry CLIDR_EL1 and CCSIDR_EL1 describe ([`Report`]).
//!
//! # Groups and clusters
//!
//! A *group* is what the tables call a cluster: a leaf `clusterN` of the cpu-map (or the
//! `socketN` or cpu-map itself that holds cores directly), the parent of a PPTT core, or the
//! CPUs that share an MPIDR above the core's affinity level. A [`Cluster`] is the CPUs of one
//! group that are alike:
//! - from a device tree, the same `compatible` and `capacity-dmips-mhz` (a tree that puts
//!   both core types of a DynamIQ complex in one cluster gives two clusters);
//! - from a PPTT, the same cache geometry (the PPTT does not name core types);
//! - once merged with what the CPUs report, also the same MIDR implementer and part number
//!   (variant and revision aside) and the same reported cache geometry. A CPU that did not
//!   report (it did not start) is never put with CPUs that did: it keeps a cluster of its own
//!   kind, with [`Cluster::reported`] 0.
//!
//! Each cluster's [`Cluster::representative`] is its CPU of lowest MPIDR affinity, among those
//! that reported once merged: the CPU the firmware is to run the sweep on. Its
//! [`Cluster::capacity`] is the device tree's `capacity-dmips-mhz`, as written (Linux scales
//! them so that the largest is 1024; the RK3399's are 485 and 1024 already).
//!
//! # Caps and bad input
//!
//! At most [`MAX_CPUS`] CPUs and [`MAX_CLUSTERS`] clusters are kept. Beyond, CPUs are counted
//! ([`Topology::cpus_beyond_cap`]) and clusters are counted with their CPUs
//! ([`Topology::clusters_beyond_cap`], [`Topology::cpus_outside_clusters`]), each named by a
//! [`Problem`]. Whatever the bytes, nothing panics: what is malformed is a [`Problem`] saying
//! what was done instead, and the CPUs it concerns are grouped by affinity rather than lost.

#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

mod dt;
mod pptt;

use crate::cache::{CacheLevel, MAX_LEVELS};
pub use crate::platform::MAX_CPUS;
pub use dt::MAX_DEPTH;
pub use pptt::{MAX_HOPS, MAX_STRUCTURES};

/// Most clusters a [`Topology`] keeps ([`Problem::TooManyClusters`] beyond).
pub const MAX_CLUSTERS: usize = 16;

/// The affinity fields of an MPIDR: Aff3 (bits 39:32) and Aff2..Aff0 (bits 23:0).
pub const AFFINITY: u64 = 0xff_00ff_ffff;

/// MPIDR_EL1.MT, bit 24: the lowest affinity level, Aff0, numbers threads of a core, so Aff1
/// numbers the cores and Aff2 the clusters (Arm ARM DDI 0487, "MPIDR_EL1, Multiprocessor
/// Affinity Register"; set by DynamIQ cores, the Cortex-A55 and A76 among them).
pub const MPIDR_MT: u64 = 1 << 24;

/// A CPU's cache geometry: its data and unified cache levels, innermost first, as
/// [`crate::cache::levels`] decodes them from CLIDR_EL1 and CCSIDR_EL1 (or as a PPTT's cache
/// type structures give them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caches {
    levels: [CacheLevel; MAX_LEVELS],
    count: usize,
}

impl Caches {
    /// No cache level.
    pub const NONE: Caches = Caches {
        levels: [CacheLevel::NONE; MAX_LEVELS],
        count: 0,
    };

    /// The levels of `levels` that are not level-0 fillers, the first [`MAX_LEVELS`] of them.
    pub fn new(levels: &[CacheLevel]) -> Caches {
        let mut caches = Caches::NONE;
        for level in levels.iter().filter(|l| l.level != 0) {
            caches.push(*level);
        }
        caches
    }

    /// Appends `level`; nothing when [`MAX_LEVELS`] are held.
    fn push(&mut self, level: CacheLevel) {
        if let Some(slot) = self.levels.get_mut(self.count) {
            *slot = level;
            self.count = self.count.saturating_add(1);
        }
    }

    /// The levels, innermost first.
    pub fn levels(&self) -> &[CacheLevel] {
        self.levels.get(..self.count).unwrap_or_default()
    }

    /// The levels as [`crate::cache::levels`] returns them: the array (level-0 fillers after
    /// the levels) and how many are used.
    pub fn as_levels(&self) -> ([CacheLevel; MAX_LEVELS], usize) {
        (self.levels, self.count)
    }
}

/// What [`crate::cache::levels`] returns: the levels and how many of them are used.
impl From<([CacheLevel; MAX_LEVELS], usize)> for Caches {
    fn from((levels, count): ([CacheLevel; MAX_LEVELS], usize)) -> Caches {
        Caches::new(levels.get(..count).unwrap_or(&levels))
    }
}

/// What one CPU says about itself at run time, read by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// Its MPIDR_EL1, as read (bits beyond the affinity fields, MT among them, included).
    pub mpidr: u64,
    /// Its MIDR_EL1.
    pub midr: u64,
    /// Its data and unified caches.
    pub caches: Caches,
}

/// Where [`Topology::merge_from`] reads the CPUs' reports: report `i` of `count()`, `None`
/// where there is none.
pub trait Reports {
    /// How many reports there are.
    fn count(&self) -> usize;
    /// Report `i`.
    fn report(&self, i: usize) -> Option<Report>;
}

impl Reports for &[Report] {
    fn count(&self) -> usize {
        self.len()
    }

    fn report(&self, i: usize) -> Option<Report> {
        self.get(i).copied()
    }
}

/// MIDR_EL1's Implementer (bits 31:24) and PartNum (bits 15:4): the core type, whatever its
/// variant and revision.
pub fn midr_part(midr: u64) -> (u8, u16) {
    let implementer = u8::try_from((midr >> 24) & 0xff).unwrap_or(0);
    let part = u16::try_from((midr >> 4) & 0xfff).unwrap_or(0);
    (implementer, part)
}

/// The key CPUs are grouped by when no table groups them: their MPIDR affinity without the
/// core's own fields, Aff0, or Aff1 and Aff0 when `threads_at_aff0` (MPIDR_EL1.MT: Aff1
/// numbers the cores, Aff2 the clusters). CPUs with equal keys share a group.
pub fn affinity_group(mpidr: u64, threads_at_aff0: bool) -> u64 {
    let core_fields = if threads_at_aff0 { 0xffff } else { 0xff };
    mpidr & AFFINITY & !core_fields
}

/// Whether the MPIDR affinities of a table's CPUs, which carry no MT bit (a device tree's
/// `reg`, a MADT's MPIDR field), are numbered as MT would make them: every Aff0 is 0 and
/// there are several CPUs. DynamIQ complexes are numbered so (the RK3588's eight cores are
/// `reg = <0x0>` to `<0x700>`, Linux's `rk3588s.dtsi`), and grouping their cores by Aff1
/// would make a cluster of each; a machine whose clusters really hold one core each is
/// grouped too widely instead, which the run-time reports split again where its cores
/// differ ([`Topology::merge`]).
pub fn numbered_as_mt(mpidrs: &[u64]) -> bool {
    mpidrs.len() >= 2 && mpidrs.iter().all(|m| m & 0xff == 0)
}

/// Where a [`Topology`]'s groups came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// No CPU was read.
    None,
    /// The device tree's `/cpus/cpu-map` (some CPUs may be grouped by affinity:
    /// [`Problem::CpuMapIncomplete`]).
    CpuMap,
    /// The ACPI PPTT (some CPUs may be grouped by affinity: [`Problem::PpttMissingCpu`]).
    Pptt,
    /// MPIDR affinity alone ([`affinity_group`]).
    Affinity,
}

impl Source {
    /// As records name it: `none`, `cpu-map`, `pptt` or `affinity`.
    pub const fn name(self) -> &'static str {
        match self {
            Source::None => "none",
            Source::CpuMap => "cpu-map",
            Source::Pptt => "pptt",
            Source::Affinity => "affinity",
        }
    }
}

/// CPUs of one group that are alike; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cluster<'a> {
    /// The group it lies in, numbered from 0 in the order the source lists them (the cpu-map's
    /// leaf clusters, the PPTT's clusters), then the affinity groups. Two clusters of one group
    /// are two kinds of core in what the tables call one cluster.
    pub group: u16,
    /// How many CPUs it holds (at least 1).
    pub cpus: usize,
    /// The MPIDR affinity of the CPU the sweep is to run on: the lowest of its CPUs, of those
    /// that reported once merged.
    pub representative: u64,
    /// Its CPUs' first `compatible` string (`arm,cortex-a53`); `None` without a device tree
    /// or when the nodes have none.
    pub compatible: Option<&'a str>,
    /// Its CPUs' `capacity-dmips-mhz`; `None` when absent or not one cell.
    pub capacity: Option<u32>,
    /// Its CPUs' cache geometry: as they reported it once merged, else the PPTT's; `None`
    /// when neither gave any level.
    pub caches: Option<Caches>,
    /// The representative's MIDR_EL1, once it reported.
    pub midr: Option<u64>,
    /// How many of its CPUs reported ([`Topology::merge`]); all or none.
    pub reported: usize,
}

/// A CPU of a [`Topology`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Its MPIDR affinity ([`AFFINITY`] bits only).
    pub mpidr: u64,
    /// Its group ([`Cluster::group`]).
    pub group: u16,
    /// Its cluster, an index into [`Topology::clusters`]; `None` beyond [`MAX_CLUSTERS`].
    pub cluster: Option<usize>,
    /// Whether it reported at run time ([`Topology::merge`]).
    pub reported: bool,
    /// A digest of what makes its cluster (group and kind), to count the clusters beyond the
    /// cap, which have no [`Cluster`] to compare with.
    digest: u64,
}

const NO_MEMBER: Member = Member {
    mpidr: 0,
    group: 0,
    cluster: None,
    reported: false,
    digest: 0,
};

const NO_CLUSTER: Cluster<'static> = Cluster {
    group: 0,
    cpus: 0,
    representative: 0,
    compatible: None,
    capacity: None,
    caches: None,
    midr: None,
    reported: 0,
};

/// What puts CPUs into one cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key<'a> {
    group: u16,
    compatible: Option<&'a str>,
    capacity: Option<u32>,
    caches: Option<Caches>,
    /// MIDR implementer and part number, once reported.
    part: Option<(u8, u16)>,
}

impl Key<'_> {
    /// Whether `cluster` is of this key.
    fn fits(&self, cluster: &Cluster<'_>) -> bool {
        cluster.group == self.group
            && cluster.compatible == self.compatible
            && cluster.capacity == self.capacity
            && cluster.caches == self.caches
            && cluster.midr.map(midr_part) == self.part
    }

    /// FNV-1a over the key's fields, each value tagged, so that keys that differ give
    /// different digests but by a 64-bit collision.
    fn digest(&self) -> u64 {
        let mut d = Digest::default();
        d.u64(self.group.into());
        match self.compatible {
            Some(c) => {
                d.u64(1);
                d.bytes(c.as_bytes());
                d.u64(u64::try_from(c.len()).unwrap_or(u64::MAX));
            }
            None => d.u64(0),
        }
        d.u64(self.capacity.map_or(u64::MAX, u64::from));
        match self.part {
            Some((implementer, part)) => d.u64(u64::from(implementer) << 16 | u64::from(part)),
            None => d.u64(u64::MAX),
        }
        match &self.caches {
            Some(c) => {
                d.u64(u64::try_from(c.count).unwrap_or(u64::MAX));
                for l in c.levels() {
                    d.u64(l.level.into());
                    d.u64(l.kind as u64);
                    d.u64(l.line.into());
                    d.u64(l.ways.into());
                    d.u64(l.sets.into());
                }
            }
            None => d.u64(u64::MAX),
        }
        d.0
    }
}

/// 64-bit FNV-1a.
struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
}

/// Something the tables or the reports lacked or got wrong, and what was done instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Problem {
    /// The device tree is not valid.
    Dtb,
    /// No CPU is listed: no cluster.
    NoCpus,
    /// Two CPUs (`/cpus` nodes, MADT GICC entries) have the same MPIDR: the first is kept.
    RepeatedCpu,
    /// More CPUs than [`MAX_CPUS`]: the rest are counted, not kept.
    TooManyCpus,
    /// More clusters than [`MAX_CLUSTERS`]: the rest are counted with their CPUs.
    TooManyClusters,
    /// A cpu-map node is out of place (a cluster in a core, a thread outside a core, ...), has
    /// a name the binding does not define, or is a core with neither a `cpu` nor threads or
    /// with both: it is ignored (for a core with both, its `cpu`).
    CpuMapOdd,
    /// The cpu-map nests deeper than [`MAX_DEPTH`] levels: deeper nodes are ignored.
    CpuMapTooDeep,
    /// A cpu-map `cpu` is not one cell, or names no CPU node of `/cpus` (a missing phandle,
    /// or another node's): it is ignored.
    CpuMapPhandle,
    /// The cpu-map names a CPU twice: its first place is kept.
    CpuMapRepeated,
    /// There is a cpu-map, but it names no CPU of `/cpus`: all are grouped by affinity.
    CpuMapEmpty,
    /// The cpu-map leaves out CPUs of `/cpus`: those are grouped by affinity.
    CpuMapIncomplete,
    /// The PPTT's signature is not `PPTT`, its length is below its 36-byte header, or the
    /// bytes given do not hold the header: it is not read, and the CPUs are grouped by
    /// affinity.
    PpttHeader,
    /// The PPTT's length is above the bytes given: the structures within them are read.
    PpttTruncated,
    /// A PPTT structure's length is below 2 or runs past the table (the structures from there
    /// are ignored), or a processor node is shorter than its 20 bytes (skipped) or than its
    /// private resources (they are ignored).
    PpttStructure,
    /// The PPTT holds more than [`MAX_STRUCTURES`] structures: the rest are not searched
    /// for leaves.
    PpttTooMany,
    /// A PPTT parent offset points outside the table or to no processor node, or the parents
    /// loop: the node is taken as having no parent.
    PpttParent,
    /// A PPTT private resource or next level of cache points outside the table or to no cache
    /// structure, or the caches loop: it is ignored.
    PpttCache,
    /// Two PPTT leaf nodes have the same ACPI Processor ID: the first is kept.
    PpttRepeated,
    /// A processor of the MADT has no leaf node in the PPTT: it is grouped by affinity.
    PpttMissingCpu,
    /// A CPU reported at run time that the tables do not list: it is grouped by the affinity
    /// of its MPIDR.
    ReportUnlisted,
    /// Two run-time reports have the same MPIDR: the first is kept.
    ReportRepeated,
}

impl Problem {
    /// Every problem, in bit order.
    pub const ALL: [Problem; 21] = [
        Problem::Dtb,
        Problem::NoCpus,
        Problem::RepeatedCpu,
        Problem::TooManyCpus,
        Problem::TooManyClusters,
        Problem::CpuMapOdd,
        Problem::CpuMapTooDeep,
        Problem::CpuMapPhandle,
        Problem::CpuMapRepeated,
        Problem::CpuMapEmpty,
        Problem::CpuMapIncomplete,
        Problem::PpttHeader,
        Problem::PpttTruncated,
        Problem::PpttStructure,
        Problem::PpttTooMany,
        Problem::PpttParent,
        Problem::PpttCache,
        Problem::PpttRepeated,
        Problem::PpttMissingCpu,
        Problem::ReportUnlisted,
        Problem::ReportRepeated,
    ];

    /// A sentence saying what was wrong and what was done instead.
    pub const fn message(self) -> &'static str {
        match self {
            Problem::Dtb => "the device tree is not valid: no CPU read",
            Problem::NoCpus => "no CPU listed: no cluster",
            Problem::RepeatedCpu => "two CPUs have the same MPIDR: the first is kept",
            Problem::TooManyCpus => "more than 256 CPUs: the rest are counted, not kept",
            Problem::TooManyClusters => {
                "more than 16 clusters: the rest are counted with their CPUs, not kept"
            }
            Problem::CpuMapOdd => {
                "a cpu-map node is out of place, has a name the binding does not define, or is \
                 a core with neither cpu nor threads or with both: it is ignored"
            }
            Problem::CpuMapTooDeep => "the cpu-map nests too deep: deeper nodes are ignored",
            Problem::CpuMapPhandle => {
                "a cpu-map cpu is not one cell or names no CPU node of /cpus: it is ignored"
            }
            Problem::CpuMapRepeated => "the cpu-map names a CPU twice: its first place is kept",
            Problem::CpuMapEmpty => {
                "the cpu-map names no CPU of /cpus: grouping all CPUs by MPIDR affinity"
            }
            Problem::CpuMapIncomplete => {
                "the cpu-map leaves out CPUs of /cpus: grouping those by MPIDR affinity"
            }
            Problem::PpttHeader => {
                "the PPTT's signature or length is wrong: not read, grouping the CPUs by MPIDR \
                 affinity"
            }
            Problem::PpttTruncated => {
                "the PPTT is longer than the bytes given: reading the structures within them"
            }
            Problem::PpttStructure => {
                "a PPTT structure's length is wrong (below 2 or past the table: the rest is \
                 ignored; a processor node too short: skipped, or its resources ignored)"
            }
            Problem::PpttTooMany => {
                "the PPTT holds more than 4096 structures: the rest are not searched for leaves"
            }
            Problem::PpttParent => {
                "a PPTT parent points outside the table or to no processor node, or the parents \
                 loop: taken as no parent"
            }
            Problem::PpttCache => {
                "a PPTT cache reference points outside the table or to no cache structure, or \
                 the caches loop: it is ignored"
            }
            Problem::PpttRepeated => {
                "two PPTT leaf nodes have the same ACPI Processor ID: the first is kept"
            }
            Problem::PpttMissingCpu => {
                "a MADT processor has no leaf node in the PPTT: grouped by MPIDR affinity"
            }
            Problem::ReportUnlisted => {
                "a CPU reported that the tables do not list: grouped by its MPIDR affinity"
            }
            Problem::ReportRepeated => "two CPUs reported the same MPIDR: the first is kept",
        }
    }
}

crate::problems::kind!(Problem);

/// The clusters of a machine; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Topology<'a> {
    /// Where the groups came from.
    pub source: Source,
    /// Whether run-time reports were merged in ([`Topology::merge`]).
    pub merged: bool,
    members: [Member; MAX_CPUS],
    member_count: usize,
    clusters: [Cluster<'a>; MAX_CLUSTERS],
    cluster_count: usize,
    /// CPUs the tables (or reports) list beyond [`MAX_CPUS`]: counted, not kept.
    pub cpus_beyond_cap: usize,
    /// What was missing or odd.
    pub problems: Problems,
}

impl Topology<'static> {
    /// No CPU, no cluster, no problem.
    pub const fn none() -> Topology<'static> {
        Topology {
            source: Source::None,
            merged: false,
            members: [NO_MEMBER; MAX_CPUS],
            member_count: 0,
            clusters: [NO_CLUSTER; MAX_CLUSTERS],
            cluster_count: 0,
            cpus_beyond_cap: 0,
            problems: Problems::NONE,
        }
    }
}

impl<'a> Topology<'a> {
    /// The clusters, at most [`MAX_CLUSTERS`], in the order their first CPU is listed.
    pub fn clusters(&self) -> &[Cluster<'a>] {
        self.clusters.get(..self.cluster_count).unwrap_or_default()
    }

    /// The CPUs, at most [`MAX_CPUS`], in the order the tables list them (`/cpus`, the MADT),
    /// then those only the reports named.
    pub fn cpus(&self) -> &[Member] {
        self.members.get(..self.member_count).unwrap_or_default()
    }

    /// The MPIDR affinities of cluster `cluster`'s CPUs, in [`Topology::cpus`] order.
    pub fn members(&self, cluster: usize) -> impl Iterator<Item = u64> + '_ {
        self.cpus()
            .iter()
            .filter(move |m| m.cluster == Some(cluster))
            .map(|m| m.mpidr)
    }

    /// The cluster of the CPU with MPIDR `mpidr` (its affinity fields are compared).
    pub fn cluster_of(&self, mpidr: u64) -> Option<&Cluster<'a>> {
        let member = self.member(mpidr)?;
        self.clusters.get(member.cluster?)
    }

    /// The CPU with MPIDR `mpidr` (its affinity fields are compared).
    pub fn member(&self, mpidr: u64) -> Option<&Member> {
        self.cpus().iter().find(|m| m.mpidr == mpidr & AFFINITY)
    }

    /// CPUs kept but in no cluster: their clusters are beyond [`MAX_CLUSTERS`].
    pub fn cpus_outside_clusters(&self) -> usize {
        self.cpus().iter().filter(|m| m.cluster.is_none()).count()
    }

    /// Clusters beyond [`MAX_CLUSTERS`]: of how many groups and kinds the CPUs in no cluster
    /// ([`Topology::cpus_outside_clusters`]) are.
    pub fn clusters_beyond_cap(&self) -> usize {
        let outside = |m: &&Member| m.cluster.is_none();
        let cpus = self.cpus();
        cpus.iter()
            .enumerate()
            .filter(|(_, m)| m.cluster.is_none())
            .filter(|&(i, m)| {
                let earlier = cpus.get(..i).unwrap_or_default();
                !earlier
                    .iter()
                    .filter(outside)
                    .any(|e| e.group == m.group && e.digest == m.digest)
            })
            .count()
    }

    /// Adds the CPU `mpidr` (affinity fields) to the cluster of `key`, making that cluster
    /// when there is none and room; `midr` is its MIDR when it reported. A repeated MPIDR is
    /// [`Problem::RepeatedCpu`] and not added.
    fn place(&mut self, mpidr: u64, key: Key<'a>, midr: Option<u64>) {
        let mpidr = mpidr & AFFINITY;
        if self.cpus().iter().any(|m| m.mpidr == mpidr) {
            self.problems.insert(Problem::RepeatedCpu);
            return;
        }
        if self.member_count >= MAX_CPUS {
            self.problems.insert(Problem::TooManyCpus);
            self.cpus_beyond_cap = self.cpus_beyond_cap.saturating_add(1);
            return;
        }
        let found = self.clusters().iter().position(|c| key.fits(c));
        let index = found.or_else(|| {
            let slot = self.clusters.get_mut(self.cluster_count)?;
            *slot = Cluster {
                group: key.group,
                cpus: 0,
                representative: mpidr,
                compatible: key.compatible,
                capacity: key.capacity,
                caches: key.caches,
                midr,
                reported: 0,
            };
            let index = self.cluster_count;
            self.cluster_count = self.cluster_count.saturating_add(1);
            Some(index)
        });
        match index.and_then(|i| self.clusters.get_mut(i)) {
            Some(c) => {
                c.cpus = c.cpus.saturating_add(1);
                if mpidr < c.representative {
                    c.representative = mpidr;
                    c.midr = midr;
                }
                if midr.is_some() {
                    c.reported = c.reported.saturating_add(1);
                }
            }
            None => self.problems.insert(Problem::TooManyClusters),
        }
        self.push(Member {
            mpidr,
            group: key.group,
            cluster: index,
            reported: midr.is_some(),
            digest: key.digest(),
        });
    }

    /// Appends `member` (the caller checked there is room).
    fn push(&mut self, member: Member) {
        if let Some(slot) = self.members.get_mut(self.member_count) {
            *slot = member;
            self.member_count = self.member_count.saturating_add(1);
        }
    }

    /// Groups the CPUs that no table grouped by [`affinity_group`]: `groups[i]`, the group of
    /// `mpidrs[i]`, is set where it is `None`, to `first` and on, one group per distinct key
    /// (`threads_at_aff0` says whether an MPIDR's Aff0 numbers threads).
    fn group_by_affinity(
        mpidrs: &[u64],
        groups: &mut [Option<u16>],
        threads_at_aff0: &dyn Fn(u64) -> bool,
        first: u16,
    ) {
        let mut next = first;
        // The affinity key and group of each group made.
        let mut made = [(0u64, 0u16); MAX_CPUS];
        let mut count = 0usize;
        for (&mpidr, slot) in mpidrs.iter().zip(groups.iter_mut()) {
            if slot.is_some() {
                continue;
            }
            let key = affinity_group(mpidr, threads_at_aff0(mpidr));
            let known = made.get(..count).unwrap_or_default();
            let group = match known.iter().find(|&&(k, _)| k == key) {
                Some(&(_, group)) => group,
                None => {
                    let group = next;
                    next = next.saturating_add(1);
                    if let Some(entry) = made.get_mut(count) {
                        *entry = (key, group);
                        count = count.saturating_add(1);
                    }
                    group
                }
            };
            *slot = Some(group);
        }
    }

    /// This topology with what the CPUs reported at run time merged in: each cluster split by
    /// the MIDR part number and cache geometry its CPUs report (the tables' group, compatible
    /// and capacity kept), a CPU that did not report kept apart from those that did, and each
    /// representative chosen among the CPUs that reported. Reports are matched to CPUs by
    /// MPIDR affinity; a report of a CPU the tables do not list adds it, grouped by its
    /// MPIDR's affinity (MT honoured: [`Problem::ReportUnlisted`]); a second report of one CPU
    /// is ignored ([`Problem::ReportRepeated`]). CPUs in no cluster (beyond [`MAX_CLUSTERS`])
    /// stay so.
    pub fn merge(&self, reports: &[Report]) -> Topology<'a> {
        self.merge_from(&reports)
    }

    /// [`Topology::merge`] with the reports read one at a time from `reports` (a firmware
    /// keeps them where its CPUs wrote them, not in one slice).
    pub fn merge_from(&self, reports: &impl Reports) -> Topology<'a> {
        let mut out = Topology {
            source: self.source,
            merged: true,
            problems: self.problems,
            cpus_beyond_cap: self.cpus_beyond_cap,
            ..Topology::none()
        };
        let first_report = |mpidr: u64| {
            (0..reports.count()).find(|&i| {
                reports
                    .report(i)
                    .is_some_and(|r| r.mpidr & AFFINITY == mpidr & AFFINITY)
            })
        };
        let all = || (0..reports.count()).filter_map(|i| Some((i, reports.report(i)?)));
        for (i, r) in all() {
            if first_report(r.mpidr) != Some(i) {
                out.problems.insert(Problem::ReportRepeated);
            }
        }
        for m in self.cpus() {
            let report = first_report(m.mpidr).and_then(|i| reports.report(i));
            let Some(old) = m.cluster.and_then(|c| self.clusters.get(c)) else {
                // Beyond the cap before, beyond it still.
                let mut d = Digest(m.digest);
                d.u64(report.map_or(u64::MAX, |r| {
                    let (implementer, part) = midr_part(r.midr);
                    u64::from(implementer) << 16 | u64::from(part)
                }));
                out.push(Member {
                    reported: report.is_some(),
                    digest: d.0,
                    ..*m
                });
                continue;
            };
            let key = Key {
                group: m.group,
                compatible: old.compatible,
                capacity: old.capacity,
                caches: report.map_or(old.caches, |r| Some(r.caches)),
                part: report.map(|r| midr_part(r.midr)),
            };
            out.place(m.mpidr, key, report.map(|r| r.midr));
        }
        // Reports of CPUs the tables do not list, grouped by affinity after the tables' groups.
        let mut extra = [0u64; MAX_CPUS];
        let mut extra_report = [0usize; MAX_CPUS];
        let mut count = 0usize;
        for (i, r) in all() {
            if self.member(r.mpidr).is_some() || first_report(r.mpidr) != Some(i) {
                continue;
            }
            out.problems.insert(Problem::ReportUnlisted);
            match (extra.get_mut(count), extra_report.get_mut(count)) {
                (Some(m), Some(at)) => {
                    *m = r.mpidr;
                    *at = i;
                    count = count.saturating_add(1);
                }
                _ => {
                    out.problems.insert(Problem::TooManyCpus);
                    out.cpus_beyond_cap = out.cpus_beyond_cap.saturating_add(1);
                }
            }
        }
        let first_group = self
            .cpus()
            .iter()
            .map(|m| m.group.saturating_add(1))
            .max()
            .unwrap_or(0);
        let mut groups = [None; MAX_CPUS];
        let mpidrs = extra.get(..count).unwrap_or_default();
        Self::group_by_affinity(mpidrs, &mut groups, &|m| m & MPIDR_MT != 0, first_group);
        for (&at, group) in extra_report.iter().zip(groups).take(count) {
            let (Some(r), Some(group)) = (reports.report(at), group) else {
                continue;
            };
            let key = Key {
                group,
                compatible: None,
                capacity: None,
                caches: Some(r.caches),
                part: Some(midr_part(r.midr)),
            };
            out.place(r.mpidr, key, Some(r.midr));
        }
        if out.source == Source::None && out.member_count > 0 {
            out.source = Source::Affinity;
        }
        out
    }
}

#[cfg(test)]
mod tests;
