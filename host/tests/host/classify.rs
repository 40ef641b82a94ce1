//! `cargo host compare FIRMWARE_LOG LINUX_LOG` on two real QEMU 10 logs of one machine (the
//! firmware's and mairbench-linux's in a real Linux boot, `tests/data/qemu10-*-4k-64k.log`),
//! and `cargo host report` on the twin's log. QEMU models no caches, so these tests assert
//! what the classifier must make of QEMU's one visible difference (TCG's slow path for
//! Device pages): the BAR mapped as Device lands in the Device group, the write-combining
//! one and udmabuf in the Normal group, each labelled with what Linux documents, every row
//! says "emulated", and `anon`, the twin's reference, is marked so, not classified.

use crate::common::tool::{self, data, Done};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

const FIRMWARE: &str = "qemu10-firmware-4k-64k.log";
const LINUX: &str = "qemu10-linux-4k-64k.log";
const NORMAL: [&str; 4] = ["normal-wb", "normal-wb-noalloc", "normal-wt", "normal-nc"];
const DEVICE: [&str; 4] = ["device-ngnrne", "device-ngnre", "device-ngre", "device-gre"];

fn scratch(name: &str) -> PathBuf {
    tool::scratch("classify", name)
}

/// The words of the table row of `source` (the line starting with it).
fn row<'d>(d: &'d Done, source: &str) -> Vec<&'d str> {
    d.stdout
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{source} ")))
        .unwrap_or_else(|| panic!("no row for {source}:\n{}", d.stdout))
        .split_whitespace()
        .collect()
}

fn host(args: &[&Path], test: &str) -> Done {
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let done = tool::run("classify", &args, test);
    assert!(!done.stderr.contains("panicked"), "{}", done.stderr);
    done
}

fn compare(a: &Path, b: &Path, test: &str) -> Done {
    host(&[Path::new("compare"), a, b], test)
}

/// The twin fixture with `edit` applied to its text, written to a scratch file.
fn edited_twin(test: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let text = std::fs::read_to_string(data(LINUX)).unwrap();
    let path = scratch(&format!("{test}-in")).join("twin.log");
    std::fs::write(&path, edit(&text)).unwrap();
    path
}

/// The table rows and classify.json agree on the classification of the QEMU pair.
fn assert_qemu_classification(d: &Done) {
    assert_eq!(d.code, Some(0), "{}\n{}", d.stdout, d.stderr);
    let json = d.json("classify.json");
    assert_eq!(json["emulated"], true);
    assert_eq!(
        json["groups"],
        serde_json::json!([NORMAL, DEVICE]),
        "{json}"
    );
    // The eight bandwidth kernels at 4 KiB to 64 KiB.
    assert_eq!(json["points"].as_array().unwrap().len(), 40, "{json}");
    let all = json["sources"].as_array().unwrap();
    // anon, the reference: every source is divided by it, so it is not classified.
    let anon = &all[0];
    assert_eq!(
        (&anon["source"], &anon["status"], &anon["points"]),
        (
            &serde_json::json!("anon"),
            &serde_json::json!("reference"),
            &serde_json::json!(40)
        ),
        "{anon}"
    );
    for key in ["label", "confidence", "agrees", "agreement"] {
        assert!(anon[key].is_null(), "{key}: {anon}");
    }
    let sources: Vec<&serde_json::Value> = all.iter().skip(1).collect();
    assert!(
        sources.iter().all(|s| s["status"] == "classified"),
        "{json}"
    );
    let seen: Vec<(&str, &str, usize)> = sources
        .iter()
        .map(|s| {
            let group = s["group"].as_array().unwrap();
            let device = group.iter().all(|t| DEVICE.contains(&t.as_str().unwrap()));
            let normal = group.iter().all(|t| NORMAL.contains(&t.as_str().unwrap()));
            assert!(device != normal, "{s}");
            (
                s["source"].as_str().unwrap(),
                s["label"].as_str().unwrap(),
                if device { 2 } else { 1 },
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("udmabuf", "normal-wb", 1),
            ("pci:0000:00:01.0:res2", "device-ngnre", 2),
            ("pci:0000:00:01.0:res2_wc", "normal-nc", 1),
        ]
    );
    for s in &sources {
        assert_eq!(s["agrees"], true, "{s}");
        assert_eq!(s["points"], 40, "{s}");
        assert_eq!(s["group"].as_array().unwrap().len(), 4, "{s}");
        let c = s["confidence"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&c), "{s}");
    }
    // The terminal table says the same, every confidence "emulated (NN %)".
    for (source, label, group) in seen {
        let row = row(d, source);
        assert_eq!(row[1..3], [label, &group.to_string()], "{row:?}");
        let at = row.iter().position(|w| *w == "emulated").unwrap();
        assert!(
            row[at + 1].starts_with('(') && row[at + 2] == "%)",
            "{row:?}"
        );
        assert!(row.contains(&"yes"), "{row:?}");
    }
    assert_eq!(
        row(d, "anon"),
        [
            "anon",
            "reference",
            "-",
            "-",
            "40",
            "-",
            "normal-wb",
            "-",
            "-"
        ]
    );
    assert!(
        d.stdout.contains(
            "\n  anon: the reference, not classified; every source is measured relative to it, \
             as every memory type is to normal-wb (so it is taken to be normal-wb, as Linux \
             documents)\n"
        ),
        "{}",
        d.stdout
    );
    // The fixtures' start records say mairbench.host= (qemu/run, TCG).
    assert!(
        d.stdout
            .contains("\nemulated: TCG (QEMU without KVM) does not model caches"),
        "{}",
        d.stdout
    );
    assert_eq!(json["tcg"], true);
    assert!(
        d.stdout
            .contains("  2: device-ngnrne, device-ngnre, device-ngre, device-gre\n"),
        "{}",
        d.stdout
    );
    let csv = d.file("classify.csv");
    assert!(
        csv.lines().any(|l| l.starts_with(
            "pci:0000:00:01.0:res2,classified,device-ngnre,\
             device-ngnrne device-ngnre device-ngre device-gre,"
        )),
        "{csv}"
    );
    assert!(
        csv.contains("\nanon,reference,,,,,,,40,,,true,normal-wb,"),
        "{csv}"
    );
    // The header, the reference, three classified sources, three refused.
    assert_eq!(csv.lines().count(), 8, "{csv}");
}

