//! The other CPUs of `/cpus`: each is started (PSCI CPU_ON, or released from its spin table or,
//! on 32-bit Arm, its BCM2836 mailbox), then either says `hello` or gets a `cpu` record saying
//! why it is not running, which is a warning. Spin-table and mailbox CPUs are released first,
//! with the MMU still off (they then wait for the boot CPU's tables); PSCI ones once the
//! tables exist. All are waited for together, so
//! a silent CPU costs one wait, not one each.
//!
//! Then the SMP configuration is checked: each running CPU's SCTLR_EL1, MAIR_EL1, TCR_EL1
//! and TTBR0_EL1 against the boot CPU's (check `smp-registers`), and tokens exchanged through
//! shared Normal write-back lines without cache maintenance (check `smp-shared-line`): only
//! hardware coherence in the Inner Shareable domain carries them, so a wrong token means the
//! SMP set-up is broken (cores outside coherence: SMPEN/CPUECTLR, shareability, attributes
//! that differ between cores). [`SmpEvidence`] keeps the result for the verdict, [`Cores`]
//! the CPUs running, for the multi-core measurements (and for `main`'s next check, each CPU's
//! counter against the boot CPU's: [`crate::counters`], check `smp-counters`).

use crate::arch::boot::Psci;
use crate::arch::smp::jobs::{exchange_tokens, shared_word};
use crate::arch::smp::start::{self, Method, NotStarted, Regs};
use crate::arch::smp::{self, SECONDARY_BLOCKS};
use crate::console::Console;
use crate::{run, say};
use core::sync::atomic::Ordering;
use mairbench_core::arch_name;
use mairbench_core::platform::{Enable, Platform, MAX_CPUS};
use mairbench_core::record::Record;
use mairbench_core::schema;

/// How long the started CPUs have, together, to say hello.
const START_WAIT_NS: u64 = 1_000_000_000;
/// The CPU `mairbench.selftest=missing-cpu` asks PSCI for: no board has it.
const MISSING_MPIDR: u64 = 0xff00;
/// Rounds of the shared-line test.
const TOKEN_ROUNDS: u64 = 4;
/// How long the secondaries have to answer one round (as long as a benchmark job: an
/// emulator with more CPUs than host cores schedules each late).
const TOKEN_WAIT_NS: u64 = 5_000_000_000;

/// What the boot CPU found out about the SMP configuration, for the `smp-config` verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmpEvidence {
    /// Secondary CPUs that started (said hello).
    pub started: u32,
    /// How many of them hold an SCTLR_EL1, MAIR_EL1, TCR_EL1 or TTBR0_EL1 other than the
    /// boot CPU's.
    pub differing: u32,
    /// The first of those: its MPIDR affinity and the first register that differs.
    pub first_differing: Option<(u64, &'static str)>,
    /// Whether every token of the shared-line test arrived. False also when the test did
    /// not run (`started == 0`: the verdict is then n/a).
    pub shared_line_ok: bool,
}

/// The secondary CPUs that came up, by stack block, in the order they did, and what the
/// boot CPU found out about their configuration.
#[derive(Clone, Copy, Debug)]
pub struct Cores {
    blocks: [usize; MAX_CPUS],
    count: usize,
    evidence: SmpEvidence,
}

impl Default for Cores {
    fn default() -> Self {
        Cores {
            blocks: [0; MAX_CPUS],
            count: 0,
            evidence: SmpEvidence::default(),
        }
    }
}

impl Cores {
    /// How many secondary CPUs are up.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Notes that the CPU of stack block `block` is up and serving jobs.
    pub fn add(&mut self, block: usize) {
        if let Some(slot) = self.blocks.get_mut(self.count) {
            *slot = block;
            self.count += 1;
        }
    }

    /// The stack blocks of the secondary CPUs that are up.
    pub fn blocks(&self) -> &[usize] {
        // `add` keeps `count` within `blocks`: `get`, not indexing, which adds a panic.
        self.blocks.get(..self.count).unwrap_or_default()
    }

    /// The SMP configuration evidence (registers compared, shared-line test), for the
    /// `smp-config` verdict.
    pub fn smp_evidence(&self) -> SmpEvidence {
        self.evidence
    }

