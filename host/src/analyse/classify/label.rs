//! Each source classified against the board's memory types: its nearest type and group, the
//! label, the confidence, and whether it agrees with what Linux documents.

use super::features::{distance, groups, Distance, Features, Sweep};
use crate::read::model::Source;
use mairbench_core::arch::Arch;
use mairbench_core::source;

/// Confidence from which the word is "high".
pub(super) const HIGH: f64 = 0.60;

/// Confidence from which the word is "medium" (below: "low").
pub(super) const MEDIUM: f64 = 0.30;

/// 1 − `nearest` / `outside`, clamped to 0..1; 0.0 when there is nothing outside the group
/// (`None`: the measurement tells no group from another) or the ratio cannot be taken (NaN,
/// a zero or negative `outside`).
pub(super) fn confidence(nearest: f64, outside: Option<f64>) -> f64 {
    let Some(outside) = outside else {
        return 0.0;
    };
    let c = 1.0 - nearest / outside;
    if outside > 0.0 && c.is_finite() {
        c.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The word for a confidence: "high" (≥ `HIGH`), "medium" (≥ `MEDIUM`) or "low".
pub(super) fn confidence_word(c: f64) -> &'static str {
    if c >= HIGH {
        "high"
    } else if c >= MEDIUM {
        "medium"
    } else {
        "low"
    }
}

/// Whether what a source measures agrees with what core's source table expects of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// The nearest group holds the expected type.
    Yes,
    /// It does not: the source behaves like this type (the label).
    No(String),
    /// The table expects no type of this source (or does not know it).
    NoExpectation,
    /// The expected type is not among the firmware log's memory types.
    Unmeasured,
}

impl Agreement {
    /// As the table prints it: `yes`, `NO: behaves like <label>`, `—`, or
    /// `— (not in the firmware log)`.
    pub fn text(&self) -> String {
        match self {
            Agreement::Yes => "yes".into(),
            Agreement::No(label) => format!("NO: behaves like {label}"),
            Agreement::NoExpectation => "\u{2014}".into(),
            Agreement::Unmeasured => "\u{2014} (not in the firmware log)".into(),
        }
    }
}

/// One source's classification. What derives from these fields (the label, the types tied
/// with it, the confidence) and what core's source table says of the source (expected type,
/// page protection) are methods.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// The source's name, e.g. `pci:0000:00:01.0:res2_wc`.
    pub source: String,
    /// Common points with the nearest type (without a nearest type: the most with any).
    pub points: usize,
    /// The nearest memory type and its distance; `None`: too few common points.
    pub nearest: Option<(String, f64)>,
    /// The nearest group's types (empty without a nearest type).
    pub group: Vec<String>,
    /// The distance to the nearest type outside the group (`None`: none measurable).
    pub outside: Option<f64>,
    /// Whether the measurement agrees with the expectation.
    pub agreement: Agreement,
    /// The source record's `expected` (the twin's word), when it has one.
    pub record_expected: Option<String>,
    /// The source record's `driver` (a DRM source's driver), when it has one.
    pub driver: Option<String>,
    /// The twin's architecture, whose Linux's page protection [`Label::pgprot`] quotes.
    pub arch: Arch,
}

impl Label {
    /// The type expected of the source: the source record's `expected`, else core's source
    /// table's.
    pub fn expected(&self) -> Option<&str> {
        self.record_expected
            .as_deref()
            .or_else(|| source::by_name(&self.source).and_then(|s| s.expected))
    }

    /// The page protection of the source: its driver's (core's DRM driver table) when the
    /// record names a known driver, else what core's source table names.
    pub fn pgprot(&self) -> Option<&'static str> {
        self.driver
            .as_deref()
            .and_then(source::drm_driver)
            .map(|d| d.pgprot_on(self.arch))
            .or_else(|| source::by_name(&self.source).map(|s| s.pgprot_on(self.arch)))
    }

    /// The expected type as the table prints it: with the driver, e.g. `normal-nc (vgem)`;
    /// "—" when there is none.
    pub fn expected_text(&self) -> String {
        match (self.expected(), &self.driver) {
            (Some(e), Some(d)) => format!("{e} ({d})"),
            (Some(e), None) => e.to_owned(),
            (None, Some(d)) => format!("\u{2014} ({d})"),
            (None, None) => "\u{2014}".to_owned(),
        }
    }

    /// The label: the expected type when the nearest group holds it, else the nearest type;
    /// `None` without a nearest type (too few common points).
    pub fn label(&self) -> Option<&str> {
        let (near, _) = self.nearest.as_ref()?;
        Some(
            self.expected()
                .filter(|e| self.group.iter().any(|t| t == e))
                .unwrap_or(near.as_str()),
        )
    }

    /// The group's members other than the label.
    pub fn tied_with(&self) -> Vec<&str> {
        let label = self.label();
        self.group
            .iter()
            .map(String::as_str)
            .filter(|t| Some(*t) != label)
            .collect()
    }

    /// 1 − the nearest distance / the outside one, clamped to 0..1 (0 without an outside
    /// one), when there is a label.
    pub fn confidence(&self) -> Option<f64> {
        self.nearest
            .as_ref()
            .map(|(_, d)| confidence(*d, self.outside))
    }
}

