//! `cargo host verdicts LOG [--out DIR]`: the log's verdicts judged again with today's logic
//! (docs/verdicts.md).

use super::{print_written, usage, Fail};
use crate::analyse::verdicts::{rejudge, Rejudged};
use crate::read::log;
use crate::write;
use mairbench_core::verdict::Status;
use std::path::Path;

/// Judges the log at `path` again, prints today's verdicts, the inputs the log lacks and
/// where today's judgement differs; with `out`, writes `verdicts.json` there. Status 1 when
/// a verdict fails today.
pub fn run(path: &Path, out: Option<&Path>) -> Result<(), Fail> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| usage(format!("cannot read {name}: {e}.")))?;
    if log::parse(&bytes).start_line.is_none() && !bytes.windows(4).any(|w| w == b"@mb ") {
        return Err(usage(format!("{name} holds no mairbench records.")));
    }
    let r = rejudge(&bytes);
    let v = &r.verdicts;
    say!("verdicts of {name}, judged again from its records:");
    say!(
        "verdicts: {} pass, {} warn, {} fail, {} n/a",
        v.count(Status::Pass),
        v.count(Status::Warn),
        v.count(Status::Fail),
        v.count(Status::NotApplicable)
    );
    // Each sentence in the names of the log's architecture.
    let said = |text: &dyn std::fmt::Display| r.said(&text.to_string());
    for verdict in v.iter() {
        say!("  {}", said(verdict));
        if let Some(note) = verdict.core_note {
            say!("    core: {}", said(&note));
        }
    }
    for c in &r.clusters {
        let count = |s: Status| c.verdicts.iter().filter(|v| v.status == s).count();
        say!(
            "\ncluster {} verdicts (its own sweep; judged per cluster): {} pass, {} warn, {} fail, {} n/a",
            c.index,
            count(Status::Pass),
            count(Status::Warn),
            count(Status::Fail),
            count(Status::NotApplicable)
        );
        for verdict in &c.verdicts {
            say!("  {}", said(verdict));
            if let Some(note) = verdict.core_note {
                say!("    core: {}", said(&note));
            }
        }
    }
    if !r.missing.is_empty() {
        say!("\ninputs the log lacks:");
        for m in &r.missing {
            say!("  - {}", said(m));
        }
    }
    print_differences(&r);
    if let Some(out) = out {
        let written = write::verdicts::files(out, &r).map_err(usage)?;
        print_written(&written);
    }
    if r.must_fail() {
        let clusters = r.clusters.iter().flat_map(|c| {
            c.verdicts
                .iter()
                .filter(|v| v.status == Status::Fail)
                .map(move |v| format!("{} (cluster {})", v.name.id(), c.index))
        });
        let failing: Vec<String> = v
            .named(Status::Fail)
            .map(str::to_owned)
            .chain(clusters)
            .collect();
        return Err(Fail(1, format!("failing today: {}.", failing.join(", "))));
    }
    Ok(())
}

/// Where today's judgement differs from the log's own verdict records.
fn print_differences(r: &Rejudged) {
    let diff = r.differences();
    if r.logged.is_empty() {
        say!("\nthe log has no verdict records to compare with");
    } else if diff.is_empty() {
        say!("\ntoday's judgement agrees with the log's verdict records");
    } else {
        say!("\nwhere today's judgement differs from the log's verdict records:");
        for (id, logged, today) in &diff {
            match logged {
                Some((status, why)) => say!("  {id}: the log: {status}: {why}\n    today: {today}"),
                None => say!("  {id}: not in the log\n    today: {today}"),
            }
        }
    }
}
