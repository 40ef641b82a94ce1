//! The mapping proof: `AT S1E1R` on pages sampled across each alias must give the buffer's
//! physical address and PAR_EL1.ATTR equal to the alias's MAIR byte. The verdict is
//! `mairbench_core::proof::judge`, unit-tested on the host.

use super::layout::{align_down, PAGE};
use super::Memory;
use crate::arch::mmu;
use crate::console::Console;
use crate::{run, say};
use mairbench_core::arch_name;
use mairbench_core::memtype;
use mairbench_core::proof::{self, Evidence, Verdict};
use mairbench_core::record::Record;
use mairbench_core::schema;

/// Pages sampled per alias.
const SAMPLES: u64 = 16;

impl Memory {
    /// Proves every alias; a wrong one fails the run, an implemented-as one is a warning.
    #[inline(never)] // its frame is on the stack only during the call
    pub fn prove(&self) {
        say!(
            concat!(
                "proof of mapping (",
                arch_name!(at_par),
                ", {SAMPLES} pages per alias):"
            ),
            SAMPLES = SAMPLES
        );
        let step = align_down(self.buffer.size / SAMPLES, PAGE).max(PAGE);
        let mut address_only_said = false;
        for a in &self.aliases {
            let mut evidence = Evidence::new();
            for k in 0..SAMPLES {
                let off = (k * step).min(self.buffer.size - PAGE) + (k * 8) % PAGE;
                match mmu::at_s1e1r(a.va() + off).reading() {
                    Some((pa, None)) => evidence.page_address_only(pa == self.buffer.base + off),
                    Some((pa, Some(attr))) => {
                        evidence.page(Some((pa == self.buffer.base + off, attr)))
                    }
                    None => evidence.page(None),
                }
            }
            let verdict = proof::judge(a.memtype, &evidence);
            let par = evidence.attr.unwrap_or(0);
            let reported = memtype::describe_mair_byte(par);
            run::check(
                "memtype",
                verdict.passes(),
                format_args!(
                    "{:<17} {:<2} VA {:#x} -> PA {:#x}, PAR.ATTR {par:#04x} (MAIR[{}] {:#04x}: {})",
                    a.memtype.name,
                    a.granule.name(),
                    a.va(),
                    self.buffer.base,
                    u64::from(a.memtype.index),
                    u64::from(a.memtype.mair),
                    a.memtype.summary,
                    par = u64::from(par),
                ),
            );
            match verdict {
                Verdict::WrongPa => say!(
                    "     WRONG physical address on {} of {SAMPLES} pages",
                    u64::from(evidence.wrong_pa)
                ),
                Verdict::Inconsistent => {
                    say!("     WRONG: the attribute differs across the buffer")
                }
                Verdict::WrongAttr => say!(
                    concat!(
                        "     WRONG attribute: ",
                        arch_name!(par),
                        " reports {reported}"
                    ),
                    reported = reported
                ),
                Verdict::ImplementedAs => {
                    run::warn("memtype");
                    say!("     note: the core reports what it implements: {reported}");
                }
                Verdict::AddressOnly if !address_only_said => {
                    address_only_said = true;
                    say!("     note: this PAR gives addresses only (QEMU's)");
                }
                Verdict::AddressOnly => {}
                Verdict::Exact => {}
            }
            let _ = Record::new(&mut Console, &schema::MEMTYPE)
                .str("name", a.memtype.name)
                .u64("index", a.memtype.index.into())
                .u64("attr_index", a.attr_index.into())
                .hex_digits("mair", a.memtype.mair.into(), 2)
                .hex("va", a.va())
                .hex("va_end", a.va() + self.buffer.size)
                .hex("pa", self.buffer.base)
                .u64("size", self.buffer.size)
                .hex_digits("par_attr", par.into(), 2)
                .str("granule", a.granule.name())
                .u64("samples", SAMPLES)
                .str("verdict", verdict.name())
                .bool("ok", verdict.passes())
                .finish();
        }
    }
}
