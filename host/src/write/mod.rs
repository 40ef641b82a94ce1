//! The files each command writes into its output directory, and the charts it could not
//! draw: [`Written`] keeps the list the command prints; a module per command that writes
//! files says which ones.

use std::path::{Path, PathBuf};

pub mod compare;
pub mod report;
pub mod table;
pub mod verdicts;

/// The files a report wrote, and the charts it could not draw.
#[derive(Debug, Default)]
pub struct Written {
    /// Paths written, in order.
    pub files: Vec<PathBuf>,
    /// One line per chart that failed.
    pub warnings: Vec<String>,
}

impl Written {
    /// Writes `contents` to `dir/name` and records it.
    pub fn file(&mut self, dir: &Path, name: &str, contents: &str) -> Result<(), String> {
        let path = dir.join(name);
        std::fs::write(&path, contents)
            .map_err(|e| format!("cannot write {}: {e}.", path.display()))?;
        self.files.push(path);
        Ok(())
    }

    /// Writes `value` to `dir/name` as pretty-printed JSON with a final newline, and records
    /// it.
    pub fn json(
        &mut self,
        dir: &Path,
        name: &str,
        value: &serde_json::Value,
    ) -> Result<(), String> {
        let text = serde_json::to_string_pretty(value).unwrap_or_default();
        self.file(dir, name, &(text + "\n"))
    }

    /// Writes a chart, or notes why there is none.
    pub fn chart(
        &mut self,
        dir: &Path,
        name: &str,
        svg: Result<String, String>,
    ) -> Result<(), String> {
        match svg {
            Ok(svg) => self.file(dir, name, &svg),
            Err(e) => {
                self.warnings.push(format!("no {name}: {e}"));
                Ok(())
            }
        }
    }
}

/// Creates the output directory `dir` (and its parents) when missing; the error is one
/// sentence.
pub fn create(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the output directory {}: {e}.", dir.display()))
}
