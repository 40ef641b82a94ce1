//! Property tests: parsing never panics on arbitrary bytes or on real logs damaged at
//! random, and neither do the report and comparison built from whatever was parsed.

use mairbench_host::analyse::{compare, report};
use mairbench_host::read::log;
use proptest::prelude::*;
use std::path::Path;

fn golden(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// A real log with a few byte-level edits: overwrite, delete or insert a byte, or cut. The
/// kernels log (results of six kernels) or the two-CPU log (scaling, loaded latency, hello
/// registers, verdicts).
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        damaged(golden("qemu-kernels.log")),
        damaged(golden("qemu-smp.log"))
    ]
}

fn damaged(log: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let len = log.len();
    prop::collection::vec((0..len, 0u8..4, any::<u8>()), 1..24).prop_map(move |edits| {
        let mut bytes = log.clone();
        for (at, how, byte) in edits {
            let at = at % (bytes.len() + 1);
            match how {
                0 if at < bytes.len() => bytes[at] = byte,
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                2 => bytes.insert(at, byte),
                _ => bytes.truncate(at.max(len / 2)),
            }
        }
        bytes
    })
}

/// Bytes that look like records more often than pure noise does.
fn recordish() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            Just(b"@mb ".to_vec()),
            Just(
                b"{\"kind\":\"result\",\"memtype\":\"a\",\"kernel\":\"latency\",\"size\":".to_vec()
            ),
            Just(b"\"ns_per_load\":1e308,\"median_ns_per_load\":-0,".to_vec()),
            Just(b"{\"kind\":\"start\",\"schema\":1}".to_vec()),
            Just(b"\r\n\x1b[".to_vec()),
            prop::collection::vec(any::<u8>(), 0..16),
        ],
        0..32,
    )
    .prop_map(|parts| parts.concat())
}

fn exercise(bytes: &[u8]) {
    let parsed = log::parse(bytes);
    let _ = log::verdict(&parsed, "x.log");
    let run = &parsed.run;
    let _ = report::tables(run);
    let _ = report::csv(run);
    let _ = report::json(run);
    let _ = report::loaded_latency_csv(run);
    let _ = report::pmu_csv(run);
    let changes = compare::changes(run, &log::parse(&golden("qemu-quick.log")).run);
    let _ = compare::table(&changes);
    let _ = compare::csv(&changes);
    let smp = log::parse(&golden("qemu-smp.log")).run;
    let loaded = compare::loaded_changes(run, &smp);
    let _ = compare::loaded_csv(&loaded);
    let _ = compare::loaded_table(run, &smp);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        exercise(&bytes);
    }

    #[test]
    fn recordish_bytes_never_panic(bytes in recordish()) {
        exercise(&bytes);
    }

    #[test]
    fn mutated_logs_never_panic(bytes in mutated()) {
        exercise(&bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// The whole writer, charts included, on damaged real logs.
    #[test]
    fn report_files_from_mutated_logs(bytes in mutated()) {
        let run = log::parse(&bytes).run;
        let dir = std::env::temp_dir().join(format!("mairbench-host-props-{}", std::process::id()));
        let written = mairbench_host::write::report::files(&run, &dir);
        prop_assert!(written.is_ok(), "{written:?}");
    }
}
