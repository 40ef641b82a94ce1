//! The record schema against what the firmware really writes: a few QEMU runs that together
//! emit every kind; every record must conform to `mairbench_core::schema` (and so to
//! `docs/records.md`, generated from it), every kind and every field of the table must show
//! up, and the host's reader must know everything it reads. A run the boot matrix has is
//! its row's (matrix.rs).

use crate::common;

use crate::matrix;
use mairbench_core::schema::{self, KINDS};
use mairbench_host::read::log;
use std::collections::BTreeSet;

/// Runner settings (environment) and bootargs of one run.
type Settings = (
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
);

/// Runs that, between them, write every kind.
const RUNS: [Settings; 4] = [
    // Two CPUs (hello, scaling: it runs the selected read-ldp) and a missing one (cpu); the
    // Device faults (device-fault);
    // each result shape: MB/s, ns per load, ns per line, skipped for every size (fill-zva on
    // Device memory) and at one size (a copy larger than half the 8 MiB buffer).
    (
        &[("MAIRBENCH_SMP", "2")],
        &[
            "mairbench.quick",
            "mairbench.selftest=missing-cpu",
            "mairbench.kernels=read-ldp,copy-to,latency,fill-zva,maint-civac",
            "mairbench.sizes=4K-8M",
            "mairbench.buffer=8M",
            "mairbench.types=normal-wb,device-gre",
            "mairbench.device-faults",
        ],
    ),
    (&[], &["mairbench.selftest=fault"]),
    (&[], &["mairbench.selftest=panic"]),
    // A failed check (the end record's failed_checks).
    (
        &[],
        &[
            "mairbench.quick",
            "mairbench.selftest=bad-attr",
            "mairbench.kernels=latency",
            "mairbench.sizes=4K",
        ],
    ),
];

/// Fields no QEMU run can fill: data corrupted by a point, a coherence mismatch, a Device
/// fault (QEMU 7.2 models none of them), and more than 8 distinct failed-check or warning
/// names in one run (the host's reader of those is unit-tested). Every other field must be
/// seen.
const UNSEEN_IN_QEMU: [(&str, &str); 17] = [
    ("result", "integrity_fail_offset"),
    // Only for a point worse than both neighbouring sizes: host/tests/boot/bench.rs makes
    // one with a selftest.
    ("result", "retake_of"),
    // Only a counter that goes backwards: host/tests/boot/bench.rs makes one with a selftest.
    ("result", "dropped_samples"),
    ("result", "dropped_why"),
    // These runs enter at EL1: the boot matrix's kernel rows (host/tests/boot/entry.rs) check
    // them at EL2 and EL3.
    ("start", "el2_traps_zeroed"),
    ("start", "smpen_set"),
    // Only in a guest: host/tests/boot/verdicts.rs boots a device tree with Xen's node.
    ("start", "hypervisor"),
    // Only on silicon whose CNTFRQ_EL0 is not the tree's (never emulated): core's tests.
    ("start", "counter_hz"),
    // Quoting a core's TRM under an emulator would mislead: core's verdict tests write it.
    ("verdict", "core_note"),
    ("coherence", "first_offset"),
    ("device-fault", "esr"),
    ("end", "failed_checks_omitted"),
    ("end", "warned_omitted"),
    // Only on silicon: under emulation no system cache is looked for (core's system_cache
    // tests write them).
    ("system_cache", "size"),
    ("system_cache", "outside"),
    ("system_cache", "step"),
    ("system_cache", "rising"),
];

/// Fields only mairbench-linux writes: host/tests/linux/twin.rs checks them in its records
/// (`sync_ns`, of a dma-buf source: host/tests/linux/linux.rs).
const TWIN_ONLY: [(&str, &str); 4] = [
    ("result", "source"),
    ("result", "sync_ns"),
    ("start", "kernel"),
    ("start", "machine"),
];

/// Fields only a run with the framebuffer console writes: host/tests/boot/framebuffer.rs checks
/// them in the `start` record of its device-tree run.
const FRAMEBUFFER_ONLY: [(&str, &str); 6] = [
    ("start", "fb"),
    ("start", "fb_base"),
    ("start", "fb_width"),
    ("start", "fb_height"),
    ("start", "fb_stride"),
    ("start", "fb_format"),
];

