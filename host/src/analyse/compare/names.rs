//! How a comparison names its runs: short labels for titles (file stems), and one line per
//! run with its platform and CPU.

use crate::read::model::{self, distinct, Run};
use std::fmt::Write as _;
use std::path::Path;

/// A short name for a log in titles: its file stem, or its directory's name where the stem
/// is `console` (`cargo host run --out DIR` writes `DIR/console.log`); at most 24
/// characters (the first 23 and "…").
pub fn short_label(path: &Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let dir = path
        .parent()
        .and_then(Path::file_name)
        .map(|s| s.to_string_lossy().into_owned());
    let name = match (stem, dir) {
        (Some(stem), Some(dir)) if stem == "console" => dir,
        (Some(stem), _) => stem,
        (None, _) => path.display().to_string(),
    };
    shorten(&name, 24)
}

fn shorten(name: &str, most: usize) -> String {
    if name.chars().count() <= most {
        name.to_string()
    } else {
        name.chars().take(most - 1).chain(['\u{2026}']).collect()
    }
}

/// Short labels for the logs A and B: [`short_label`] of each, made distinct (with the
/// directory, then "A "/"B ") where they are equal.
pub fn labels(a: &Path, b: &Path) -> (String, String) {
    let (la, lb) = (short_label(a), short_label(b));
    if la != lb {
        return (la, lb);
    }
    let with_dir = |p: &Path| {
        let dir = p
            .parent()
            .and_then(Path::file_name)
            .map_or(String::new(), |d| format!("{}/", d.to_string_lossy()));
        shorten(&format!("{dir}{la}"), 24)
    };
    let (da, db) = (with_dir(a), with_dir(b));
    if da != db {
        (da, db)
    } else {
        (format!("A {la}"), format!("B {lb}"))
    }
}

/// The CPU of a run: core's name for its MIDR (`Cortex-A72`, `Cortex-A7`), else the MIDR,
/// else `unknown CPU`.
pub fn cpu(run: &Run) -> String {
    let midr = u64::from_str_radix(run.midr.trim_start_matches("0x"), 16).ok();
    let name = midr.and_then(|m| mairbench_core::cores::by_midr(m).map(|c| c.name));
    match name {
        Some(core) => core.to_string(),
        None if !run.midr.is_empty() => format!("MIDR {}", run.midr),
        None => "unknown CPU".to_string(),
    }
}

/// One line naming a run: its platform and CPU, then its MIDR and firmware version where the
/// log has them (`linux,dummy-virt, Cortex-A72 (MIDR 0x410fd083, mairbench 0.1.0)`).
pub fn describe(run: &Run) -> String {
    let platform = if run.platform.is_empty() {
        "unknown platform"
    } else {
        &run.platform
    };
    let mut s = format!("{platform}, {}", cpu(run));
    let extra: Vec<String> = [("MIDR ", &run.midr), ("mairbench ", &run.version)]
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}{v}"))
        .collect();
    if !extra.is_empty() {
        let _ = write!(s, " ({})", extra.join(", "));
    }
    if run.emulated {
        s += ", emulated";
    }
    s
}

