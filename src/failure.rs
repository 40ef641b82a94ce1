//! Reporting what nobody expected: an exception outside a probe, or a panic. Either ends the
//! run with status fail, after a human account and an `exception` or `panic` record.

use crate::arch::exceptions::{self, Unexpected};
use crate::arch::image::image_layout;
use crate::console::Console;
use crate::{run, say};
use core::panic::PanicInfo;
use mairbench_core::arch_name;
use mairbench_core::esr;
use mairbench_core::record::Record;
use mairbench_core::schema;

/// Reports an exception nobody expected, then ends the run with status fail.
pub fn report_exception(e: &Unexpected) -> ! {
    let class = esr::Class::of(e.fault.esr);
    let ec = u64::from(esr::code(e.fault.esr));
    say!("");
    say!(
        "!! unexpected {} exception ({}{}): {}",
        e.vector,
        e.origin,
        if e.nested {
            ", inside the exception handler"
        } else {
            ""
        },
        class.name()
    );
    let far = esr::far_valid(e.fault.esr).then_some(e.fault.far);
    let elr_link = exceptions::link_address(e.fault.elr);
    say!(
        concat!(
            "!! ",
            arch_name!(esr),
            " {:#x} (EC {ec:#x}), {}",
            arch_name!(elr),
            " {:#x}{}, at ",
            arch_name!(kernel_level)
        ),
        e.fault.esr,
        Far(far),
        e.fault.elr,
        LinkAddress(elr_link),
        ec = ec
    );
    match elr_link {
        Some(link) => say!(
            concat!(
                "!! source line: addr2line -e target/",
                arch_name!(target),
                "/release/mairbench {link:#x}"
            ),
            link = link
        ),
        None => say!(concat!(
            "!! ",
            arch_name!(elr),
            " lies outside the image's code"
        )),
    }
    if class.is_abort() {
        say!("!! {}", esr::FaultStatus::of(e.fault.esr).name());
        let image = image_layout();
        for (guard, stack) in [
            (image.stack_guard, "main stack"),
            (image.exception_guard, "exception stack"),
        ] {
            if far.is_some_and(|far| (guard..guard + 4096).contains(&far)) {
                say!("!! the {stack} overflowed into its guard page");
            }
        }
    }
    let mut console = Console;
    let mut record = Record::new(&mut console, &schema::EXCEPTION)
        .str("vector", e.vector)
        .str("origin", e.origin)
        .str("class", class.name())
        .hex("ec", ec)
        .hex("esr", e.fault.esr)
        .hex("far", e.fault.far)
        .hex("elr", e.fault.elr)
        .u64("el", 1)
        .bool("nested", e.nested)
        .bool("far_valid", far.is_some());
    if let Some(link) = elr_link {
        record = record.hex("elr_link", link);
    }
    let _ = record.finish();
    run::end(Some("unexpected exception"))
}

/// `"FAR_EL1 0x…, "` (ARMv7: `DFAR/IFAR`) when it holds the faulting address, else nothing.
struct Far(Option<u64>);

impl core::fmt::Display for Far {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(far) => write!(f, concat!(arch_name!(far), " {far:#x}, "), far = far),
            None => Ok(()),
        }
    }
}

/// `" (linked at 0x…)"` when the address lies in the image's code.
struct LinkAddress(Option<u64>);

impl core::fmt::Display for LinkAddress {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(link) => write!(f, " (linked at {link:#x})"),
            None => Ok(()),
        }
    }
}

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    say!("");
    // PanicInfo's Display written out, with the line and column as u64: the image then needs
    // no formatter for u32.
    let location = info.location();
    let (file, line, column) = location.map_or(("", 0, 0), |l| (l.file(), l.line(), l.column()));
    say!(
        "!! panic: panicked at {file}:{}:{}:\n{}",
        u64::from(line),
        u64::from(column),
        info.message()
    );
    let _ = Record::new(&mut Console, &schema::PANIC)
        .fmt("message", format_args!("{}", info.message()))
        .str("file", location.map_or("", |l| l.file()))
        .u64("line", location.map_or(0, |l| l.line().into()))
        .finish();
    run::end(Some("panic"))
}
