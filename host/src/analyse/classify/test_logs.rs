//! Pairs of logs the classifier's tests read: a firmware log and a twin log built from their
//! start records and rows.

use super::logs::{compare, Comparison};
use crate::read::model::Run;

/// A start record as the firmware or the twin writes it, and one result per kernel and
/// size of a row.
pub(super) fn log(start: &str, rows: &[(&str, &str, f64)]) -> Run {
    let mut text = format!("@mb {{\"kind\":\"start\",\"schema\":1,{start}}}\n");
    for (field, row, mbps) in rows {
        for kernel in ["read-ldp", "write-stp"] {
            for size in [4096, 8192] {
                text += &format!(
                    "@mb {{\"kind\":\"result\",\"{field}\":\"{row}\",\"kernel\":\"{kernel}\",\
                     \"size\":{size},\"reps\":3,\"cv_pct\":0.1,\"best_mbps\":{mbps},\
                     \"median_mbps\":{mbps}}}\n"
                );
            }
        }
    }
    crate::read::log::parse(text.as_bytes()).run
}

pub(super) fn pair(emulated_by: &str) -> Comparison {
    pair_of(&format!(
        "\"platform\":\"linux,dummy-virt\",\"emulated\":true,\"emulated_by\":{emulated_by},\
         \"midr\":\"0x410fd083\""
    ))
}

pub(super) fn pair_of(start: &str) -> Comparison {
    let firmware = log(
        start,
        &[
            ("memtype", "normal-wb", 1000.0),
            ("memtype", "device-ngnre", 80.0),
        ],
    );
    let twin = log(
        &format!("{start},\"kernel\":\"Linux 6.12\",\"machine\":\"aarch64\""),
        &[("source", "anon", 900.0), ("source", "udmabuf", 880.0)],
    );
    compare(&firmware, &twin)
}

/// A twin log whose `source` records carry `expected` and `driver` (as the twin writes
/// them for a DRM source: vgem's dumb buffer and its dma-buf are normal-nc), against a
/// firmware log of normal-wb, normal-nc and device-ngnre (far apart: three groups).
pub(super) fn drm_pair(with_record: bool) -> Comparison {
    let start = "\"platform\":\"some-board\",\"midr\":\"0x410fd083\"";
    let firmware = log(
        start,
        &[
            ("memtype", "normal-wb", 4000.0),
            ("memtype", "normal-nc", 1000.0),
            ("memtype", "device-ngnre", 100.0),
        ],
    );
    let mut text = format!(
        "@mb {{\"kind\":\"start\",\"schema\":1,{start},\"kernel\":\"Linux 6.12\",\
         \"machine\":\"aarch64\"}}\n"
    );
    for (name, record) in [
        ("anon", "\"detail\":\"mmap\",\"expected\":\"normal-wb\""),
        (
            "drm-dumb:card0",
            "\"detail\":\"DRM_IOCTL_MODE_MAP_DUMB\",\"driver\":\"vgem\",\
             \"expected\":\"normal-nc\"",
        ),
        (
            "dma-buf:card0",
            "\"detail\":\"PRIME\",\"driver\":\"vgem\",\"expected\":\"normal-nc\"",
        ),
    ] {
        let record = if with_record {
            record.to_owned()
        } else {
            "\"detail\":\"mmap\"".to_owned()
        };
        text +=
            &format!("@mb {{\"kind\":\"source\",\"source\":\"{name}\",\"size\":8192,{record}}}\n");
    }
    for (name, mbps) in [
        ("anon", 4000.0),
        ("drm-dumb:card0", 1010.0),
        ("dma-buf:card0", 990.0),
    ] {
        for kernel in ["read-ldp", "write-stp"] {
            for size in [4096, 8192] {
                text += &format!(
                    "@mb {{\"kind\":\"result\",\"source\":\"{name}\",\"kernel\":\"{kernel}\",\
                     \"size\":{size},\"reps\":3,\"cv_pct\":0.1,\"best_mbps\":{mbps},\
                     \"median_mbps\":{mbps}}}\n"
                );
            }
        }
    }
    let twin = crate::read::log::parse(text.as_bytes()).run;
    assert_eq!(twin.sources.len(), 3, "{text}");
    compare(&firmware, &twin)
}
