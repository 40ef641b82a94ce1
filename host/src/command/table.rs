//! `cargo host table LOG… [--out DIR]`: the fleet table, a row per firmware log.

use super::{load, print_written, usage, Fail};
use crate::analyse::{report, table};
use crate::write;
use std::path::{Path, PathBuf};

/// The fleet table of the logs at `paths`; with `out`, its files.
pub fn run(paths: &[PathBuf], out: Option<&Path>) -> Result<(), Fail> {
    if paths.len() < 2 {
        return Err(usage(format!(
            "the fleet table needs two or more logs, not {}.",
            paths.len()
        )));
    }
    let mut rows = Vec::new();
    for path in paths {
        let (run, failure) = load(path)?;
        if run.twin {
            return Err(usage(format!(
                "{} is a mairbench-linux log: the fleet table compares firmware logs.",
                path.display()
            )));
        }
        if let Some(Fail(_, sentence)) = failure {
            esay!("warning: {sentence}");
        }
        rows.extend(table::rows(path, &run));
    }
    say_raw!("{}", table::table(&rows));
    if rows.iter().any(|r| r.emulated) {
        say!("\nnote: {}", report::EMULATED_CAVEAT);
    }
    let Some(out) = out else {
        return Ok(());
    };
    let written = write::table::files(out, &rows).map_err(usage)?;
    print_written(&written);
    Ok(())
}