    /// Keeps the evidence `cpus` gathered.
    pub fn set_smp_evidence(&mut self, evidence: SmpEvidence) {
        self.evidence = evidence;
    }
}

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
            boot_mpidr: boot_mpidr & start::AFFINITY,
            ask_missing,
            released: [None; MAX_CPUS],
        }
    }

    /// Releases the spin-table CPUs (and on 32-bit Arm the BCM2836's, from their mailboxes);
    /// must run while the MMU is still off.
    pub fn release_spin_tables(&mut self) {
        for t in self.targets() {
            let Some(slot) = self.released.get_mut(t.block) else {
                continue;
            };
            match t.enable {
                Enable::SpinTable { release } => {
                    *slot = Some(start::release(t.mpidr, t.block, release));
                }
                Enable::Bcm2836 {
                    mailbox: Some(set),
                    armv7,
                } => *slot = Some(start::release_mailbox(t.mpidr, t.block, set, armv7)),
                _ => {}
            }
        }
    }

    /// The CPUs to start. Borrows the platform, not the plan, which its caller may update
    /// meanwhile.
    fn targets(&self) -> impl Iterator<Item = Target> + Clone + 'p {
        let (platform, boot) = (self.platform, self.boot_mpidr);
        let listed = platform.cpus().iter().filter(move |c| c.mpidr != boot);
        let missing = self.ask_missing.then_some((MISSING_MPIDR, Enable::Psci));
        listed
            .map(|c| (c.mpidr, c.enable))
            .chain(missing)
            .take(SECONDARY_BLOCKS)
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
    #[inline(never)] // its frame is on the stack only during the call
    pub fn start(&self, boot_midr: u64, entry_el: u64) -> Cores {
        let mut cores = Cores::default();
        let boot_regs = Regs::own();
        hello(0, self.boot_mpidr, boot_midr, entry_el, &boot_regs);
        let mut evidence = SmpEvidence::default();
        // The first differing CPU and register, with both values, for the check's line.
        let mut first: Option<(u64, &'static str, u64, u64)> = None;
        // Per stack block: the MPIDR and method of a CPU launched into it.
        let mut launched: [Option<(u64, Method)>; MAX_CPUS] = [None; MAX_CPUS];
        for t in self.targets() {
            let method = match (t.enable, self.psci) {
                (Enable::Psci, Psci::Usable(conduit)) => Method::Psci(conduit),
                (Enable::SpinTable { release }, _) => Method::SpinTable { release },
                (Enable::Other, Psci::Usable(conduit)) if smp::PSCI_WITHOUT_METHOD => {
                    Method::Psci(conduit)
                }
                (
                    Enable::Bcm2836 {
                        mailbox: Some(set),
                        armv7,
                    },
                    _,
                ) => Method::Mailbox { set, armv7 },
                (Enable::Bcm2836 { mailbox: None, .. }, _) => {
                    let why = format_args!(
                        "brcm,bcm2836-smp, but no brcm,bcm2836-l1-intc node whose registers hold \
                         its mailbox"
                    );
                    not_started(t.mpidr, why);
                    continue;
                }
                (Enable::Psci, Psci::Absent) => {
                    not_started(t.mpidr, format_args!("no PSCI conduit in the device tree"));
                    continue;
                }
                (Enable::Psci, Psci::Unusable(conduit)) => {
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
                    match self.platform.unknown_enable {
                        Some(named) => not_started(
                            t.mpidr,
                            format_args!(
                                "no enable-method the firmware knows (the tree names {named})"
                            ),
                        ),
                        None => not_started(
                            t.mpidr,
                            format_args!("no enable-method the firmware knows"),
                        ),
                    }
                    continue;
                }
            };
            let started = match method {
                Method::SpinTable { .. } | Method::Mailbox { .. } => {
                    self.released.get(t.block).copied().flatten()
                }
                Method::Psci(_) => Some(start::launch(method, t.mpidr, t.block)),
            };
            match started.unwrap_or(Err(NotStarted::BadRelease)) {
                Ok(()) => {
                    if let Some(slot) = launched.get_mut(t.block) {
                        *slot = Some((t.mpidr, method));
                    }
                }
                Err(e) => not_started(t.mpidr, format_args!("{}", Why(e, method))),
            }
        }
        let pending = launched
            .iter()
            .enumerate()
            .filter_map(|(block, l)| Some((block, (*l)?)));
        start::wait_online(pending.clone().map(|(block, _)| block), START_WAIT_NS);
        for (block, (mpidr, method)) in pending {
            match start::online(block) {
                Some(up) => {
                    hello(block as u64, up.mpidr, up.midr, up.entry_el, &up.regs);
                    cores.add(block);
                    evidence.started += 1;
                    let pairs = boot_regs.values().into_iter().zip(up.regs.values());
                    let mut named = Regs::NAMES.into_iter().zip(pairs);
                    if let Some((name, (want, got))) = named.find(|(_, (a, b))| a != b) {
                        evidence.differing += 1;
                        first.get_or_insert((up.mpidr, name, got, want));
                    }
                }
                None => not_started(mpidr, format_args!("{}", Why(NotStarted::Silent, method))),
            }
        }
        let beyond = self.platform.cpus_beyond_cap;
        if beyond > 0 {
            run::warn("cpus-beyond-cap");
            say!("cpus: {beyond} more CPUs in /cpus beyond the firmware's {MAX_CPUS}: not started");
        }
        // Counted as the smp record counts them: the selftest's missing CPU was tried too.
        let listed = self.platform.cpus().len().max(1) + beyond;
        say!(
            concat!("cpus: {} of {} running at ", arch_name!(kernel_level)),
            cores.count() + 1,
            listed + usize::from(self.ask_missing)
        );
        evidence.first_differing = first.map(|(mpidr, name, ..)| (mpidr, name));
        if evidence.started == 0 {
            say!("smp: one CPU running: no registers to compare, no shared-line or counter test");
        } else {
            registers_check(&evidence, first);
            evidence.shared_line_ok = shared_line(&cores);
        }
        cores.set_smp_evidence(evidence);
        cores
    }
}

