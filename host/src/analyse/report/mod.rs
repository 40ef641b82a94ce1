//! The report of one run (`cargo host report`): summary tables for the terminal (per kernel,
//! the multi-core scaling, the loaded latency, the prediction sheet) and the contents of its
//! files (`results.csv`, `results.json`, `scaling.csv`, `loaded_latency.csv`, `pmu.csv`);
//! `write::report` writes them, with the charts, into an output directory.

pub mod cells;
pub mod clusters;
pub mod files;
pub mod notes;
pub mod sections;
pub mod tables;
#[cfg(test)]
pub(crate) mod testing;
pub mod twin;

pub use cells::ratio_to_baseline;
pub use clusters::core_to_core_csv;
pub use files::{csv, json, loaded_latency_csv, pmu_csv, scaling_csv, verdicts_json};
pub use notes::{EMULATED_CAVEAT, EMULATED_STEPS, KVM_NOTE};
pub use sections::{prediction_sheet, skew_label};
pub use tables::{tables, verdict_table};
pub use twin::twin_diagnosis;
