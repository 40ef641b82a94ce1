//! The classification for the terminal, `classify.csv` and `classify.json`.

use super::features::{Point, MIN_POINTS, TAU, TAU_RATIO};
use super::label::{confidence_word, Agreement, Label, Reference};
use super::logs::Comparison;
use crate::read::model::{distinct, FIRMWARE_BASELINE, TWIN_BASELINE};
use crate::read::text::{csv_field, csv_row, size_label};
use mairbench_core::source;
use serde_json::json;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// A label's confidence as the table prints it: `97 % high`, `emulated (97 %)`, or `-`.
fn confidence_text(l: &Label, emulated: bool) -> String {
    match l.confidence() {
        None => "-".into(),
        Some(c) if emulated => format!("emulated ({:.0} %)", c * 100.0),
        Some(c) => format!("{:.0} % {}", c * 100.0, confidence_word(c)),
    }
}

/// The kernels and the sizes of `points`, e.g. `<kernel>, <kernel> at 4 KiB to 64 KiB`.
fn points_text(points: &[Point]) -> String {
    let kernels = distinct(points.iter().map(|(k, _)| k.as_str()));
    let sizes: BTreeSet<u64> = points.iter().map(|(_, s)| *s).collect();
    match (sizes.first(), sizes.last()) {
        (Some(a), Some(b)) if a == b => format!("{} at {}", kernels.join(", "), size_label(*a)),
        (Some(a), Some(b)) => format!(
            "{} at {} to {}",
            kernels.join(", "),
            size_label(*a),
            size_label(*b)
        ),
        _ => "none".into(),
    }
}

