//! A firmware log and a twin log of one board read into a [`Comparison`]: whether either is
//! emulated (and by TCG), whether they are of one board, and the classification of the twin's
//! sources.

use super::features::{common_points, features, restrict, samples};
use super::label::{classify_with, Classification};
use crate::read::model::{self, distinct, Run, Source, FIRMWARE_BASELINE, TWIN_BASELINE};

/// Whether a run's timings are an emulator's: its start record says `emulated`, or its
/// platform is QEMU's (`linux,dummy-virt`, or a name with `qemu` in it) and nothing says
/// KVM ran it (the start record's `accel`: there the cores and caches are real).
fn is_emulated(run: &Run) -> bool {
    run.emulated
        || (!run.kvm()
            && (run.platform == "linux,dummy-virt"
                || run.platform.to_ascii_lowercase().contains("qemu")))
}

/// Whether an emulated run is known to be TCG's: its start record's `accel` says `tcg`, or,
/// in logs from before that field, the runner named itself (`mairbench.host=qemu-*`:
/// `emulated_by` holds `bootarg`; qemu/run then ran TCG only). The device tree or ACPI
/// tables alone are QEMU's under KVM too.
fn is_tcg(run: &Run) -> bool {
    is_emulated(run)
        && match run.accel.as_deref() {
            Some(accel) => accel == "tcg",
            None => run.emulated_by.iter().any(|b| b == "bootarg"),
        }
}

/// A sentence when the two logs are not from one board: their MIDRs differ or their
/// platforms do, where both are known (the twin writes MIDR `0x0` when sysfs has none, and
/// platform `unknown` without a device tree, e.g. on an ACPI board).
fn board_warning(firmware: &Run, linux: &Run) -> Option<String> {
    let mut why = Vec::new();
    for (what, a, b, unknown) in [
        ("MIDR", &firmware.midr, &linux.midr, "0x0"),
        ("platform", &firmware.platform, &linux.platform, "unknown"),
    ] {
        let known = |v: &str| !v.is_empty() && v != unknown;
        if known(a) && known(b) && a != b {
            why.push(format!("{what} {a} vs {b}"));
        }
    }
    (!why.is_empty()).then(|| {
        format!(
            "the two logs are from different boards ({}): the comparison only means something \
             on one board",
            why.join(", ")
        )
    })
}

/// What TCG's timings can tell of a source, printed under the table.
pub(super) const TCG_NOTE: &str =
    "emulated: TCG (QEMU without KVM) does not model caches, so only Device \
vs Normal shows (TCG's slow path for Device pages); the type within a group is what Linux \
documents (core's source table), not a measurement";

/// What a QEMU machine's timings can tell when nothing says TCG.
pub(super) const QEMU_NOTE: &str =
    "emulated: a QEMU machine: under TCG caches are not modelled (under \
KVM they are real, but the timing is a guest's); the type within a group is what Linux \
documents (core's source table), not a measurement";

/// A firmware log classified against a twin log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The firmware log's name, as the output shows it (set by the caller).
    pub firmware_log: String,
    /// The twin log's name, as the output shows it (set by the caller).
    pub linux_log: String,
    /// The points both logs have (bandwidth kernels; the firmware's on 4K pages).
    pub points: Vec<(String, u64)>,
    /// The classification of every source the twin measured.
    pub classification: Classification,
    /// Sources the twin reported refused (an error record), not classified.
    pub refused: Vec<Source>,
    /// Sources mapped but without a bandwidth result.
    pub unmeasured: Vec<String>,
    /// Whether either log is an emulator's (its start record says so, or its platform is
    /// QEMU's).
    pub emulated: bool,
    /// Whether an emulated log is known to be TCG's (the runner's `mairbench.host=`).
    pub tcg: bool,
    /// A sentence when the two logs are not from one board.
    pub warning: Option<String>,
    /// Other things worth saying (a missing reference row).
    pub notes: Vec<String>,
}

impl Comparison {
    /// The line under the table of an emulated comparison: TCG's, or a QEMU machine's.
    pub fn emulated_note(&self) -> Option<&'static str> {
        self.emulated
            .then_some(if self.tcg { TCG_NOTE } else { QEMU_NOTE })
    }
}

