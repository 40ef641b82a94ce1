//! The other CPUs of `/cpus`: each is started (PSCI CPU_ON, or released from its spin table),
//! then either says `hello` or gets a `cpu` record saying why it is not running, which is a
//! warning. Spin-table CPUs are released first, with the MMU still off (they then wait for
//! the boot CPU's tables); PSCI ones once the tables exist. All are waited for together, so
//! a silent CPU costs one wait, not one each.

use crate::arch::smp::{self, Method, NotStarted};
use crate::arch::Psci;
use crate::bench::Cores;
use crate::console::Console;
use crate::{run, say};
use mairbench_core::platform::{Enable, Platform, MAX_CPUS};
use mairbench_core::record::Record;
use mairbench_core::schema;

/// How long the started CPUs have, together, to say hello.
const START_WAIT_NS: u64 = 1_000_000_000;
/// The CPU `mairbench.selftest=missing-cpu` asks PSCI for: no board has it.
const MISSING_MPIDR: u64 = 0xff00;

/// One CPU to start, on its stack block.
#[derive(Clone, Copy, Debug)]
struct Target {
    mpidr: u64,
    enable: Enable,
    block: usize,
}

/// The secondary CPUs of one run: every CPU of `/cpus` but the boot CPU, in device-tree
/// order, then the selftest's missing one; block `i + 1` for the `i`th.
pub struct Plan<'p> {
    platform: &'p Platform<'p>,
    psci: Psci,
    boot_mpidr: u64,
    ask_missing: bool,
    /// Per stack block: what releasing a spin-table CPU into it gave.
    released: [Option<Result<(), NotStarted>>; MAX_CPUS],
}

impl<'p> Plan<'p> {
    /// The plan for `platform`, whose boot CPU has MPIDR `boot_mpidr`; `psci` says whether
    /// its PSCI conduit may be called from here.
    pub fn new(platform: &'p Platform<'p>, psci: Psci, boot_mpidr: u64, ask_missing: bool) -> Self {
        Plan {
            platform,
            psci,
            boot_mpidr: boot_mpidr & smp::AFFINITY,
            ask_missing,
            released: [None; MAX_CPUS],
        }
    }

    /// Releases the spin-table CPUs; must run while the MMU is still off.
    pub fn release_spin_tables(&mut self) {
        let mut released = self.released;
        for t in self.targets() {
            if let (Enable::SpinTable { release }, Some(slot)) =
                (t.enable, released.get_mut(t.block))
            {
                *slot = Some(smp::release(t.mpidr, t.block, release));
            }
        }
        self.released = released;
    }

    fn targets(&self) -> impl Iterator<Item = Target> + Clone + '_ {
        let boot = self.boot_mpidr;
        let listed = self.platform.cpus().iter().filter(move |c| c.mpidr != boot);
        let missing = self.ask_missing.then_some((MISSING_MPIDR, Enable::Psci));
        listed
            .map(|c| (c.mpidr, c.enable))
            .chain(missing)
            .take(smp::SECONDARY_BLOCKS)
            .enumerate()
            .map(|(i, (mpidr, enable))| Target {
                mpidr,
                enable,
                block: i + 1,
            })
    }

    /// How many secondary CPUs will be started (their stacks must be mapped).
    pub fn secondaries(&self) -> usize {
        self.targets().count()
    }

    /// Starts them all, waits for them together, and reports each; returns those running.
    pub fn start(&self, boot_midr: u64, entry_el: u64) -> Cores {
        let mut cores = Cores::default();
        hello(0, self.boot_mpidr, boot_midr, entry_el);
        let mut launched: [Option<Method>; MAX_CPUS] = [None; MAX_CPUS];
        for t in self.targets() {
            let method = match (t.enable, self.psci) {
                (Enable::Psci, Psci::Usable(conduit)) => Method::Psci(conduit),
                (Enable::SpinTable { release }, _) => Method::SpinTable { release },
                (Enable::Psci, Psci::Absent) => {
                    not_started(t.mpidr, format_args!("no PSCI conduit in the device tree"));
                    continue;
                }
                (Enable::Psci, Psci::Unusable(conduit, _)) => {
                    let why = format_args!("PSCI over {} is unusable from here", conduit.name());
                    not_started(t.mpidr, why);
                    continue;
                }
                (Enable::SpinTableWithoutAddress, _) => {
                    let why = format_args!("spin-table without a usable cpu-release-addr");
                    not_started(t.mpidr, why);
                    continue;
                }
                (Enable::Other, _) => {
                    let why = format_args!("no enable-method the firmware knows");
                    not_started(t.mpidr, why);
                    continue;
                }
            };
            let started = match method {
                Method::SpinTable { .. } => self.released.get(t.block).copied().flatten(),
                Method::Psci(_) => Some(smp::launch(method, t.mpidr, t.block)),
            };
            match started.unwrap_or(Err(NotStarted::BadRelease)) {
                Ok(()) => launched[t.block] = Some(method),
                Err(e) => not_started(t.mpidr, format_args!("{}", Why(e, method))),
            }
        }
        let pending = self
            .targets()
            .filter_map(|t| Some((t, launched.get(t.block).copied().flatten()?)));
        smp::wait_online(pending.clone().map(|(t, _)| t.block), START_WAIT_NS);
        for (t, method) in pending {
            match smp::online(t.block) {
                Some(up) => {
                    hello(t.block as u64, up.mpidr, up.midr, up.entry_el);
                    cores.add(t.block);
                }
                None => not_started(t.mpidr, format_args!("{}", Why(NotStarted::Silent, method))),
            }
        }
        let beyond = self.platform.cpus_beyond_cap;
        if beyond > 0 {
            run::warn("cpus-beyond-cap");
            say!("cpus: {beyond} more CPUs in /cpus beyond the firmware's {MAX_CPUS}: not started");
        }
        say!(
            "cpus: {} of {} running at EL1",
            cores.count() + 1,
            (self.platform.cpus().len() + beyond).max(1)
        );
        cores
    }
}

/// Why a CPU is not running, in words.
struct Why(NotStarted, Method);

impl core::fmt::Display for Why {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let how = match self.1 {
            Method::Psci(_) => "PSCI CPU_ON",
            Method::SpinTable { .. } => "the spin-table release",
        };
        match self.0 {
            NotStarted::Refused(code) => write!(f, "{how} returned {code}"),
            NotStarted::Trapped => write!(f, "{how} trapped"),
            NotStarted::Silent => {
                write!(f, "started but silent for {} ms", START_WAIT_NS / 1_000_000)
            }
            NotStarted::NoStack => write!(f, "more CPUs than the firmware mapped stacks for"),
            NotStarted::BadRelease => write!(
                f,
                "its cpu-release-addr is not writable here (unmapped, or inside the image)"
            ),
        }
    }
}

/// A `hello` record: a CPU running at EL1.
fn hello(cpu: u64, mpidr: u64, midr: u64, entry_el: u64) {
    let _ = Record::new(&mut Console, &schema::HELLO)
        .u64("cpu", cpu)
        .hex("mpidr", mpidr)
        .u64("el", 1)
        .u64("entry_el", entry_el)
        .hex("midr", midr)
        .finish();
}

/// A `cpu` record and a warning: a CPU of `/cpus` that is not running.
fn not_started(mpidr: u64, why: core::fmt::Arguments<'_>) {
    run::warn("cpu");
    say!("cpu {mpidr:#x}: not started: {why}");
    let _ = Record::new(&mut Console, &schema::CPU)
        .hex("mpidr", mpidr)
        .bool("started", false)
        .fmt("why", why)
        .finish();
}