#[test]
fn qemu_pair_classifies_bars_as_device_and_write_combining() {
    let d = compare(&data(FIRMWARE), &data(LINUX), "firmware-first");
    assert_qemu_classification(&d);
    assert!(d
        .stdout
        .contains(&format!("firmware: {}", data(FIRMWARE).display())));
}

#[test]
fn either_order() {
    let d = compare(&data(LINUX), &data(FIRMWARE), "linux-first");
    assert_qemu_classification(&d);
    assert!(d
        .stdout
        .contains(&format!("linux: {}", data(LINUX).display())));
    let first = compare(&data(FIRMWARE), &data(LINUX), "order-check");
    assert_eq!(
        d.json("classify.json")["sources"],
        first.json("classify.json")["sources"]
    );
}

/// The twin's log holds its refused sources: the missing `/dev/dma_heap` and `/dev/dri`, and
/// `/dev/mem` on RAM (STRICT_DEVMEM).
#[test]
fn refused_sources_are_listed_not_classified() {
    let d = compare(&data(FIRMWARE), &data(LINUX), "refused");
    assert_eq!(d.code, Some(0), "{}\n{}", d.stdout, d.stderr);
    let listed: Vec<Vec<&str>> = d
        .stdout
        .lines()
        .skip_while(|l| *l != "not classified:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        listed,
        [
            vec!["dma-heap:*", "ENOENT", "list", "/dev/dma_heap"],
            vec!["drm-dumb:*", "ENOENT", "list", "/dev/dri"],
            vec!["devmem:0x40000000+64K", "EPERM", "mmap"]
        ],
        "{}",
        d.stdout
    );
    let json = d.json("classify.json");
    assert_eq!(json["refused"][0]["error"], "ENOENT");
    assert_eq!(json["sources"].as_array().unwrap().len(), 4);
    assert!(d
        .file("classify.csv")
        .contains("\ndma-heap:*,refused,,,,,,,0,,,true,,,,ENOENT,list /dev/dma_heap\n"));
}

#[test]
fn logs_of_two_boards_are_warned_about() {
    let twin = edited_twin("boards", |t| {
        t.replace("\"midr\":\"0x410fd083\"", "\"midr\":\"0x410fd034\"")
    });
    let d = compare(&data(FIRMWARE), &twin, "boards");
    assert_eq!(d.code, Some(0));
    let warning = "warning: the two logs are from different boards (MIDR 0x410fd083 vs \
                   0x410fd034): the comparison only means something on one board";
    assert!(d.stdout.contains(warning), "{}", d.stdout);
    assert!(d.stderr.contains(warning), "{}", d.stderr);
}