/// The twin log's reference source ([`TWIN_BASELINE`](crate::read::model::TWIN_BASELINE)): what every source is divided by, not
/// classified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// Its name, [`TWIN_BASELINE`](crate::read::model::TWIN_BASELINE).
    pub source: String,
    /// The common points it has a (zero) feature at.
    pub points: usize,
}

/// A classification of sources against a board's memory types.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Classification {
    /// The board's groups of memory types, indistinguishable within each.
    pub groups: Vec<Vec<String>>,
    /// The sources' reference, when the sources have it.
    pub reference: Option<Reference>,
    /// The twin's architecture (its log's `start` record), whose Linux's page protections
    /// the reports quote.
    pub arch: Arch,
    /// One label per source other than the reference, in the sources' order.
    pub labels: Vec<Label>,
}

/// Classifies each source of `sources` but `reference` against the memory types of `types`
/// (features of the same points, see `features::common_points` and `features::restrict`) by the method of the
/// module doc.
#[cfg(test)]
pub(super) fn classify(types: &Features, sources: &Features, reference: &str) -> Classification {
    classify_with(types, sources, reference, &[], Arch::Aarch64)
}

/// The classification of the module doc, with the twin log's `source` records (`records`): a
/// source's expected type and driver are its record's where it has them (the last mapped
/// record of its name); without records, core's source table's.
pub(super) fn classify_with(
    types: &Features,
    sources: &Features,
    reference: &str,
    records: &[Source],
    arch: Arch,
) -> Classification {
    let groups = groups(types);
    let labels = sources
        .iter()
        .filter(|(name, _)| name != reference)
        .map(|(name, sweep)| {
            let record = records
                .iter()
                .rev()
                .find(|r| r.name == *name && r.error.is_none());
            label(types, &groups, name, sweep, record, arch)
        })
        .collect();
    let reference = sources
        .iter()
        .find(|(name, _)| name == reference)
        .map(|(name, sweep)| Reference {
            source: name.clone(),
            points: sweep.len(),
        });
    Classification {
        groups,
        reference,
        labels,
        arch,
    }
}

fn label(
    types: &Features,
    groups: &[Vec<String>],
    name: &str,
    sweep: &Sweep,
    record: Option<&Source>,
    arch: Arch,
) -> Label {
    let distances: Vec<(&str, Distance)> = types
        .iter()
        .map(|(t, s)| (t.as_str(), distance(sweep, s)))
        .collect();
    let mut nearest: Option<(&str, f64, usize)> = None;
    for (t, d) in &distances {
        if let Some(r) = d.rms {
            if nearest.is_none_or(|(_, best, _)| r < best) {
                nearest = Some((t, r, d.points));
            }
        }
    }
    let mut out = Label {
        source: name.to_owned(),
        points: distances.iter().map(|(_, d)| d.points).max().unwrap_or(0),
        nearest: None,
        group: Vec::new(),
        outside: None,
        agreement: Agreement::NoExpectation,
        record_expected: record.and_then(|r| r.expected.clone()),
        driver: record.and_then(|r| r.driver.clone()),
        arch,
    };
    let Some((near, d_near, points)) = nearest else {
        return out;
    };
    let group = groups
        .iter()
        .find(|g| g.iter().any(|t| t == near))
        .cloned()
        .unwrap_or_else(|| vec![near.to_owned()]);
    out.outside = distances
        .iter()
        .filter(|(t, _)| !group.iter().any(|g| g == t))
        .filter_map(|(_, d)| d.rms)
        .min_by(f64::total_cmp);
    out.points = points;
    out.nearest = Some((near.to_owned(), d_near));
    out.group = group;
    out.agreement = match out.expected() {
        None => Agreement::NoExpectation,
        Some(e) if out.group.iter().any(|t| t == e) => Agreement::Yes,
        Some(e) if !types.iter().any(|(t, _)| t == e) => Agreement::Unmeasured,
        Some(_) => Agreement::No(near.to_owned()),
    };
    out
}

