//! The core-to-core latency matrix as a heat map: a cell per measured pair (row: the CPU that
//! timed, column: the other), its one-way time written in it and its shade from light (the
//! fastest pair) to dark (the slowest), on a log scale; CPUs labelled with their MPIDR and
//! cluster, a line between clusters.

use super::style::EMULATED_NOTE;
use crate::read::model::Run;
use std::fmt::Write as _;

/// Pixels per cell.
const CELL: usize = 64;
/// Room for the row labels, and above the grid for the title and the column labels.
const LEFT: usize = 110;
const TOP: usize = 90;

/// The CPUs of the matrix with their clusters, in the order of the records.
fn cpus(run: &Run) -> Vec<(&str, Option<u64>)> {
    let mut out: Vec<(&str, Option<u64>)> = Vec::new();
    for p in &run.core_to_core {
        for (cpu, cluster) in [(&p.from, p.from_cluster), (&p.to, p.to_cluster)] {
            if !out.iter().any(|(c, _)| c == cpu) {
                out.push((cpu, cluster));
            }
        }
    }
    out
}

/// A shade of blue for `ns` between `lo` and `hi` (log scale): light for `lo`, dark for `hi`.
fn shade(ns: f64, lo: f64, hi: f64) -> (String, &'static str) {
    let t = if hi > lo && ns > 0.0 {
        ((ns.ln() - lo.ln()) / (hi.ln() - lo.ln())).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mix = |light: f64, dark: f64| (light + (dark - light) * t).round() as u8;
    let fill = format!(
        "#{:02x}{:02x}{:02x}",
        mix(239.0, 8.0),
        mix(243.0, 48.0),
        mix(255.0, 107.0)
    );
    (fill, if t > 0.55 { "#ffffff" } else { "#000000" })
}

/// XML text escaping.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The heat map of `run`'s `core_to_core` records; an error without any.
pub fn core_to_core(run: &Run, title: &str) -> Result<String, String> {
    if run.core_to_core.is_empty() {
        return Err("the log has no core_to_core records".into());
    }
    let cpus = cpus(run);
    let n = cpus.len();
    let (w, h) = (LEFT + n * CELL + 20, TOP + n * CELL + 60);
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n"
    );
    heading(&mut svg, run, title);
    labels(&mut svg, &cpus);
    cells(&mut svg, run, &cpus);
    cluster_lines(&mut svg, &cpus);
    let _ = writeln!(
        svg,
        "<text x=\"10\" y=\"{}\" font-size=\"11\">cN: cluster N (the cluster records); red \
         lines: where the cluster changes; a dash: the pair did not finish</text>\n</svg>",
        TOP + n * CELL + 30
    );
    Ok(svg)
}

/// The title (with the platform) and what the cells hold.
fn heading(svg: &mut String, run: &Run, title: &str) {
    let platform = if run.platform.is_empty() {
        "-"
    } else {
        &run.platform
    };
    let _ = writeln!(
        svg,
        "<text x=\"10\" y=\"22\" font-size=\"15\">{} ({})</text>",
        esc(title),
        esc(platform)
    );
    let rounds = run.core_to_core.first().map_or(0, |p| p.rounds);
    // As every chart of an emulated run: the note, and what the values are here.
    let emulated = if run.emulated {
        format!("; {EMULATED_NOTE}; the values are QEMU's vCPU threads")
    } else {
        String::new()
    };
    let _ = writeln!(
        svg,
        "<text x=\"10\" y=\"40\" font-size=\"11\">ns per one-way hop (half a round trip of one \
         cache line), {rounds} round trips; row: the CPU that timed{emulated}</text>"
    );
}

/// Each CPU's label above its column and left of its row.
fn labels(svg: &mut String, cpus: &[(&str, Option<u64>)]) {
    for (i, (cpu, cluster)) in cpus.iter().enumerate() {
        let label = cluster.map_or(cpu.to_string(), |c| format!("{cpu} c{c}"));
        let (x, y) = (LEFT + i * CELL + CELL / 2, TOP + i * CELL + CELL / 2 + 4);
        let _ = writeln!(
            svg,
            "<text x=\"{x}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n\
             <text x=\"{}\" y=\"{y}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            TOP - 8,
            esc(&label),
            LEFT - 8,
            esc(&label)
        );
    }
}

