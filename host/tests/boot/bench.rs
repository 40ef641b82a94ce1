//! The benchmark engine in QEMU: every selected point reported with positive ticks and intact
//! data, options honoured (bad ones warn: the boot matrix's row
//! `bad_benchmark_options_warn_and_keep_defaults`), deterministic under -icount. Correctness
//! only: QEMU models no caches, so nothing here compares one memory type's speed with
//! another's.

use crate::common;
use crate::common::{boot, Run, MEMTYPES};
use crate::matrix;
use serde_json::Value;

fn results(run: &Run) -> Vec<&Value> {
    run.results()
}

/// Every measured result has the fields of the contract, positive ticks and intact data.
fn assert_sound(r: &Value) {
    for key in [
        "memtype",
        "kernel",
        "size",
        "passes",
        "reps",
        "best_ticks",
        "median_ticks",
        "freq_hz",
        "cv_pct",
    ] {
        assert!(!r[key].is_null(), "{key} missing in {r}");
    }
    assert!(r["best_ticks"].as_u64().unwrap() > 0, "{r}");
    assert!(
        r["median_ticks"].as_u64().unwrap() >= r["best_ticks"].as_u64().unwrap(),
        "{r}"
    );
    assert_eq!(r["freq_hz"], 62_500_000);
    assert_eq!(r["integrity"], "ok", "{r}");
    // The state it started from, and for maintenance the lines each pass found.
    let maintenance = r["kernel"].as_str().unwrap().starts_with("maint-");
    let start = r["start"]
        .as_str()
        .unwrap_or_else(|| panic!("no start in {r}"));
    let no_line =
        r["memtype"] == "normal-nc" || r["memtype"].as_str().unwrap().starts_with("device-");
    match r["kernel"].as_str().unwrap() {
        _ if maintenance && no_line => assert_eq!(start, "invalidated", "{r}"),
        "maint-ivac" => assert_eq!(start, "rewritten", "{r}"),
        "maint-civac" | "maint-cvac" => assert_eq!(start, "written", "{r}"),
        _ => assert_eq!(start, "invalidated", "{r}"),
    }
    if maintenance {
        let expect = match r["memtype"].as_str().unwrap() {
            "normal-wb" => "dirty",
            "normal-wb-noalloc" => "not-allocated",
            "normal-wt" => "clean",
            _ => "no-line",
        };
        assert_eq!(r["line_state"], expect, "{r}");
    } else {
        assert!(r["line_state"].is_null(), "{r}");
    }
}

/// The shortest sample the timer record announces, in ticks.
fn min_sample_ticks(run: &Run) -> u64 {
    let timer = run.one("timer");
    let ticks = timer["min_sample_ticks"].as_u64().unwrap();
    // QEMU's 62.5 MHz counter: 20 µs are 1250 ticks, more than the 1000-tick floor.
    assert_eq!(ticks, 1250, "{timer}");
    assert_eq!(timer["min_sample_ns"], 20_000, "{timer}");
    ticks
}

#[test]
fn quick_run_reports_every_point() {
    let run = matrix::run("kernel_a72_el1");
    run.assert_pass();
    let results = results(run);
    let min = min_sample_ticks(run);
    // quick: read-ldp, write-stp and write-line, all eight types, 4 KiB, 256 KiB and 4 MiB.
    assert_eq!(results.len(), 3 * 8 * 3, "{}", run.console);
    for kernel in ["read-ldp", "write-stp", "write-line"] {
        for (memtype, _) in MEMTYPES {
            let sizes: Vec<_> = results
                .iter()
                .filter(|r| r["kernel"] == kernel && r["memtype"] == memtype)
                .map(|r| r["size"].as_u64().unwrap())
                .collect();
            assert_eq!(sizes, [4 << 10, 256 << 10, 4 << 20], "{kernel} {memtype}");
        }
    }
    for r in &results {
        assert_sound(r);
        let bytes = r["bytes"].as_u64().unwrap();
        assert_eq!(
            bytes,
            r["size"].as_u64().unwrap() * r["passes"].as_u64().unwrap()
        );
        // Sized by time: each sample lasts the announced minimum, and at least one pass.
        assert!(
            r["best_ticks"].as_u64().unwrap() >= min,
            "each sample lasts at least {min} ticks: {r}"
        );
        assert!(r["passes"].as_u64().unwrap() >= 1);
        assert!(r["best_mbps"].as_u64().unwrap() > 0);
        assert!(r["median_mbps"].as_u64().unwrap() <= r["best_mbps"].as_u64().unwrap());
        assert_eq!(r["reps"], 3);
    }
    let integrity: Vec<_> = run
        .of_kind("check")
        .into_iter()
        .filter(|c| c["name"] == "integrity")
        .collect();
    assert_eq!(integrity.len(), 3);
    assert!(
        run.console.contains("read-ldp (MB/s, best of 3)"),
        "{}",
        run.console
    );
    assert!(run.console.contains("vs wb"));
    assert!(run.console.contains("MB = 10^6 B"));
    assert!(!run.of_kind("cache").is_empty(), "cache geometry reported");
    assert_eq!(run.one("timer")["freq_hz"], 62_500_000);
    assert!(
        run.console
            .contains("samples of at least 1250 ticks (20.0 us"),
        "the timer line says the sample rule: {}",
        run.console
    );
}

