//! ConOut as an early console until ExitBootServices, and the failures said through it.

use super::ffi::{efi_call, SystemTable, TextOutput, ABORTED, RESET_SHUTDOWN};
use crate::arch::global::Global;
use crate::console::{self, Console};
use crate::say;
use mairbench_core::record::Record;
use mairbench_core::schema;

/// The system table's ConOut (as an address: a `Global` holds `Send` values), valid until
/// ExitBootServices; 0: none.
static CON_OUT: Global<usize> = Global::new(0);

/// Makes ConOut a console ([`console::set_early`]) until ExitBootServices.
///
/// # Safety
/// `st` is the valid system table and boot services have not exited.
pub(super) unsafe fn con_out_on(st: *const SystemTable) {
    // SAFETY: the caller's promise.
    CON_OUT.set(unsafe { (*st).con_out } as usize);
    console::set_early(Some(con_out));
}

/// Writes `s` to ConOut: UCS-2 in chunks, `\n` as CR LF.
fn con_out(s: &str) {
    let out = CON_OUT.get() as *mut TextOutput;
    if out.is_null() {
        return;
    }
    // Flushed at 127 units: a character adds at most two, the NUL one more, so `put` always
    // finds room (`get_mut`, not indexing, which would add panics the compiler cannot rule
    // out), and the last unit stays 0.
    let mut buf = [0u16; 130];
    let mut n = 0;
    let put = |buf: &mut [u16; 130], n: &mut usize, unit: u16| {
        if let Some(slot) = buf.get_mut(*n) {
            *slot = unit;
            *n += 1;
        }
    };
    let flush = |buf: &mut [u16; 130], n: &mut usize| {
        put(buf, n, 0);
        // SAFETY: `out` is the system table's ConOut, valid until ExitBootServices (the
        // console stops writing here before it: `efi_main`); the string is NUL-terminated.
        unsafe {
            efi_call(
                (*out).output_string as usize,
                [out as usize, buf.as_ptr() as usize, 0, 0, 0],
            )
        };
        *n = 0;
    };
    for c in s.chars() {
        if c == '\n' {
            put(&mut buf, &mut n, u16::from(b'\r'));
        }
        let unit = if (c as u32) < 0x7f {
            c as u16
        } else {
            u16::from(b'?')
        };
        put(&mut buf, &mut n, unit);
        if n >= 127 {
            flush(&mut buf, &mut n);
        }
    }
    if n > 0 {
        flush(&mut buf, &mut n);
    }
}

/// Before ExitBootServices, a failure is reported through ConOut as a failed check named
/// `name` with an `end` record (the same records as any run's), then the machine is shut
/// down through ResetSystem.
///
/// # Safety
/// `st` is the valid system table and boot services have not exited.
pub(super) unsafe fn fail(
    st: *const SystemTable,
    name: &'static str,
    detail: core::fmt::Arguments<'_>,
) -> ! {
    // SAFETY: the caller's promise.
    unsafe { con_out_on(st) };
    // The failed check's line and record, as every check's.
    crate::run::check(name, false, detail);
    let _ = Record::new(&mut Console, &schema::END)
        .str("status", "fail")
        .u64("checks", 1)
        .u64("failed", 1)
        .u64("warnings", 0)
        .fmt("reason", detail)
        .u64("run_us", 0)
        .strs("failed_checks", [name])
        .finish();
    say!("mairbench: status fail (1 checks, 1 failed: {name}); shutting down through ResetSystem");
    // SAFETY: runtime services are valid while boot services run (and after); ResetSystem
    // does not return.
    unsafe {
        efi_call(
            (*(*st).runtime_services).reset_system as usize,
            [RESET_SHUTDOWN as usize, ABORTED, 0, 0, 0],
        )
    };
    // ResetSystem does not return; should it, nothing is left to do.
    loop {
        core::hint::spin_loop();
    }
}