/// A shaded cell with its value per pair.
fn cells(svg: &mut String, run: &Run, cpus: &[(&str, Option<u64>)]) {
    let values: Vec<f64> = run
        .core_to_core
        .iter()
        .filter_map(|p| p.ns_per_hop)
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    for p in &run.core_to_core {
        let at = |cpu: &str| cpus.iter().position(|(c, _)| *c == cpu).unwrap_or(0);
        let (row, col) = (at(&p.from), at(&p.to));
        let (x, y) = (LEFT + col * CELL, TOP + row * CELL);
        let (fill, ink, text) = match p.ns_per_hop {
            Some(ns) => {
                let (fill, ink) = shade(ns, lo, hi);
                (fill, ink, format!("{ns:.1}"))
            }
            None => ("#dddddd".into(), "#000000", "-".into()),
        };
        let _ = writeln!(
            svg,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{fill}\" \
             stroke=\"#ffffff\"/>\n<text x=\"{}\" y=\"{}\" font-size=\"11\" \
             text-anchor=\"middle\" fill=\"{ink}\">{text}</text>",
            x + CELL / 2,
            y + CELL / 2 + 4
        );
    }
}

/// A line across the whole grid where the cluster changes.
fn cluster_lines(svg: &mut String, cpus: &[(&str, Option<u64>)]) {
    let n = cpus.len();
    for i in 1..n {
        if cpus[i].1 != cpus[i - 1].1 {
            let at = i * CELL;
            let _ = writeln!(
                svg,
                "<line x1=\"{}\" y1=\"{TOP}\" x2=\"{}\" y2=\"{}\" stroke=\"#c00000\"/>\n\
                 <line x1=\"{LEFT}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c00000\"/>",
                LEFT + at,
                LEFT + at,
                TOP + n * CELL,
                TOP + at,
                LEFT + n * CELL,
                TOP + at
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::model::CoreToCore;

    fn pair(from: &str, to: &str, clusters: (u64, u64), ns: Option<f64>) -> CoreToCore {
        CoreToCore {
            from: from.into(),
            to: to.into(),
            from_cluster: Some(clusters.0),
            to_cluster: Some(clusters.1),
            rounds: 1000,
            ns_per_hop: ns,
        }
    }

    #[test]
    fn a_cell_per_pair_shaded_by_its_time_and_a_line_between_clusters() {
        let run = Run {
            platform: "rk3399".into(),
            core_to_core: vec![
                pair("0x0", "0x1", (0, 0), Some(40.0)),
                pair("0x0", "0x100", (0, 1), Some(200.0)),
                pair("0x1", "0x100", (0, 1), None),
            ],
            ..Run::default()
        };
        let svg = core_to_core(&run, "Core-to-core latency").unwrap();
        assert_eq!(svg.matches("<rect").count(), 1 + 3, "{svg}");
        // The fastest pair lightest, the slowest darkest, the unfinished grey with a dash.
        assert!(
            svg.contains("fill=\"#eff3ff\"") && svg.contains("fill=\"#08306b\""),
            "{svg}"
        );
        assert!(
            svg.contains("fill=\"#dddddd\"") && svg.contains(">-</text>"),
            "{svg}"
        );
        assert!(svg.contains(">40.0<") && svg.contains(">200.0<"), "{svg}");
        assert!(
            svg.contains("0x100 c1") && svg.contains("(rk3399)"),
            "{svg}"
        );
        assert_eq!(svg.matches("stroke=\"#c00000\"").count(), 2, "{svg}");
        assert!(!svg.contains(EMULATED_NOTE));
        let emulated = Run {
            emulated: true,
            ..run
        };
        assert!(core_to_core(&emulated, "x")
            .unwrap()
            .contains(EMULATED_NOTE));
        assert!(core_to_core(&Run::default(), "x").is_err());
    }
}