/// Lays out `rows` (the first is the heading) in columns two spaces apart, indented by two.
fn columns(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::from(" ");
        for (cell, w) in r.iter().zip(&widths) {
            let pad = w.saturating_sub(cell.chars().count());
            let _ = write!(line, " {cell}{}", " ".repeat(pad));
            line.push(' ');
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// The words said of the reference under the table, e.g. `<reference>: the reference, not
/// classified; ...`.
fn reference_text(r: &Reference) -> String {
    let assumed = source::by_name(&r.source)
        .and_then(|s| s.expected)
        .map(|e| format!(" (so it is taken to be {e}, as Linux documents)"))
        .unwrap_or_default();
    format!(
        "{}: the reference, not classified; every source is measured relative to it, as every \
         memory type is to {FIRMWARE_BASELINE}{assumed}",
        r.source
    )
}

/// The classification for the terminal: the logs and their points, the board's groups, one
/// row per source (the reference first, marked so; then label, distance, points, confidence,
/// expected type, agreement, tied with), the page protections, the refused sources, the
/// emulated line and the warning.
pub fn table(c: &Comparison) -> String {
    let mut out = String::new();
    header(&mut out, c);
    out.push('\n');
    out.push_str(&columns(&rows(c)));
    let _ = writeln!(
        out,
        "  (RMS: of the ln-ratio differences over the points, to the nearest type, named when \
         it is not the label;\n   confidence = 1 - RMS to nearest / RMS to the nearest type \
         outside its group; group: as numbered above)"
    );
    if let Some(r) = &c.classification.reference {
        let _ = writeln!(out, "  {}", reference_text(r));
    }
    expected(&mut out, c);
    unclassified(&mut out, c);
    if let Some(note) = c.emulated_note() {
        let _ = writeln!(out, "\n{note}.");
    }
    out
}

/// The table's head: the logs and their points, the warning and notes, the board's groups.
fn header(out: &mut String, c: &Comparison) {
    let _ = writeln!(
        out,
        "which memory type each Linux source behaves like (method: host/src/analyse/classify/mod.rs)\n\
         firmware: {} (reference {FIRMWARE_BASELINE}, 4K pages); linux: {} (reference \
         {TWIN_BASELINE})\n\
         features: ln(best MB/s / reference's) at {} common points: {}",
        c.firmware_log,
        c.linux_log,
        c.points.len(),
        points_text(&c.points)
    );
    if let Some(w) = &c.warning {
        let _ = writeln!(out, "warning: {w}");
    }
    for n in &c.notes {
        let _ = writeln!(out, "note: {n}");
    }
    let groups = &c.classification.groups;
    let _ = writeln!(
        out,
        "\nboard groups (memory types closer than ln({TAU_RATIO}) = {TAU:.3} RMS, joined: \
         indistinguishable on this board):"
    );
    if groups.is_empty() {
        let _ = writeln!(out, "  none (the firmware log has no common point)");
    }
    for (i, g) in groups.iter().enumerate() {
        let _ = writeln!(out, "  {}: {}", i + 1, g.join(", "));
    }
}

/// The table's rows: its heading, the reference, then one row per source.
fn rows(c: &Comparison) -> Vec<Vec<String>> {
    let groups = &c.classification.groups;
    let group_of = |t: &str| {
        groups
            .iter()
            .position(|g| g.iter().any(|x| x == t))
            .map_or("-".into(), |i| (i + 1).to_string())
    };
    let dash = || "-".to_string();
    let mut rows = vec![[
        "source",
        "label",
        "group",
        "RMS to nearest",
        "points",
        "confidence",
        "expected",
        "agrees",
        "tied with",
    ]
    .map(String::from)
    .to_vec()];
    if let Some(r) = &c.classification.reference {
        let expected = source::by_name(&r.source).and_then(|s| s.expected);
        rows.push(vec![
            r.source.clone(),
            "reference".into(),
            dash(),
            dash(),
            r.points.to_string(),
            dash(),
            expected.unwrap_or("\u{2014}").into(),
            dash(),
            dash(),
        ]);
    }
    for l in &c.classification.labels {
        let (label, rms) = match (l.label(), &l.nearest) {
            (Some(label), Some((near, d))) => {
                let rms = if near == label {
                    format!("{d:.3}")
                } else {
                    format!("{d:.3} ({near})")
                };
                (label.to_owned(), rms)
            }
            _ => ("too few common points".into(), dash()),
        };
        let tied = l.tied_with();
        rows.push(vec![
            l.source.clone(),
            label,
            l.label().map_or_else(dash, group_of),
            rms,
            l.points.to_string(),
            confidence_text(l, c.emulated),
            l.expected_text(),
            if l.label().is_some() {
                l.agreement.text()
            } else {
                dash()
            },
            if tied.is_empty() {
                dash()
            } else {
                tied.join(", ")
            },
        ]);
    }
    rows
}

/// The page protection and expected type of each source, as arm64 Linux maps it.
fn expected(out: &mut String, c: &Comparison) {
    let with_pgprot: Vec<(&str, String, Option<&str>)> = c
        .classification
        .reference
        .iter()
        .filter_map(|r| {
            let s = source::by_name(&r.source)?;
            Some((
                r.source.as_str(),
                s.pgprot_on(c.classification.arch).to_owned(),
                s.expected,
            ))
        })
        .chain(c.classification.labels.iter().filter_map(|l| {
            let pgprot = match (&l.driver, l.pgprot()) {
                (Some(d), Some(p)) => format!("driver {d}: {p}"),
                (None, Some(p)) => p.to_owned(),
                (Some(d), None) => format!("driver {d}"),
                (None, None) => return None,
            };
            Some((l.source.as_str(), pgprot, l.expected()))
        }))
        .collect();
    if !with_pgprot.is_empty() {
        let _ = writeln!(
            out,
            "\nexpected: what arm64 Linux maps each source as (the twin's source records, \
             else core's source table):"
        );
        let width = with_pgprot.iter().map(|l| l.0.len()).max().unwrap_or(0);
        for (name, pgprot, expected) in with_pgprot {
            let _ = writeln!(
                out,
                "  {name:<width$}  {pgprot} -> {}",
                expected.unwrap_or("no one type")
            );
        }
    }
}

/// The sources refused, or mapped without a bandwidth result.
fn unclassified(out: &mut String, c: &Comparison) {
    if !c.refused.is_empty() || !c.unmeasured.is_empty() {
        let _ = writeln!(out, "\nnot classified:");
        let width = c
            .refused
            .iter()
            .map(|s| s.name.len())
            .chain(c.unmeasured.iter().map(String::len))
            .max()
            .unwrap_or(0);
        for s in &c.refused {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<7}  {}",
                s.name,
                s.error.as_deref().unwrap_or_default(),
                s.detail
            );
        }
        for s in &c.unmeasured {
            let _ = writeln!(out, "  {s:<width$}  mapped, but no bandwidth result");
        }
    }
}

