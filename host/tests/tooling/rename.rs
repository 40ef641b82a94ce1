//! A memory type renamed and re-encoded in core's table (the lab's extension question 2:
//! slot 1 from `0xcc`, write-back no-allocate, to `0x77`, write-back transient read+write
//! allocate, under another name) leaves core's tests passing: the verdicts, their tests and
//! the other tables ask for memory types by role, never by name. The test copies core (and
//! the documents its tests read) to a scratch workspace, edits the row, and runs core's unit
//! tests and its test files that name a memory type there, offline (cold: 47 s, where all of
//! core's 22 test binaries took 68 s).

use crate::common;
use mairbench_core::memtype::MEMTYPES;
use std::path::Path;
use std::process::Command;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            if entry.file_name() != "target" {
                copy_tree(&src, &dst);
            }
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

#[test]
fn a_renamed_memory_type_keeps_cores_tests_passing() {
    let root = common::root();
    // Its own target directory: a copy of core at the same path within its workspace gets
    // the same artifact names as the workspace's own, which it must not overwrite.
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), Into::into);
    let scratch = target.join("rename-workspace");
    let _ = std::fs::remove_dir_all(&scratch);
    for dir in ["crates/core", "docs", "boot", "qemu"] {
        copy_tree(&root.join(dir), &scratch.join(dir));
    }
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock")).unwrap();
    // The workspace's profiles too: core's tests run optimised, as they do at home.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let profiles = manifest.find("[profile.").map_or("", |at| &manifest[at..]);
    std::fs::write(
        scratch.join("Cargo.toml"),
        format!(
            "[workspace]\nmembers = [\"crates/core\"]\nresolver = \"2\"\n\n\
             [workspace.package]\nedition = \"2021\"\nlicense = \"MIT OR Apache-2.0\"\n\n\
             {profiles}"
        ),
    )
    .unwrap();
    let table = scratch.join("crates/core/src/memtype.rs");
    let text = std::fs::read_to_string(&table).unwrap();
    let row = "        name: \"normal-wb-noalloc\",\n        index: 1,\n        mair: 0xcc,";
    assert!(
        text.contains(row),
        "slot 1 of the table is not what the lab says"
    );
    let edited = text
        .replace(
            row,
            "        name: \"normal-wb-transient\",\n        index: 1,\n        mair: 0x77,",
        )
        .replace(
            "summary: \"Normal, inner+outer write-back non-transient, no allocate\",",
            "summary: \"Normal, inner+outer write-back transient, read+write allocate\",",
        );
    std::fs::write(&table, edited).unwrap();

    let host = String::from_utf8(Command::new("rustc").arg("-vV").output().unwrap().stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .unwrap();
    // Core's unit tests, and those of its test files that name a memory type or its module:
    // the others (the device-tree and ACPI mutations, the UARTs, ...) cannot meet the name,
    // and building their 20 binaries took most of this test's minute.
    let mut args: Vec<String> = ["test", "--offline", "--quiet", "-p", "mairbench-core"]
        .map(String::from)
        .to_vec();
    args.extend(["--target".into(), host, "--lib".into()]);
    let names_a_type =
        |text: &str| text.contains("memtype") || MEMTYPES.iter().any(|t| text.contains(t.name));
    let mut files: Vec<_> = std::fs::read_dir(root.join("crates/core/tests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| names_a_type(&std::fs::read_to_string(p).unwrap()))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no test file of core names a memory type"
    );
    for f in files {
        args.extend([
            "--test".into(),
            f.file_stem().unwrap().to_string_lossy().into_owned(),
        ]);
    }
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&scratch)
        .args(&args)
        .env("CARGO_TARGET_DIR", target.join("rename"))
        // The scratch copy's generated tables (docs/memory-types.md's rows among them) are
        // rewritten with the new name, not compared with the old.
        .env("MAIRBENCH_BLESS", "1")
        .output()
        .expect("cargo runs");
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "core's tests with the renamed type:\n{said}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
