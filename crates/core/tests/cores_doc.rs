//! Core's table of cores where others restate it: `docs/bringup.md`'s generated part (between
//! the markers) is what `cores::write_markdown` renders (`MAIRBENCH_BLESS=1` rewrites it), and
//! the parts for which boot/aarch64/entry.S sets CPUECTLR_EL1.SMPEN at EL3 are the table's rows
//! with `smpen`.

mod generated;

use mairbench_core::cores::{self, CORES};

#[test]
fn bringup_md_holds_the_table_of_cores() {
    let mut table = String::new();
    cores::write_markdown(&mut table).unwrap();
    generated::check(
        "docs/bringup.md",
        "cores",
        &table,
        "crates/core/src/cores.rs",
        "cores_doc",
    );
    assert_eq!(table.lines().count(), 2 + cores::all().count());
}

#[test]
fn the_entry_code_sets_smpen_on_the_tables_cores() {
    let asm = generated::read("boot/aarch64/entry.S");
    // `cmp x1, #0xd03 // smpen: Cortex-A53` lines of the EL3 path.
    let listed: Vec<(u16, String)> = asm
        .lines()
        .filter_map(|l| {
            let (code, comment) = l.split_once("// smpen: ")?;
            let part = code.trim().strip_prefix("cmp")?.split("#0x").nth(1)?.trim();
            Some((
                u16::from_str_radix(part, 16).ok()?,
                comment.trim().to_owned(),
            ))
        })
        .collect();
    let table: Vec<(u16, String)> = CORES
        .iter()
        .filter(|c| c.smpen.is_some())
        .map(|c| (c.part, c.name.to_owned()))
        .collect();
    assert_eq!(
        listed, table,
        "boot/aarch64/entry.S's SMPEN parts vs crates/core/src/cores.rs"
    );
    assert!(CORES
        .iter()
        .filter(|c| c.smpen.is_some())
        .all(|c| c.implementer == 0x41));
}