#[test]
fn maintenance_points_name_their_lines_and_last_long_enough() {
    let run = boot(
        &[],
        &[
            "mairbench.kernels=maint-civac,maint-cvac,maint-ivac",
            "mairbench.sizes=4K-8K",
            "mairbench.types=normal-wb,normal-wb-noalloc,normal-wt,normal-nc,device-gre",
        ],
    );
    run.assert_pass();
    let min = min_sample_ticks(&run);
    let measured = results(&run);
    assert_eq!(measured.len(), 3 * 5 * 2, "{}", run.console);
    for r in &measured {
        assert_sound(r); // start and line_state by kernel and type, data intact
                         // A 4 KiB pass is a few dozen ticks: the passes are summed to the minimum sample.
        assert!(r["best_ticks"].as_u64().unwrap() >= min, "{r}");
        let lines = r["lines"].as_u64().unwrap();
        assert_eq!(
            lines,
            r["size"].as_u64().unwrap() / 64 * r["passes"].as_u64().unwrap()
        );
        if r["size"] == 4096 {
            assert!(r["passes"].as_u64().unwrap() > 1, "{r}");
        }
    }
    // The table marks which rows take the no-line path.
    let note = run
        .console
        .lines()
        .find(|l| l.contains("(lines each pass finds:"))
        .unwrap_or_else(|| panic!("no line-state note: {}", run.console));
    for part in [
        "normal-wb dirty",
        "normal-wt clean",
        "normal-wb-noalloc not-allocated",
        "normal-nc, device-gre no-line",
    ] {
        assert!(note.contains(part), "{part}: {note}");
    }
    let integrity = run
        .of_kind("check")
        .into_iter()
        .filter(|c| c["name"] == "integrity" && c["ok"] == true)
        .count();
    assert_eq!(integrity, 3, "one integrity check per kernel");
}

#[test]
fn icount_runs_are_tick_for_tick_identical() {
    let ticks = |run: &Run| -> Vec<String> {
        results(run)
            .iter()
            .map(|r| {
                format!(
                    "{} {} {} {} {}",
                    r["kernel"], r["memtype"], r["size"], r["best_ticks"], r["median_ticks"]
                )
            })
            .collect()
    };
    // The matrix's row (MAIRBENCH_ICOUNT=1, mairbench.quick
    // mairbench.kernels=read-ldp,latency,copy-to), and the same booted again.
    let row = matrix::row_named("icount");
    let (a, b) = (matrix::run(row.name), row.boot());
    a.assert_pass();
    b.assert_pass();
    // read-ldp and copy-to on the eight page aliases, latency on the eight block aliases
    // and normal-wb's page alias; three sizes.
    assert_eq!(ticks(a).len(), (8 + 9 + 8) * 3);
    assert_eq!(ticks(a), ticks(&b));
}

#[test]
fn kernels_sizes_reps_and_types_are_honoured() {
    let run = boot(
        &[],
        &[
            "mairbench.kernels=latency,fill-zva,maint-ivac,copy-from",
            "mairbench.sizes=4K-64K",
            "mairbench.reps=2",
            "mairbench.types=normal-wb,device-ngnre",
        ],
    );
    run.assert_pass();
    let measured: Vec<_> = results(&run)
        .into_iter()
        .filter(|r| r["skipped"].is_null())
        .collect();
    let sizes = [4u64 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10];
    for (kernel, types, unit) in [
        // Both types on blocks, and normal-wb on pages too.
        ("latency", 3, "ns_per_load"),
        ("maint-ivac", 2, "ns_per_line"),
        ("copy-from", 2, "best_mbps"),
        ("fill-zva", 1, "best_mbps"),
    ] {
        let of: Vec<_> = measured.iter().filter(|r| r["kernel"] == kernel).collect();
        assert_eq!(of.len(), types * sizes.len(), "{kernel}");
        for r in of {
            assert_sound(r);
            assert_eq!(r["reps"], 2);
            assert!(!r[unit].is_null(), "{unit} in {r}");
            assert!(sizes.contains(&r["size"].as_u64().unwrap()));
        }
    }
    let skips: Vec<_> = results(&run)
        .into_iter()
        .filter(|r| !r["skipped"].is_null())
        .collect();
    assert_eq!(skips.len(), 1, "fill-zva on Device memory is skipped");
    assert_eq!(skips[0]["kernel"], "fill-zva");
    assert_eq!(skips[0]["memtype"], "device-ngnre");
    assert!(skips[0]["skipped"].as_str().unwrap().contains("DC ZVA"));
}

