//! Faults: the three the memory map promises (guard page, W^X, unmapped), each provoked and
//! survived; and, on request, what real cores fault on in Device memory.

use super::Memory;
use crate::arch::exceptions::Fault;
use crate::arch::{mmu, probes};
use crate::console::Console;
use crate::{run, say};
use mairbench_core::arch_name;
use mairbench_core::esr::{self, Class, FaultStatus};
use mairbench_core::memtype;
use mairbench_core::record::Record;
use mairbench_core::schema;

/// One provoked fault: what was tried, where, what came back and what must.
struct Case {
    test: &'static str,
    va: u64,
    fault: Option<Fault>,
    expected: FaultStatus,
    write: bool,
}

impl Case {
    /// Whether the expected data abort came, for this address and access.
    fn ok(&self) -> bool {
        self.fault.is_some_and(|f| {
            Class::of(f.esr) == Class::DataAbort
                && FaultStatus::of(f.esr) == self.expected
                && esr::is_write(f.esr) == self.write
                && f.far == self.va
        })
    }

    fn report(&self) {
        let ok = self.ok();
        let mut out = Console;
        let mut rec = Record::new(&mut out, &schema::FAULT)
            .str("test", self.test)
            .hex("va", self.va);
        match self.fault {
            Some(f) => {
                rec = rec
                    .hex("esr", f.esr)
                    .str("class", Class::of(f.esr).name())
                    .str("status", FaultStatus::of(f.esr).name())
                    .hex("far", f.far)
                    .bool("write", esr::is_write(f.esr))
                    .opt_u64("level", esr::fault_level(f.esr).map(u64::from));
            }
            None => rec = rec.null("esr"),
        }
        let _ = rec
            .str("expected", self.expected.name())
            .bool("ok", ok)
            .finish();
        run::check(
            "fault",
            ok,
            format_args!(
                "{} at {:#x}: {} (expected {}), survived",
                self.test,
                self.va,
                self.fault
                    .map_or("no fault", |f| FaultStatus::of(f.esr).name()),
                self.expected.name()
            ),
        );
    }
}

impl Memory {
    /// Provokes the faults the memory map promises and checks each is the expected one.
    #[inline(never)] // its frame is on the stack only during the call
    pub fn faults(&self) {
        let text_word = self.image.start + 0x40;
        fn refused<T>(r: Option<Result<T, Fault>>) -> Option<Fault> {
            r.and_then(Result::err)
        }
        let cases = [
            Case {
                test: "guard-page-load",
                va: self.image.stack_guard,
                fault: refused(mmu::try_load_unmapped(self.image.stack_guard)),
                expected: FaultStatus::Translation,
                write: false,
            },
            Case {
                test: "text-store",
                va: text_word,
                fault: refused(probes::try_store_text(text_word)),
                expected: FaultStatus::Permission,
                write: true,
            },
            Case {
                test: "unmapped-load",
                va: self.unmapped_va,
                fault: refused(mmu::try_load_unmapped(self.unmapped_va)),
                expected: FaultStatus::Translation,
                write: false,
            },
        ];
        cases.iter().for_each(Case::report);
    }

    /// Device memory: real cores take an alignment fault for an unaligned access and for
    /// `DC ZVA`. QEMU 10.0 faults on the unaligned load only with more than one CPU (its
    /// Device alignment check follows the access's atomicity, which serial TCG lowers to
    /// bytes: docs/lab.md, step 2e) and never on `DC ZVA`. Tried only on request, and
    /// reported as information.
    #[inline(never)] // its frame is on the stack only during the call
    pub fn device_faults(&self, enabled: bool) {
        say!(concat!(
            "device memory: real cores fault on ",
            arch_name!(device_faulting),
            " to Device memory"
        ));
        if !enabled {
            say!("  (not tried; mairbench.device-faults tries them on every Device alias)");
            return;
        }
        let devices = self
            .pages()
            .iter()
            .filter(|a| a.memtype.class() == memtype::Class::Device);
        for a in devices {
            let tries = [
                ("unaligned-load", a.whole.try_load(4).map(|r| r.err())),
                ("dc-zva", a.whole.try_zero_block().map(|r| r.err())),
            ];
            for (access, outcome) in tries {
                let words = match outcome {
                    None => concat!("not tried: ", arch_name!(zva_refused)),
                    Some(Some(f)) if Class::of(f.esr).is_abort() => FaultStatus::of(f.esr).name(),
                    Some(Some(f)) => Class::of(f.esr).name(),
                    Some(None) => "no fault (an emulator that does not model it?)",
                };
                say!("  {:<14} {access:<14} {words}", a.memtype.name);
                let mut out = Console;
                let mut rec = Record::new(&mut out, &schema::DEVICE_FAULT)
                    .str("memtype", a.memtype.name)
                    .str("access", access)
                    .bool("tried", outcome.is_some())
                    .bool("faulted", matches!(outcome, Some(Some(_))));
                if let Some(Some(f)) = outcome {
                    rec = rec.hex("esr", f.esr);
                }
                let _ = rec
                    .str("outcome", words)
                    .bool("informational", true)
                    .finish();
            }
        }
    }
}