#[test]
fn report_of_a_twin_log_is_keyed_by_source() {
    let d = host(&[Path::new("report"), &data(LINUX)], "report");
    assert_eq!(d.code, Some(0), "{}\n{}", d.stdout, d.stderr);
    let first = d.stdout.lines().next().unwrap();
    assert_eq!(
        first,
        "mairbench-linux 0.1.0 on Linux 6.12.95+deb12-arm64 aarch64 (linux,dummy-virt, MIDR \
         0x410fd083), emulated; status pass"
    );
    assert_eq!(
        row(&d, "pci:0000:00:01.0:res2_wc")[1..],
        [
            "64",
            "KiB",
            "mapped",
            "(mmap",
            "of",
            "/sys/bus/pci/devices/0000:00:01.0/resource2_wc)"
        ]
    );
    assert!(
        d.stdout.contains(
            "  source                      4 KiB  8 KiB  16 KiB  32 KiB  64 KiB   vs anon\n"
        ),
        "{}",
        d.stdout
    );
    // read-ldp at 64 KiB: 1126 / 13557 MB/s.
    let res2 = d
        .stdout
        .lines()
        .find(|l| l.starts_with("  pci:0000:00:01.0:res2  ") && l.ends_with('x'))
        .unwrap();
    assert!(res2.ends_with("1126    0.083x"), "{res2}");
    let csv = d.file("results.csv");
    assert!(csv.starts_with("kernel,source,granule,"), "{csv}");
    assert!(csv.contains("\nread-ldp,pci:0000:00:01.0:res2,4K,4096,mbps,945,943,"));
    let json = d.json("results.json");
    assert_eq!(json["kernel"], "Linux 6.12.95+deb12-arm64");
    assert_eq!(json["machine"], "aarch64");
    assert_eq!(json["baseline"], "anon");
    // anon, udmabuf, dma-heap:*, res2, res2_wc, drm-dumb:*, devmem.
    assert_eq!(json["sources"].as_array().unwrap().len(), 7);
    assert_eq!(json["sources"][1]["size_bytes"], 65536);
    assert_eq!(json["measurements"][0]["source"], "anon");
    assert!(json["measurements"][0].get("memtype").is_none());
    let svg = d.file("ratio-read-ldp-write-stp.svg");
    let texts: Vec<&str> = svg.lines().map(str::trim).collect();
    assert!(texts.contains(&"source"), "the legend's heading");
    assert!(texts.contains(&"pci:0000:00:01.0:res2_wc"));
    assert!(svg.contains("ratio to anon"));
}

#[test]
fn truncated_twin_log_is_a_clear_error() {
    let text = std::fs::read_to_string(data(LINUX)).unwrap();
    // Cut in the middle of the res2_wc source record.
    let cut = text
        .find("\"source\":\"pci:0000:00:01.0:res2_wc\",\"size\"")
        .unwrap();
    let path = scratch("truncated-in").join("twin.log");
    std::fs::write(&path, &text[..cut]).unwrap();
    let d = host(&[Path::new("report"), &path], "truncated");
    assert_eq!(d.code, Some(1), "{}\n{}", d.stdout, d.stderr);
    let last = d.stderr.lines().last().unwrap();
    assert!(
        last.contains("the run is truncated: the log ends with a record cut short"),
        "{last}"
    );
    assert!(
        d.stdout.contains("status none (no end record)"),
        "{}",
        d.stdout
    );
    assert!(d.file("results.csv").contains("pci:0000:00:01.0:res2,"));
    // And compared: the classification is still printed, and the status says truncated.
    let c = compare(&data(FIRMWARE), &path, "truncated-compare");
    assert_eq!(c.code, Some(1), "{}\n{}", c.stdout, c.stderr);
    assert_eq!(row(&c, "pci:0000:00:01.0:res2")[1], "device-ngnre");
    assert!(c.stderr.contains("truncated"), "{}", c.stderr);
}

#[test]
fn two_twin_logs_are_compared_point_by_point() {
    let d = compare(&data(LINUX), &data(LINUX), "twin-twin");
    assert_eq!(d.code, Some(0), "{}\n{}", d.stdout, d.stderr);
    assert!(!d.stdout.contains("board groups"), "{}", d.stdout);
    assert!(d.file("compare.csv").contains("\nread-ldp,anon,4096,mbps,"));
}