/// A label's status in the files: `classified` or `too few common points`.
fn status(l: &Label) -> &'static str {
    if l.label().is_some() {
        "classified"
    } else {
        "too few common points"
    }
}

/// Whether a label agrees with its expected type: `None` without a label or an expectation.
fn agrees(l: &Label) -> Option<bool> {
    match &l.agreement {
        _ if l.label().is_none() => None,
        Agreement::Yes => Some(true),
        Agreement::No(_) => Some(false),
        Agreement::NoExpectation | Agreement::Unmeasured => None,
    }
}

/// `classify.csv`: one row per source (the reference, classified, too few points, refused or
/// unmeasured); distances are RMS of natural-log ratios, confidence in percent.
pub fn csv(c: &Comparison) -> String {
    let mut out = String::from(
        "source,status,label,group,tied_with,nearest,rms_nearest,rms_outside,points,\
         confidence_pct,confidence_word,emulated,expected,pgprot,agrees,error,detail\n",
    );
    let f = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    if let Some(r) = &c.classification.reference {
        let spec = source::by_name(&r.source);
        let _ = writeln!(
            out,
            "{},reference,,,,,,,{},,,{},{},{},,,",
            csv_field(&r.source),
            r.points,
            c.emulated,
            spec.and_then(|s| s.expected).unwrap_or_default(),
            csv_field(spec.map_or("", |s| s.pgprot_on(c.classification.arch))),
        );
    }
    for l in &c.classification.labels {
        csv_row(
            &mut out,
            &[
                &l.source,
                &status(l),
                &l.label().unwrap_or_default(),
                &l.group.join(" "),
                &l.tied_with().join(" "),
                &l.nearest.as_ref().map_or("", |n| n.0.as_str()),
                &f(l.nearest.as_ref().map(|n| n.1)),
                &f(l.outside),
                &l.points,
                &f(l.confidence().map(|c| c * 100.0)),
                &l.confidence().map_or("", confidence_word),
                &c.emulated,
                &l.expected().unwrap_or_default(),
                &l.pgprot().unwrap_or_default(),
                &agrees(l).map_or("", |a| if a { "yes" } else { "no" }),
                // No error, no detail: the source was measured.
                &"",
                &"",
            ],
        );
    }
    for s in &c.refused {
        let _ = writeln!(
            out,
            "{},refused,,,,,,,0,,,{},,,,{},{}",
            csv_field(&s.name),
            c.emulated,
            csv_field(s.error.as_deref().unwrap_or_default()),
            csv_field(&s.detail)
        );
    }
    for s in &c.unmeasured {
        let _ = writeln!(
            out,
            "{},no bandwidth result,,,,,,,0,,,{},,,,,",
            csv_field(s),
            c.emulated
        );
    }
    out
}