/// Classifies the twin log `linux`'s sources against the firmware log `firmware`'s memory
/// types by the method of the module doc. The twin's kernels are taken under the names the
/// firmware's architecture gives their rows (an armv7 firmware log's `read-ldm` is the
/// twin's `read-ldp` where its records use AArch64's names).
pub fn compare(firmware: &Run, linux: &Run) -> Comparison {
    let linux = &model::named_as(linux, firmware.arch_tables());
    let mut notes = Vec::new();
    let [fw, lx] = [
        (firmware, FIRMWARE_BASELINE, "firmware", true),
        (linux, TWIN_BASELINE, "twin", false),
    ]
    .map(|(run, reference, what, pages_only)| {
        let samples = samples(run, pages_only);
        if !samples.iter().any(|s| s.row == reference) {
            notes.push(format!(
                "the {what} log has no {reference} bandwidth result to divide by: nothing can \
                 be classified"
            ));
        }
        features(&samples, reference)
    });
    let points = common_points(&fw, &lx);
    let (fw, lx) = (restrict(&fw, &points), restrict(&lx, &points));
    let unmeasured = distinct(
        linux
            .sources
            .iter()
            .filter(|s| s.error.is_none())
            .map(|s| s.name.as_str())
            .filter(|name| !lx.iter().any(|(row, _)| row == name)),
    );
    Comparison {
        points: points.into_iter().collect(),
        classification: classify_with(&fw, &lx, TWIN_BASELINE, &linux.sources, linux.arch_tables()),
        refused: linux
            .sources
            .iter()
            .filter(|s| s.error.is_some())
            .cloned()
            .collect(),
        unmeasured: unmeasured.into_iter().map(str::to_owned).collect(),
        emulated: is_emulated(firmware) || is_emulated(linux),
        tcg: is_tcg(firmware) || is_tcg(linux),
        warning: board_warning(firmware, linux),
        notes,
        ..Comparison::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_boards_are_warned_about() {
        let run = |midr: &str, platform: &str| Run {
            midr: midr.into(),
            platform: platform.into(),
            ..Run::default()
        };
        let a = run("0x410fd083", "raspberrypi,4-model-b");
        assert_eq!(board_warning(&a, &a), None);
        assert_eq!(board_warning(&a, &run("0x0", "")), None);
        let w = board_warning(&a, &run("0x410fd034", "raspberrypi,3-model-b")).unwrap();
        assert_eq!(
            w,
            "the two logs are from different boards (MIDR 0x410fd083 vs 0x410fd034, platform \
             raspberrypi,4-model-b vs raspberrypi,3-model-b): the comparison only means \
             something on one board"
        );
        assert!(is_emulated(&run("0x410fd083", "linux,dummy-virt")));
        assert!(!is_emulated(&a));
    }

    /// On an ACPI board the firmware names the OEM IDs while the twin, without a device
    /// tree, writes `unknown`: one board, no warning; as with MIDR 0x0.
    #[test]
    fn an_unknown_platform_is_no_other_board() {
        let run = |midr: &str, platform: &str| Run {
            midr: midr.into(),
            platform: platform.into(),
            ..Run::default()
        };
        let acpi = run("0x410fd0c1", "AMPERE Altra");
        assert_eq!(board_warning(&acpi, &run("0x410fd0c1", "unknown")), None);
        assert_eq!(board_warning(&run("0x0", "unknown"), &acpi), None);
        assert_eq!(
            board_warning(&acpi, &run("0x410fd0c1", "raspberrypi,4-model-b")),
            Some(
                "the two logs are from different boards (platform AMPERE Altra vs \
                 raspberrypi,4-model-b): the comparison only means something on one board"
                    .into()
            )
        );
    }

    /// An armv7 firmware log (A32 kernel names) and a twin log of the same board whose
    /// records name the kernels as AArch64 does: compared by row.
    #[test]
    fn an_armv7_firmware_log_meets_its_twin_by_row() {
        use crate::read::model::{Measurement, Unit};
        let fw = crate::read::armv7_sample::run();
        let point = |source: &str, kernel: &str, best: f64| Measurement {
            memtype: source.into(),
            kernel: kernel.into(),
            granule: "4K".into(),
            size: 16384,
            unit: Unit::MegabytesPerSecond,
            best,
            median: best,
            cv_pct: 1.0,
            reps: 3,
            pmu: None,
            start: None,
            line_state: None,
        };
        let lx = Run {
            twin: true,
            arch: Some("armv7".into()),
            platform: fw.platform.clone(),
            midr: fw.midr.clone(),
            measurements: vec![
                point(TWIN_BASELINE, "read-ldp", 6400.0),
                point("udmabuf", "read-ldp", 6300.0),
                point(TWIN_BASELINE, "write-stp", 6600.0),
                point("udmabuf", "write-stp", 6500.0),
            ],
            ..Run::default()
        };
        let c = compare(&fw, &lx);
        let kernels: Vec<&str> = c.points.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(kernels, ["read-ldm", "write-stm"], "{:?}", c.points);
        // The page protections quoted are 32-bit Arm Linux's, the twin's.
        assert_eq!(c.classification.arch, mairbench_core::arch::Arch::Armv7);
        let udmabuf = &c.classification.labels[0];
        assert_eq!(
            udmabuf.pgprot(),
            Some("vm_page_prot unchanged: the memfd's pages, as anon's")
        );
    }
}