#[cfg(test)]
mod tests {
    use super::super::features::{restrict, Sweep};
    use super::super::test_boards::{a72, board, feats, names};
    use super::*;

    fn by<'a>(c: &'a Classification, source: &str) -> &'a Label {
        c.labels.iter().find(|l| l.source == source).unwrap()
    }

    #[test]
    fn a72_board_dma_buf_at_device_speed_disagrees() {
        let types = a72();
        let g = groups(&types);
        assert_eq!(
            g,
            [
                names(&["normal-wb", "normal-wb-noalloc"]),
                names(&["normal-wt"]),
                names(&["normal-nc"]),
                names(&["device-ngnrne", "device-ngnre", "device-ngre", "device-gre"]),
            ]
        );
        let twin = feats(
            &board(
                &[
                    ("anon", 1.0, 1.0),
                    ("udmabuf", 1.0, 0.98),
                    ("dma-heap:system", 0.1, 0.8),
                    ("pci:0000:01:00.0:res0", 0.1, 0.78),
                    ("pci:0000:01:00.0:res0_wc", 0.2, 0.85),
                    ("drm-dumb:card0", 0.21, 0.84),
                ],
                3000.0,
                0.02,
            ),
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        // The reference is what the sources are divided by, not one of them.
        assert_eq!(
            c.reference,
            Some(Reference {
                source: "anon".into(),
                points: 10
            })
        );
        assert!(!c.labels.iter().any(|l| l.source == "anon"), "{c:?}");
        assert_eq!(c.labels.len(), 5);
        let u = by(&c, "udmabuf");
        assert_eq!(
            (u.label(), &u.agreement),
            (Some("normal-wb"), &Agreement::Yes)
        );
        assert_eq!(u.tied_with(), ["normal-wb-noalloc"]);
        assert_eq!(u.points, 10);
        assert!(u.confidence().unwrap() > HIGH, "{u:?}");
        // The dma-buf that reads at Device speed: a Device type, not the expected normal-wb.
        let heap = by(&c, "dma-heap:system");
        let label = heap.label().unwrap().to_owned();
        assert!(label.starts_with("device-"), "{heap:?}");
        assert_eq!(heap.agreement, Agreement::No(label.clone()));
        assert_eq!(heap.expected(), Some("normal-wb"));
        assert_eq!(heap.group.len(), 4);
        assert_eq!(heap.agreement.text(), format!("NO: behaves like {label}"));
        assert!(heap.confidence().unwrap() > MEDIUM, "{heap:?}");
        let res = by(&c, "pci:0000:01:00.0:res0");
        assert_eq!(res.label(), Some("device-ngnre"));
        assert_eq!(
            res.tied_with(),
            ["device-ngnrne", "device-ngre", "device-gre"]
        );
        let wc = by(&c, "pci:0000:01:00.0:res0_wc");
        assert_eq!(
            (wc.label(), &wc.agreement),
            (Some("normal-nc"), &Agreement::Yes)
        );
        assert!(wc.tied_with().is_empty());
        // The table expects nothing of a DRM dumb buffer: labelled by the measurement alone.
        let drm = by(&c, "drm-dumb:card0");
        assert_eq!(drm.label(), Some("normal-nc"));
        assert_eq!(drm.expected(), None);
        assert!(drm.pgprot().unwrap().starts_with("the driver's"), "{drm:?}");
        assert_eq!(drm.agreement, Agreement::NoExpectation);
        assert_eq!(drm.agreement.text(), "\u{2014}");
    }

    #[test]
    fn no_allocate_board() {
        // Zhao Yibin's "ARM Cache policy on single armv7 processor lead to low DRAM
        // performance": write-back no-allocate ~7 MB/s write, 28 MB/s read vs 120/160.
        let types = feats(
            &board(
                &[
                    ("normal-wb", 160.0, 120.0),
                    ("normal-wb-noalloc", 28.0, 7.0),
                    ("normal-nc", 30.0, 40.0),
                    ("device-ngnre", 15.0, 30.0),
                ],
                1.0,
                0.02,
            ),
            "normal-wb",
        );
        assert_eq!(groups(&types).len(), 4);
        let twin = feats(
            &board(&[("anon", 160.0, 120.0), ("udmabuf", 27.0, 7.5)], 1.0, 0.02),
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        assert_eq!(c.reference.as_ref().map(|r| r.points), Some(10));
        let u = by(&c, "udmabuf");
        assert_eq!(u.label(), Some("normal-wb-noalloc"));
        assert_eq!(u.agreement.text(), "NO: behaves like normal-wb-noalloc");
        assert_eq!(confidence_word(u.confidence().unwrap()), "high");
    }

    #[test]
    fn one_group_gives_no_confidence() {
        let types = feats(
            &board(
                &[("normal-wb", 1.0, 1.0), ("normal-nc", 1.02, 0.99)],
                100.0,
                0.0,
            ),
            "normal-wb",
        );
        let twin = feats(
            &board(&[("anon", 1.0, 1.0), ("udmabuf", 1.1, 1.1)], 90.0, 0.0),
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        assert_eq!(c.groups.len(), 1);
        let u = by(&c, "udmabuf");
        assert_eq!((u.confidence(), u.outside), (Some(0.0), None));
        assert_eq!(u.tied_with(), ["normal-nc"]);
    }

    #[test]
    fn too_few_common_points() {
        let types = a72();
        // One point only: read-ldp at 4 KiB.
        let twin = feats(
            &[
                ("anon".into(), "read-ldp".into(), 4096, 100.0),
                ("udmabuf".into(), "read-ldp".into(), 4096, 10.0),
            ],
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        let u = by(&c, "udmabuf");
        assert_eq!((u.label(), u.points), (None, 1));
        assert_eq!((u.confidence(), &u.group), (None, &Vec::<String>::new()));
        assert!(u.tied_with().is_empty());
        // A firmware log of one point: no type joins another.
        let one = restrict(
            &types,
            &[("read-ldp".to_string(), 4096)].into_iter().collect(),
        );
        assert_eq!(groups(&one).len(), 8);
        assert_eq!(
            distance(&one[0].1, &one[1].1),
            Distance {
                rms: None,
                points: 1
            }
        );
    }

    #[test]
    fn bad_values_never_panic() {
        let bad = [
            f64::NAN,
            0.0,
            -5.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-320,
        ];
        let mut b = Vec::new();
        for (i, v) in bad.iter().enumerate() {
            let size = 4096 << i;
            b.push(("normal-wb".to_string(), "read-ldp".to_string(), size, 100.0));
            b.push(("normal-nc".to_string(), "read-ldp".to_string(), size, *v));
            // The reference bad, the row good.
            b.push(("normal-wb".to_string(), "write-stp".to_string(), size, *v));
            b.push(("normal-nc".to_string(), "write-stp".to_string(), size, 50.0));
        }
        // A row whose reference is missing at its point.
        b.push((
            "device-gre".to_string(),
            "read-ldp".to_string(),
            1 << 30,
            10.0,
        ));
        let f = feats(&b, "normal-wb");
        for (row, sweep) in &f {
            assert!(sweep.values().all(|v| v.is_finite()), "{row}: {sweep:?}");
        }
        let nc = &f.iter().find(|(r, _)| r == "normal-nc").unwrap().1;
        // 1e-320 is positive and finite: ln(1e-320 / 100) is finite.
        assert_eq!(nc.len(), 1, "{nc:?}");
        assert!(f.iter().any(|(r, s)| r == "device-gre" && s.is_empty()));
        // No reference at all.
        assert!(feats(&b, "normal-wt").iter().all(|(_, s)| s.is_empty()));
        // Empty inputs.
        assert_eq!(
            classify(&vec![], &vec![], "anon"),
            Classification::default()
        );
        let c = classify(&vec![], &f, "anon");
        assert!(c.labels.iter().all(|l| l.label().is_none()));
        let c = classify(&f, &vec![], "anon");
        assert!(c.labels.is_empty() && c.reference.is_none());
        // A sweep holding NaN (not from features) counts no point there.
        let mut s = Sweep::new();
        s.insert(("read-ldp".into(), 1), f64::NAN);
        s.insert(("read-ldp".into(), 2), 0.0);
        s.insert(("read-ldp".into(), 3), 0.0);
        let d = distance(&s, &s);
        assert_eq!(
            d,
            Distance {
                rms: Some(0.0),
                points: 2
            }
        );
        // Confidence of degenerate distances.
        assert_eq!(confidence(0.0, Some(0.0)), 0.0);
        assert_eq!(confidence(f64::NAN, Some(1.0)), 0.0);
        assert_eq!(confidence(2.0, Some(1.0)), 0.0);
        assert_eq!(confidence(0.0, Some(1.0)), 1.0);
        assert_eq!(confidence(0.5, None), 0.0);
        assert_eq!(
            [0.6, 0.59, 0.3, 0.29].map(confidence_word),
            ["high", "medium", "medium", "low"]
        );
    }
}
