//! `cargo host compare A B [--out DIR]`: two logs of one kind compared point by point (the
//! rule: docs/host.md); a firmware log and a twin log of one board: which memory type each
//! Linux source behaves like (docs/twin.md).

use super::{load, print_written, usage, Fail};
use crate::analyse::{classify, compare, report};
use crate::draw::Pair;
use crate::read::model::{self, Run, FIRMWARE_BASELINE, TWIN_BASELINE};
use crate::write;
use std::path::Path;

/// Compares the logs at `a_path` and `b_path`; with `out`, writes the comparison's files.
pub fn run(a_path: &Path, b_path: &Path, out: Option<&Path>) -> Result<(), Fail> {
    let (a, a_failure) = load(a_path)?;
    let (b, b_failure) = load(b_path)?;
    if a.twin != b.twin {
        let ((fw, fw_path), (lx, lx_path)) = if b.twin {
            ((&a, a_path), (&b, b_path))
        } else {
            ((&b, b_path), (&a, a_path))
        };
        classify_logs(fw, fw_path, lx, lx_path, out)?;
        return a_failure.or(b_failure).map_or(Ok(()), Err);
    }
    // Logs of two architectures are compared by row of core's tables, B under A's names.
    let arches = compare::arches(&a, &b);
    let b = match &arches {
        Some(_) => model::named_as(&b, a.arch_tables()),
        None => b,
    };
    let changes = compare::changes(&a, &b);
    let loaded = compare::loaded_changes(&a, &b);
    if changes.is_empty() && loaded.is_empty() && a.verdicts.is_empty() && b.verdicts.is_empty() {
        return Err(usage(format!(
            "{} and {} have no measured point or verdict in common (same kernel, memory type and size).",
            a_path.display(),
            b_path.display()
        )));
    }
    let (label_a, label_b) = compare::labels(a_path, b_path);
    say!(
        "A = {} ({label_a})\n    {}\nB = {} ({label_b})\n    {}\n",
        a_path.display(),
        compare::describe(&a),
        b_path.display(),
        compare::describe(&b)
    );
    if let Some(note) = &arches {
        say!("{note}\n");
    }
    let summaries = print_comparison(&a, &b, &changes);
    let failure = a_failure.or(b_failure);
    let Some(out) = out else {
        return failure.map_or(Ok(()), Err);
    };
    let runs = Pair {
        a: &a,
        b: &b,
        label_a: &label_a,
        label_b: &label_b,
    };
    let written =
        write::compare::files(out, &runs, &changes, &loaded, &summaries).map_err(usage)?;
    print_written(&written);
    failure.map_or(Ok(()), Err)
}

/// Prints the comparison of `a` and `b` (judged `changes`): the verdicts that changed, the
/// overall line, the per-kernel summary, the class shifts, the significant points, the
/// loaded latency; the per-kernel summaries come back for the charts' titles.
fn print_comparison(a: &Run, b: &Run, changes: &[compare::Change]) -> Vec<compare::KernelSummary> {
    let verdicts = compare::verdict_table(a, b);
    if !verdicts.is_empty() {
        say!("{verdicts}");
    }
    let overall = compare::overall(changes);
    if !changes.is_empty() {
        say_raw!("{}", compare::overall_line(&overall));
        say!("");
    }
    let summaries = compare::summary(changes);
    say_raw!("{}", compare::summary_table(&summaries));
    let shifts = compare::class_shift_table(&compare::class_shifts(changes));
    if !shifts.is_empty() {
        say!("");
        say_raw!("{shifts}");
    }
    say!("");
    say_raw!("{}", compare::table(changes));
    let loaded_table = compare::loaded_table(a, b);
    if !loaded_table.is_empty() {
        say!("");
        say_raw!("{loaded_table}");
    }
    if a.emulated || b.emulated {
        say!("\nnote: {}", report::EMULATED_CAVEAT);
    }
    summaries
}

/// The classification of a twin log's sources against a firmware log of the same board.
fn classify_logs(
    fw: &Run,
    fw_path: &Path,
    lx: &Run,
    lx_path: &Path,
    out: Option<&Path>,
) -> Result<(), Fail> {
    let mut c = classify::compare(fw, lx);
    c.firmware_log = fw_path.display().to_string();
    c.linux_log = lx_path.display().to_string();
    if c.points.is_empty() {
        return Err(usage(format!(
            "{} and {} have no bandwidth kernel and size in common (firmware on 4K pages, \
             divided by {FIRMWARE_BASELINE}; twin divided by {TWIN_BASELINE}): nothing to \
             classify.",
            fw_path.display(),
            lx_path.display()
        )));
    }
    if let Some(w) = &c.warning {
        esay!("warning: {w}");
    }
    say_raw!("{}", classify::table(&c));
    let Some(out) = out else {
        return Ok(());
    };
    let written = write::compare::classify(out, &c).map_err(usage)?;
    print_written(&written);
    Ok(())
}