/// `classify.json`: the method's constants, the logs, the points, the groups, every
/// source's classification (the reference first, `status: "reference"`), the refused
/// sources, the emulated caveat and the warning.
pub fn json(c: &Comparison) -> serde_json::Value {
    let reference = c.classification.reference.iter().map(|r| {
        let spec = source::by_name(&r.source);
        json!({
            "source": r.source,
            "status": "reference",
            "label": null, "group": [], "tied_with": [], "nearest": null,
            "rms_nearest": null, "rms_outside": null,
            "points": r.points,
            "confidence": null, "confidence_word": null,
            "expected": spec.and_then(|s| s.expected),
            "pgprot": spec.map(|s| s.pgprot_on(c.classification.arch)),
            "agrees": null, "agreement": null,
            "note": reference_text(r),
        })
    });
    let labels = c.classification.labels.iter().map(|l| {
        json!({
            "source": l.source,
            "status": status(l),
            "label": l.label(),
            "group": l.group,
            "tied_with": l.tied_with(),
            "nearest": l.nearest.as_ref().map(|n| &n.0),
            "rms_nearest": l.nearest.as_ref().map(|n| n.1),
            "rms_outside": l.outside,
            "points": l.points,
            "confidence": l.confidence(),
            "confidence_word": l.confidence().map(confidence_word),
            "expected": l.expected(),
            "driver": l.driver,
            "pgprot": l.pgprot(),
            "agrees": agrees(l),
            "agreement": l.label().map(|_| l.agreement.text()),
        })
    });
    json!({
        "firmware_log": c.firmware_log,
        "linux_log": c.linux_log,
        "references": {"firmware": FIRMWARE_BASELINE, "linux": TWIN_BASELINE},
        "tau": TAU,
        "min_points": MIN_POINTS,
        "points": c.points.iter().map(|(k, s)| json!({"kernel": k, "size_bytes": s})).collect::<Vec<_>>(),
        "groups": c.classification.groups,
        "sources": reference.chain(labels).collect::<Vec<_>>(),
        "refused": c.refused.iter().map(|s| json!({
            "source": s.name, "error": s.error, "errno": s.errno, "detail": s.detail,
        })).collect::<Vec<_>>(),
        "unmeasured": c.unmeasured,
        "emulated": c.emulated,
        "tcg": c.tcg,
        "caveat": c.emulated_note(),
        "warning": c.warning,
        "notes": c.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::super::features::groups;
    use super::super::label::{classify, classify_with, Classification};
    use super::super::logs::{compare, TCG_NOTE};
    use super::super::test_boards::{a72, board, feats, qemu};
    use super::super::test_logs::{drm_pair, pair, pair_of};
    use super::*;
    use crate::read::model::{Run, Source};

    fn by<'a>(c: &'a Classification, source: &str) -> &'a Label {
        c.labels.iter().find(|l| l.source == source).unwrap()
    }

    #[test]
    fn emulated_board_resolves_device_and_normal_only() {
        let types = qemu();
        let g = groups(&types);
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(g[0][0], "normal-wb");
        assert_eq!(g[1][0], "device-ngnrne");
        let twin = feats(
            &board(
                &[
                    ("anon", 1.0, 1.0),
                    ("udmabuf", 1.0, 1.0),
                    ("pci:0000:00:01.0:res2", 0.085, 0.08),
                    ("pci:0000:00:01.0:res2_wc", 1.0, 1.0),
                ],
                13000.0,
                0.05,
            ),
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        assert_eq!(
            c.reference.as_ref().map(|r| r.source.as_str()),
            Some("anon")
        );
        let seen: Vec<_> = c
            .labels
            .iter()
            .map(|l| (l.source.as_str(), l.label().unwrap(), l.group.len()))
            .collect();
        assert_eq!(
            seen,
            [
                ("udmabuf", "normal-wb", 4),
                ("pci:0000:00:01.0:res2", "device-ngnre", 4),
                ("pci:0000:00:01.0:res2_wc", "normal-nc", 4),
            ]
        );
        assert!(c.labels.iter().all(|l| l.agreement == Agreement::Yes));
        let l = by(&c, "pci:0000:00:01.0:res2");
        let text = confidence_text(l, true);
        assert!(
            text.starts_with("emulated (") && text.ends_with(" %)"),
            "{text}"
        );
        assert!(confidence_text(l, false).ends_with("high"));
    }

    #[test]
    fn empty_runs_render() {
        // The whole comparison of empty runs renders.
        let c = compare(&Run::default(), &Run::default());
        assert_eq!(c.notes.len(), 2);
        let t = table(&c);
        assert!(t.contains("0 common points"), "{t}");
        assert!(csv(&c).starts_with("source,status,"));
        assert_eq!(json(&c)["points"], json!([]));
    }

    #[test]
    fn the_emulated_note_says_tcg_only_on_the_runners_word() {
        // qemu/run's mairbench.host= (TCG): caches are not modelled.
        let tcg = pair("[\"bootarg\",\"dtb\"]");
        assert!(tcg.emulated && tcg.tcg, "{tcg:?}");
        let t = table(&tcg);
        assert!(
            t.contains(
                "\nemulated: TCG (QEMU without KVM) does not model caches, so only Device vs \
                 Normal shows (TCG's slow path for Device pages); the type within a group is \
                 what Linux documents (core's source table), not a measurement.\n"
            ),
            "{t}"
        );
        assert_eq!(json(&tcg)["caveat"], TCG_NOTE);
        // QEMU's device tree alone: TCG or KVM.
        let qemu = pair("[\"dtb\"]");
        assert!(qemu.emulated && !qemu.tcg, "{qemu:?}");
        let t = table(&qemu);
        assert!(
            t.contains(
                "\nemulated: a QEMU machine: under TCG caches are not modelled (under KVM they \
                 are real, but the timing is a guest's); the type within a group is what Linux \
                 documents (core's source table), not a measurement.\n"
            ),
            "{t}"
        );
        assert!(!t.contains("TCG (QEMU without KVM)"), "{t}");
        assert_eq!(json(&qemu)["tcg"], false);
        // Every row says emulated either way; a real board says neither.
        assert!(by(&qemu.classification, "udmabuf").label().is_some());
        assert!(t.contains("emulated ("), "{t}");
        let real = Comparison {
            emulated: false,
            ..pair("[\"bootarg\"]")
        };
        assert_eq!(real.emulated_note(), None);
        assert!(!table(&real).contains("\nemulated:"));
    }

    /// The start record's `accel` decides: `tcg` is TCG's note whoever else said QEMU; `kvm`
    /// is no emulation at all (real cores and caches), though the device tree is QEMU's.
    #[test]
    fn the_accelerator_tells_tcg_from_kvm() {
        let tcg = pair_of(
            "\"platform\":\"linux,dummy-virt\",\"emulated\":true,\"emulated_by\":[\"dtb\"],\
             \"accel\":\"tcg\",\"midr\":\"0x410fd083\"",
        );
        assert!(tcg.emulated && tcg.tcg, "{tcg:?}");
        let kvm = pair_of(
            "\"platform\":\"linux,dummy-virt\",\"emulated\":false,\"host\":\"qemu-10.0.2\",\
             \"accel\":\"kvm\",\"midr\":\"0x410fd083\"",
        );
        assert!(!kvm.emulated && !kvm.tcg, "{kvm:?}");
        assert_eq!(kvm.emulated_note(), None);
        assert!(!table(&kvm).contains("\nemulated:"));
    }

    /// The reference (anon) is 0 from normal-wb by construction: listed as the reference, with
    /// no label, confidence or agreement, in the table, the CSV and the JSON.
    #[test]
    fn the_reference_is_marked_not_classified() {
        let c = pair("[\"bootarg\"]");
        assert_eq!(
            c.classification.reference,
            Some(Reference {
                source: "anon".into(),
                points: 4
            })
        );
        assert_eq!(c.classification.labels.len(), 1, "{c:?}");
        let t = table(&c);
        let row: Vec<&str> = t
            .lines()
            .find(|l| l.starts_with("  anon "))
            .unwrap_or_else(|| panic!("{t}"))
            .split_whitespace()
            .collect();
        assert_eq!(
            row,
            [
                "anon",
                "reference",
                "-",
                "-",
                "4",
                "-",
                "normal-wb",
                "-",
                "-"
            ]
        );
        assert!(
            t.contains(
                "\n  anon: the reference, not classified; every source is measured relative to \
                 it, as every memory type is to normal-wb (so it is taken to be normal-wb, as \
                 Linux documents)\n"
            ),
            "{t}"
        );
        // Still in the page protections.
        assert!(t.contains("\n  anon     protection_map"), "{t}");
        let csv = csv(&c);
        let line = csv.lines().nth(1).unwrap();
        assert!(
            line.starts_with("anon,reference,,,,,,,4,,,true,normal-wb,\"protection_map, by"),
            "{csv}"
        );
        assert!(
            line.ends_with("(MT_NORMAL)\",,,"),
            "no agrees, error, detail: {line}"
        );
        let j = json(&c);
        let anon = &j["sources"][0];
        assert_eq!(
            (&anon["source"], &anon["status"], &anon["points"]),
            (&json!("anon"), &json!("reference"), &json!(4))
        );
        for key in ["label", "confidence", "agrees", "agreement", "nearest"] {
            assert!(anon[key].is_null(), "{key}: {anon}");
        }
        assert_eq!(j["sources"][1]["status"], "classified");
    }

    /// The record's `expected` and `driver` are preferred to core's source table (which
    /// has no type for a DRM source: the driver's choice), in the label, the agreement, the
    /// table (with the driver), the page protections, the CSV (without the driver, its
    /// columns kept) and the JSON.
    #[test]
    fn the_records_expected_type_and_driver_are_preferred() {
        let c = drm_pair(true);
        for name in ["drm-dumb:card0", "dma-buf:card0"] {
            let l = by(&c.classification, name);
            assert_eq!(l.expected(), Some("normal-nc"), "{l:?}");
            assert_eq!(l.driver.as_deref(), Some("vgem"), "{l:?}");
            assert_eq!(l.label(), Some("normal-nc"), "{l:?}");
            assert_eq!(l.agreement, Agreement::Yes, "{l:?}");
            assert_eq!(l.expected_text(), "normal-nc (vgem)");
            assert!(
                l.pgprot().unwrap().starts_with("pgprot_writecombine"),
                "{l:?}"
            );
        }
        let t = table(&c);
        let row = t
            .lines()
            .find(|l| l.starts_with("  drm-dumb:card0 "))
            .unwrap_or_else(|| panic!("{t}"));
        assert!(row.contains(" normal-nc (vgem) "), "{row}");
        assert!(row.contains(" yes"), "{row}");
        assert!(
            !t.contains('\u{2014}'),
            "no dash: every source has a type\n{t}"
        );
        assert!(
            t.contains(
                "\n  dma-buf:card0   driver vgem: pgprot_writecombine (MT_NORMAL_NC): GEM shmem \
                 with map_wc -> normal-nc\n"
            ),
            "{t}"
        );
        let csv = csv(&c);
        // The CSV keeps its columns (the driver is in the JSON and the table).
        let drm = csv
            .lines()
            .find(|l| l.starts_with("drm-dumb:card0,"))
            .unwrap();
        assert!(
            drm.contains(",normal-nc,pgprot_writecombine (MT_NORMAL_NC)"),
            "{drm}"
        );
        assert!(drm.ends_with(",yes,,"), "{drm}");
        let j = json(&c);
        let dma = j["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["source"] == "dma-buf:card0")
            .unwrap();
        assert_eq!(
            (&dma["expected"], &dma["driver"]),
            (&json!("normal-nc"), &json!("vgem"))
        );
        assert_eq!(dma["agrees"], true);
    }

    /// Without the record's fields (a log from before them), the table's word stands: no
    /// expected type for a DRM source, "—", no agreement.
    #[test]
    fn without_the_records_fields_the_table_decides() {
        let c = drm_pair(false);
        let l = by(&c.classification, "drm-dumb:card0");
        assert_eq!((l.expected(), l.driver.as_deref()), (None, None));
        assert_eq!(l.agreement, Agreement::NoExpectation);
        assert_eq!(l.expected_text(), "\u{2014}");
        assert!(l.pgprot().unwrap().starts_with("the driver's"), "{l:?}");
        let t = table(&c);
        let row = t
            .lines()
            .find(|l| l.starts_with("  drm-dumb:card0 "))
            .unwrap_or_else(|| panic!("{t}"));
        assert!(row.contains('\u{2014}'), "{row}");
        // A refused record of the same name never lends its fields.
        let refused = Source {
            name: "drm-dumb:card0".into(),
            error: Some("ENOENT".into()),
            expected: Some("device-gre".into()),
            driver: Some("bogus".into()),
            ..Source::default()
        };
        let firmware = a72();
        let twin = feats(
            &[
                ("anon".into(), "read-ldp".into(), 4096, 1000.0),
                ("drm-dumb:card0".into(), "read-ldp".into(), 4096, 500.0),
            ],
            "anon",
        );
        let c = classify_with(
            &firmware,
            &twin,
            "anon",
            std::slice::from_ref(&refused),
            mairbench_core::arch::Arch::Aarch64,
        );
        let l = by(&c, "drm-dumb:card0");
        assert_eq!((l.expected(), l.driver.as_deref()), (None, None));
    }
}
