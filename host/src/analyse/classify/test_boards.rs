//! Boards the classifier's tests build: rows of read and write MB/s at five sizes, with a
//! deterministic spread.

use super::features::{features, Features, Sample};

pub(super) const SIZES: [u64; 5] = [4096, 8192, 16384, 32768, 65536];

/// Samples of a board: per row, read-ldp and write-stp at five sizes, at `read` and
/// `write` times `scale` MB/s, with a deterministic spread of ±`jitter` per point.
pub(super) fn board(
    rows: &[(&str, f64, f64)],
    scale: f64,
    jitter: f64,
) -> Vec<(String, String, u64, f64)> {
    let mut out = Vec::new();
    for (r, (row, read, write)) in rows.iter().enumerate() {
        for (i, size) in SIZES.iter().enumerate() {
            for (k, (kernel, v)) in [("read-ldp", read), ("write-stp", write)]
                .iter()
                .enumerate()
            {
                let wobble = 1.0 + jitter * ((r * 7 + i * 3 + k) as f64).sin();
                out.push((
                    row.to_string(),
                    kernel.to_string(),
                    *size,
                    scale * **v * wobble,
                ));
            }
        }
    }
    out
}

pub(super) fn feats(b: &[(String, String, u64, f64)], reference: &str) -> Features {
    let s: Vec<Sample<'_>> = b
        .iter()
        .map(|(row, kernel, size, v)| Sample {
            row,
            kernel,
            size: *size,
            best_mbps: *v,
        })
        .collect();
    features(&s, reference)
}

pub(super) fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A Cortex-A72-shaped board: Device reads ~10x slower than WB, NC reads ~5x slower,
/// WT writes slower; Device writes look fine (public report "Performance Anomaly
/// Investigation": a dma-buf mapped as Device reads ~10x slower than heap).
pub(super) fn a72() -> Features {
    feats(
        &board(
            &[
                ("normal-wb", 1.0, 1.0),
                ("normal-wb-noalloc", 0.95, 0.9),
                ("normal-wt", 1.0, 0.45),
                ("normal-nc", 0.2, 0.85),
                ("device-ngnrne", 0.1, 0.75),
                ("device-ngnre", 0.1, 0.8),
                ("device-ngre", 0.105, 0.8),
                ("device-gre", 0.11, 0.85),
            ],
            4000.0,
            0.03,
        ),
        "normal-wb",
    )
}

/// QEMU's shape: every Normal type alike, every Device type ~12x slower (TCG's slow
/// path), all with a few percent of noise.
pub(super) fn qemu() -> Features {
    feats(
        &board(
            &[
                ("normal-wb", 1.0, 1.0),
                ("normal-wb-noalloc", 1.0, 1.0),
                ("normal-wt", 1.0, 1.0),
                ("normal-nc", 1.0, 1.0),
                ("device-ngnrne", 0.08, 0.08),
                ("device-ngnre", 0.08, 0.08),
                ("device-ngre", 0.08, 0.08),
                ("device-gre", 0.08, 0.08),
            ],
            12000.0,
            0.08,
        ),
        "normal-wb",
    )
}
