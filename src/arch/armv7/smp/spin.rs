//! Spin tables are arm64's boot protocol: a 32-bit board starts its CPUs through PSCI or a
//! SoC's own registers (here the BCM2836's mailboxes: [`super::mailbox`]).

pub use super::mailbox::release_mailbox;
use super::start::NotStarted;

/// Refuses: no spin-table release on 32-bit Arm.
pub fn release(_mpidr: u64, _block: usize, _release: u64) -> Result<(), NotStarted> {
    Err(NotStarted::BadRelease)
}