/// Kinds only mairbench-linux writes: host/tests/linux/linux.rs checks them in its records.
const TWIN_ONLY_KINDS: [&str; 1] = ["source"];

#[test]
fn the_firmware_writes_what_the_schema_says() {
    let mut kinds = BTreeSet::new();
    let mut fields = BTreeSet::new();
    // Reserved memory (reserved records, with and without pa): virt's own DTB plus reservations.
    let dtb = common::dtb::virt_reserved("schema.dtb");
    let dtb: &'static str = Box::leak(dtb.to_str().unwrap().into());
    let reserved: Settings = (
        Box::leak(Box::new([("MAIRBENCH_DTB", dtb)])),
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.sizes=4K-4K",
        ],
    );
    // Two clusters (the other cluster's sweep: the records that carry cluster).
    let clusters = common::dtb::virt_two_clusters("schema-clusters.dtb");
    let clusters: &'static str = Box::leak(clusters.to_str().unwrap().into());
    let two_clusters: Settings = (
        Box::leak(Box::new([
            ("MAIRBENCH_SMP", "4"),
            ("MAIRBENCH_DTB", clusters),
        ])),
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.types=normal-wb,normal-nc",
            "mairbench.sizes=4K-4K",
        ],
    );
    // And the 32-bit image's: on virt, and on the SABRE Lite's Cortex-A9, which writes what
    // a core without the generic timer has (the start record's clock).
    let shared: Vec<(String, matrix::Shared)> = RUNS
        .into_iter()
        .chain([reserved, two_clusters])
        .map(|(env, bootargs)| (format!("{bootargs:?}"), matrix::shared(env, bootargs)))
        .collect();
    let armv7 =
        ["armv7_a7_svc", "armv7_board_sabrelite"].map(|row| (row.to_owned(), matrix::run(row)));
    let runs = shared
        .iter()
        .map(|(bootargs, run)| (bootargs.clone(), &**run))
        .chain(armv7);
    for (bootargs, run) in runs {
        run.assert_framed();
        for (i, r) in run.records.iter().enumerate() {
            let map = r.as_object().expect("a record is an object");
            let wrong = log::mismatches(map);
            assert!(
                wrong.is_empty(),
                "{bootargs}, record {i}: {wrong:?} in\n{r}"
            );
            let kind = r["kind"].as_str().unwrap().to_owned();
            fields.extend(map.keys().map(|k| (kind.clone(), k.clone())));
            kinds.insert(kind);
        }
        // The host's reader knows all of it: no warnings, no unreadable lines.
        let parsed = log::parse(run.console.as_bytes());
        assert!(
            parsed.problems.is_empty(),
            "{bootargs}: {:?}",
            parsed.problems
        );
    }
    let table: BTreeSet<_> = KINDS
        .iter()
        .filter(|k| !TWIN_ONLY_KINDS.contains(&k.name))
        .map(|k| k.name.to_owned())
        .collect();
    assert_eq!(kinds, table, "kinds seen vs the schema's");
    for k in KINDS.iter().filter(|k| !TWIN_ONLY_KINDS.contains(&k.name)) {
        for f in k.fields {
            let pair = (k.name, f.name);
            if !UNSEEN_IN_QEMU.contains(&pair)
                && !TWIN_ONLY.contains(&pair)
                && !FRAMEBUFFER_ONLY.contains(&pair)
            {
                assert!(
                    fields.contains(&(k.name.to_owned(), f.name.to_owned())),
                    "{}.{} is in the schema but no run wrote it",
                    k.name,
                    f.name
                );
            }
        }
    }
    // The writer takes only the kind's name from the table: its docs stay out of the image.
    let image = std::fs::read(common::firmware().with_extension("bin")).expect("raw image");
    let doc = schema::RESULT.field("cv_pct").unwrap().doc;
    assert!(
        !image.windows(doc.len()).any(|w| w == doc.as_bytes()),
        "schema documentation in the firmware image"
    );
}