/// Latency runs on the 2 MiB-block alias of every type, plus normal-wb on 4 KiB pages; the
/// non-temporal kernels on the page aliases; every record names its granule.
#[test]
fn latency_on_blocks_and_the_non_temporal_kernels() {
    let run = boot(
        &[],
        &[
            "mairbench.kernels=latency,read-ldnp,write-stnp",
            "mairbench.sizes=2M-4M",
        ],
    );
    run.assert_pass();
    run.assert_memory_proven();
    let results = results(&run);
    let sizes = [2u64 << 20, 4 << 20];
    let rows = |kernel: &str| -> Vec<(String, String)> {
        results
            .iter()
            .filter(|r| r["kernel"] == kernel)
            .map(|r| {
                assert_sound(r);
                assert!(sizes.contains(&r["size"].as_u64().unwrap()), "{r}");
                (
                    r["memtype"].as_str().unwrap().to_owned(),
                    r["granule"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let on = |granule: &str| -> Vec<(String, String)> {
        MEMTYPES
            .iter()
            .map(|(t, _)| (t.to_string(), granule.to_owned()))
            .collect()
    };
    // Size by size: the eight block aliases in memory-type order, then normal-wb's page one.
    let mut latency = on("2M");
    latency.push(("normal-wb".into(), "4K".into()));
    let mut per_size = latency.clone();
    per_size.extend(latency.clone());
    assert_eq!(rows("latency"), per_size);
    for kernel in ["read-ldnp", "write-stnp"] {
        let mut pages = on("4K");
        pages.extend(on("4K"));
        assert_eq!(rows(kernel), pages, "{kernel}");
        for r in results.iter().filter(|r| r["kernel"] == kernel) {
            assert_eq!(
                r["bytes"],
                r["size"].as_u64().unwrap() * r["passes"].as_u64().unwrap()
            );
        }
    }
    let integrity: Vec<_> = run
        .of_kind("check")
        .into_iter()
        .filter(|c| c["name"] == "integrity")
        .collect();
    assert_eq!(integrity.len(), 3);
    assert!(integrity.iter().all(|c| c["ok"] == true));
    // The human latency table marks the page row.
    let table = run
        .console
        .split("\nlatency (")
        .nth(1)
        .expect("the latency table");
    assert!(table.contains("\n  normal-wb (4K) "), "{table}");
    assert!(table.contains("\n  device-gre "), "{table}");
    // Emulated, it says what its steps are (the host's caches, QEMU's software TLB); the
    // streaming tables do not.
    let steps = "\n  (emulated: the steps are the host's caches and QEMU's TLB";
    assert!(table.contains(steps), "{table}");
    assert_eq!(run.console.matches(steps).count(), 1, "{}", run.console);
    assert!(run.console.contains("\nread-ldnp (MB/s"), "{}", run.console);
    assert!(
        run.console.contains("\nwrite-stnp (MB/s"),
        "{}",
        run.console
    );
}

#[test]
fn a_copy_that_does_not_fit_twice_is_skipped_by_size() {
    let run = boot(
        &[],
        &[
            "mairbench.buffer=4M",
            "mairbench.kernels=copy-to",
            "mairbench.sizes=2M-4M",
            "mairbench.types=normal-nc",
        ],
    );
    run.assert_pass();
    let r = results(&run);
    assert_eq!(r.len(), 2);
    assert_sound(r[0]);
    assert_eq!(r[1]["size"], 4 << 20);
    assert!(r[1]["skipped"].as_str().unwrap().contains("twice"));
}

#[test]
fn default_run_covers_every_kernel_and_shows_progress() {
    let run = boot(&[("MAIRBENCH_TIMEOUT", "120")], &[]);
    run.assert_pass();
    let kernels = mairbench_core::kernel::KERNELS.map(|k| k.name);
    let sizes = run
        .console
        .lines()
        .find(|l| l.starts_with("benchmark:"))
        .unwrap()
        .to_owned();
    let count = format!("{} kernels x 8 memory types", kernels.len());
    assert!(sizes.contains(&count), "{sizes}");
    for kernel in kernels {
        let of: Vec<_> = results(&run)
            .into_iter()
            .filter(|r| r["kernel"] == kernel)
            .collect();
        assert!(!of.is_empty(), "{kernel}");
        for r in of.iter().filter(|r| r["skipped"].is_null()) {
            assert_sound(r);
        }
        assert!(
            run.console.contains(&format!("\n{kernel} (")),
            "table of {kernel}"
        );
    }
    // A progress line at least every two seconds of a sweep that takes several.
    assert!(run.console.contains("progress: "), "{}", run.console);
    // docs/runner.md's count of the lines a terminal shows (the human ones) and of all of them.
    let readme = std::fs::read_to_string(common::root().join("docs/runner.md")).unwrap();
    let quoted = |before: &str, after: &str| -> f64 {
        let at = readme
            .find(before)
            .expect("docs/runner.md quotes the line counts")
            + before.len();
        let digits: String = readme[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(char::is_ascii_digit)
            .collect();
        assert!(readme[at..].contains(after));
        digits.parse().unwrap()
    };
    let human = quoted("a default run shows about ", " human lines");
    let all = quoted("human lines instead of some ", " (most of them");
    let lines: Vec<&str> = run.console.lines().collect();
    let records = lines.iter().filter(|l| l.starts_with("@mb ")).count();
    for (what, quoted, counted) in [
        ("human lines", human, lines.len() - records),
        ("lines", all, lines.len()),
    ] {
        let ratio = counted as f64 / quoted;
        assert!(
            (0.8..=1.2).contains(&ratio),
            "docs/runner.md says about {quoted} {what}, the default run printed {counted}"
        );
    }
}

#[test]
fn a_sample_whose_counter_went_backwards_is_dropped_and_named() {
    // The counter-backwards selftest takes the first timed sample's reads as t1 < t0, as a
    // counter erratum would: that sample is dropped, counted in its result record with the
    // reason, and taken again; every other point drops nothing, and the run passes.
    let run = boot(
        &[],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.types=normal-wb,normal-nc",
            "mairbench.selftest=counter-backwards",
        ],
    );
    run.assert_pass();
    let all = results(&run);
    let dropped: Vec<_> = all
        .iter()
        .filter(|r| !r["dropped_samples"].is_null())
        .collect();
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(dropped[0]["dropped_samples"], 1);
    assert_eq!(dropped[0]["dropped_why"], "backwards");
    assert_eq!(dropped[0]["reps"], 3, "the dropped sample is taken again");
    assert_sound(dropped[0]);
    assert!(
        run.console.contains("dropped: the counter went backwards"),
        "{}",
        run.console
    );
    // The timer record names the counter's step and errata (none on QEMU's virt).
    let timer = run.one("timer");
    assert_eq!(timer["counter_step_ticks"], 1, "{timer}");
    assert_eq!(timer["counter_errata"], serde_json::json!([]), "{timer}");
}

#[test]
fn a_point_worse_than_both_neighbours_is_taken_again_after_the_sweep() {
    // The disturb selftest times the first take of one point (the first kernel's first row at
    // the middle size) sixteen times slower, as a host disturbance that hits all of a point's
    // back-to-back reps does (its spread stays small): the point is taken again after the
    // kernel's sweep, apart in time, and the second take replaces the first.
    let run = boot(
        &[],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.types=normal-wb,normal-nc",
            "mairbench.selftest=disturb",
        ],
    );
    run.assert_pass();
    let all = run.of_kind("result");
    // (normal-nc's row, untouched, could show a real disturbance of its own.)
    let again: Vec<_> = all
        .iter()
        .filter(|r| r.get("retake_of").is_some() && r["memtype"] == "normal-wb")
        .collect();
    assert_eq!(again.len(), 1, "{}", run.console);
    let (again, size) = (again[0], &again[0]["size"]);
    let first: Vec<_> = all
        .iter()
        .filter(|r| r["memtype"] == again["memtype"] && &r["size"] == size)
        .collect();
    assert_eq!(first.len(), 2, "a first take, then the second: {first:?}");
    assert_eq!(first[0]["best_mbps"], again["retake_of"]);
    assert_eq!(again["memtype"], "normal-wb");
    assert_eq!(*size, 256 * 1024, "quick's middle size");
    assert_sound(again);
    // The host reads the second take only; the line says why it was taken again.
    let kept: Vec<_> = results(&run)
        .into_iter()
        .filter(|r| &r["size"] == size)
        .collect();
    assert_eq!(kept.len(), 2, "one per type: {kept:?}");
    assert!(kept.contains(again));
    // ... where the first take stood in the sweep's order.
    let wb: Vec<_> = results(&run)
        .into_iter()
        .filter(|r| r["memtype"] == "normal-wb")
        .map(|r| r["size"].as_u64().unwrap())
        .collect();
    assert_eq!(wb, [4 << 10, 256 << 10, 4 << 20]);
    for line in [
        "selftest: this point's first take timed 16x slower",
        "read-ldp on normal-wb (4K) at 256 KiB: taken again, 1.25x worse than both neighbours",
    ] {
        assert!(run.console.contains(line), "{line}: {}", run.console);
    }
}