/// The `smp-registers` check: every secondary's regime registers equal the boot CPU's.
fn registers_check(e: &SmpEvidence, first: Option<(u64, &'static str, u64, u64)>) {
    let names = Regs::NAMES;
    match first {
        None => run::check(
            "smp-registers",
            true,
            format_args!(
                "{} secondary CPUs: {}, {}, {} and {} equal the boot CPU's",
                u64::from(e.started),
                names[0],
                names[1],
                names[2],
                names[3]
            ),
        ),
        Some((mpidr, name, got, want)) => run::check(
            "smp-registers",
            false,
            format_args!(
                "{} of {} secondary CPUs differ from the boot CPU; the first, {mpidr:#x}, holds \
                 {name} = {got:#x} (boot CPU: {want:#x})",
                u64::from(e.differing),
                u64::from(e.started),
            ),
        ),
    };
}

/// The boot CPU's token for the word of block `block` in round `round`, and a secondary's.
fn token(round: u64, block: usize, secondary: bool) -> u64 {
    0x6d62_0000_0000_0000 | u64::from(secondary) << 47 | round << 32 | block as u64
}

/// The `smp-shared-line` check: per round, the boot CPU writes a token into each CPU's word
/// of the shared lines; each secondary, all at once, reads its word (must be the boot CPU's
/// token) and writes its own (the boot CPU must then read it, and its own word unharmed by
/// the neighbours' writes to the same line). No cache maintenance anywhere. True when
/// every token arrived.
fn shared_line(cores: &Cores) -> bool {
    let blocks = cores.blocks();
    let mpidr = |b: usize| start::online(b).map_or(0, |up| up.mpidr);
    let mut read = [None; MAX_CPUS];
    let mut wrong: Option<(u64, &str, u64, Option<u64>)> = None;
    for round in 0..TOKEN_ROUNDS {
        for b in core::iter::once(0).chain(blocks.iter().copied()) {
            if let Some(w) = shared_word(b) {
                w.store(token(round, b, false), Ordering::Relaxed);
            }
        }
        let read = &mut read[..blocks.len()];
        exchange_tokens(blocks, |b| token(round, b, true), TOKEN_WAIT_NS, read);
        let word = |b: usize| shared_word(b).map(|w| w.load(Ordering::Relaxed));
        for (&b, &seen) in blocks.iter().zip(read.iter()) {
            let (want, got) = (token(round, b, false), seen);
            if got != Some(want) {
                wrong.get_or_insert((mpidr(b), "read", want, got));
            }
            let (want, got) = (token(round, b, true), word(b));
            if got != Some(want) {
                wrong.get_or_insert((mpidr(b), "wrote", want, got));
            }
        }
        let (want, got) = (token(round, 0, false), word(0));
        if got != Some(want) {
            wrong.get_or_insert((0, "own", want, got));
        }
        if wrong.is_some() {
            break;
        }
    }
    let n = blocks.len() + 1;
    match wrong {
        None => run::check(
            "smp-shared-line",
            true,
            format_args!(
                "{n} CPUs exchanged tokens through their own words of shared normal-wb lines, \
                 {TOKEN_ROUNDS} rounds, no cache maintenance: every token arrived"
            ),
        ),
        Some((mpidr, what, want, got)) => {
            let got = Seen(got);
            let (a, b) = match what {
                "own" => ("", ""),
                _ => (" in a shared normal-wb line", " (no cache maintenance)"),
            };
            let wrong = match what {
                "read" => {
                    format_args!("CPU {mpidr:#x} read {got} for the boot CPU's token {want:#x}{a}")
                }
                "own" => format_args!(
                    "the boot CPU's own word of the shared line holds {got} instead of \
                     {want:#x} after the other CPUs wrote their words of it"
                ),
                _ => {
                    format_args!("the boot CPU read {got} for CPU {mpidr:#x}'s token {want:#x}{a}")
                }
            };
            run::check(
                "smp-shared-line",
                false,
                format_args!("{wrong}{b}: the cores are not coherent"),
            )
        }
    }
}

/// A word read in the shared-line test, or that none came.
struct Seen(Option<u64>);

impl core::fmt::Display for Seen {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{v:#x}"),
            None => write!(
                f,
                "nothing (no answer within {} s)",
                TOKEN_WAIT_NS / 1_000_000_000
            ),
        }
    }
}