/// Where `a` and `b` are logs of two architectures, what the comparison says of it: that
/// they differ, that points are compared by row of core's kernel and memory-type tables under
/// A's names, B's names that differ from A's for the rows B measured, and B's kernels and
/// types A's architecture has no row of (their points are not compared); `None` for one
/// architecture.
pub fn arches(a: &Run, b: &Run) -> Option<String> {
    let (arch_a, arch_b) = (a.arch_tables(), b.arch_tables());
    if arch_a == arch_b {
        return None;
    }
    let mut renamed: Vec<String> = Vec::new();
    let mut alone: Vec<&str> = Vec::new();
    let kernels = distinct(b.measurements.iter().map(|m| m.kernel.as_str()));
    for name in &kernels {
        match model::kernel_row(name).map(|k| arch_a.kernel(k)) {
            Some(Some(k)) if k.name != *name => renamed.push(format!("{name} is {}", k.name)),
            Some(Some(_)) => {}
            _ => alone.push(name),
        }
    }
    for name in distinct(
        b.measurements
            .iter()
            .map(|m| model::series_memtype(&m.memtype)),
    ) {
        match model::memtype_row(name).map(|r| arch_a.memtype(r)) {
            Some(Some(t)) if t.name != name => renamed.push(format!("{name} is {}", t.name)),
            Some(Some(_)) => {}
            _ => alone.push(name),
        }
    }
    // A's kernels B's architecture has no loop for.
    let only_a: Vec<&str> = distinct(a.measurements.iter().map(|m| m.kernel.as_str()))
        .into_iter()
        .filter(|name| model::kernel_row(name).is_some_and(|k| arch_b.kernel(k).is_none()))
        .collect();
    let mut s = format!(
        "architectures differ: A is {}, B {}; points are compared by row of core's kernel and \
         memory-type tables, under A's names",
        arch_a.name(),
        arch_b.name()
    );
    if !renamed.is_empty() {
        let _ = write!(s, " (B's {})", renamed.join(", "));
    }
    if !only_a.is_empty() {
        let _ = write!(
            s,
            "; {} has no {} (A's points of it are not compared)",
            arch_b.name(),
            only_a.join(", ")
        );
    }
    if !alone.is_empty() {
        let _ = write!(
            s,
            "; {} has no {} (B's points of them are not compared)",
            arch_a.name(),
            alone.join(", ")
        );
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_descriptions() {
        use std::path::Path;
        assert_eq!(short_label(Path::new("/tmp/x/a72.log")), "a72");
        assert_eq!(short_label(Path::new("out/rpi4/console.log")), "rpi4");
        assert_eq!(
            short_label(Path::new("a-very-long-name-of-a-log-file.log")),
            "a-very-long-name-of-a-l\u{2026}"
        );
        assert_eq!(
            labels(Path::new("x/run.log"), Path::new("y/run.log")),
            ("x/run".into(), "y/run".into())
        );
        assert_eq!(
            labels(Path::new("run.log"), Path::new("run.log")),
            ("A run".into(), "B run".into())
        );
        let mut r = Run {
            platform: "linux,dummy-virt".into(),
            midr: "0x410fd083".into(),
            emulated: true,
            ..Run::default()
        };
        assert_eq!(
            describe(&r),
            "linux,dummy-virt, Cortex-A72 (MIDR 0x410fd083), emulated"
        );
        r.midr = "0x12345678".into();
        assert_eq!(cpu(&r), "MIDR 0x12345678");
        assert_eq!(cpu(&Run::default()), "unknown CPU");
    }

    #[test]
    fn two_architectures_are_said_to_differ() {
        use crate::read::model::{named_as, Run};
        use mairbench_core::arch::Arch;
        let v7 = crate::read::armv7_sample::run();
        let mut a64 = Run {
            arch: Some("aarch64".into()),
            ..named_as(&v7, Arch::Aarch64)
        };
        assert_eq!(arches(&v7, &v7), None);
        assert_eq!(arches(&a64, &a64), None);
        // A kernel armv7 has no loop for.
        let mut zva = a64.measurements[0].clone();
        zva.kernel = "fill-zva".into();
        a64.measurements.push(zva);
        let said = arches(&a64, &v7).unwrap();
        assert!(
            said.starts_with("architectures differ: A is aarch64, B armv7"),
            "{said}"
        );
        assert!(
            said.contains(
                "(B's read-ldm is read-ldp, write-stm is write-stp, maint-dccimvac is \
                 maint-civac, normal-wb-nowa is normal-wb-noalloc)"
            ),
            "{said}"
        );
        assert!(
            said.ends_with("; armv7 has no fill-zva (A's points of it are not compared)"),
            "{said}"
        );
        // The other way round: B's names are AArch64's, and A's (armv7) lacks no kernel of B
        // but fill-zva.
        let back = arches(&v7, &a64).unwrap();
        assert!(back.contains("(B's read-ldp is read-ldm"), "{back}");
        assert!(
            back.ends_with("; armv7 has no fill-zva (B's points of them are not compared)"),
            "{back}"
        );
    }

    #[test]
    fn an_armv7_core_is_named() {
        let v7 = crate::read::armv7_sample::run();
        assert_eq!(cpu(&v7), "Cortex-A7");
        assert!(describe(&v7).starts_with("linux,dummy-virt, Cortex-A7 (MIDR 0x410fc075"));
        // Arm's part numbers name one core whatever the architecture a log says: the same
        // MIDR in a log that says none is still the Cortex-A7 (core's table of cores has it).
        let old = Run {
            midr: v7.midr.clone(),
            ..Run::default()
        };
        assert_eq!(cpu(&old), "Cortex-A7");
        let unknown = Run {
            midr: "0x410fc0a0".into(),
            ..Run::default()
        };
        assert_eq!(cpu(&unknown), "MIDR 0x410fc0a0");
    }
}