/// Why a CPU is not running, in words.
struct Why(NotStarted, Method);

impl core::fmt::Display for Why {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let how = match self.1 {
            Method::Psci(_) => "PSCI CPU_ON",
            Method::SpinTable { .. } => "the spin-table release",
            Method::Mailbox { .. } => "the BCM2836 mailbox write",
        };
        match self.0 {
            // Sign and magnitude: as `{code}` writes it, without the image's only use of
            // i64's Display.
            NotStarted::Refused(code) => {
                let sign = if code < 0 { "-" } else { "" };
                write!(f, "{how} returned {sign}{}", code.unsigned_abs())
            }
            NotStarted::Trapped => write!(f, "{how} trapped"),
            NotStarted::Silent => {
                write!(f, "started but silent for {} ms", START_WAIT_NS / 1_000_000)
            }
            NotStarted::NoStack => write!(f, "more CPUs than the firmware mapped stacks for"),
            NotStarted::BadRelease => match self.1 {
                Method::Mailbox { set, .. } => write!(
                    f,
                    "its mailbox {set:#x} is not writable here (unaligned, inside the image, or \
                     the MMU on)"
                ),
                _ => write!(
                    f,
                    "its cpu-release-addr is not writable here (unmapped, or inside the image)"
                ),
            },
            NotStarted::NotTaken(_) => write!(
                f,
                "nothing took the entry address from its mailbox within {} ms (no boot stub \
                 waits on it)",
                start::MAILBOX_WAIT_NS / 1_000_000
            ),
        }
    }
}

/// A `hello` record: a CPU running at EL1, with its regime registers.
fn hello(cpu: u64, mpidr: u64, midr: u64, entry_el: u64, regs: &Regs) {
    let _ = Record::new(&mut Console, &schema::HELLO)
        .u64("cpu", cpu)
        .hex("mpidr", mpidr)
        .u64("el", 1)
        .u64("entry_el", entry_el)
        .hex("midr", midr)
        .hex("sctlr", regs.sctlr)
        .hex_digits("mair", regs.mair, 16)
        .hex("tcr", regs.tcr)
        .hex("ttbr0", regs.ttbr0)
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
