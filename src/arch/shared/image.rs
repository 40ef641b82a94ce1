//! Where the linker put the parts of the image (`linker.ld`'s symbols), at run time.

/// Where the linker put the parts of the image, at run time (after relocation).
#[derive(Clone, Copy, Debug)]
pub struct ImageLayout {
    /// Start of the image (the Image header, then code).
    pub start: u64,
    /// Start of read-only data (end of code).
    pub rodata: u64,
    /// Start of read-write data (end of read-only data).
    pub data: u64,
    /// Unmapped page below the main stack.
    pub stack_guard: u64,
    /// Main stack, `[stack_bottom, stack_top)`.
    pub stack_bottom: u64,
    /// Top of the main stack.
    pub stack_top: u64,
    /// Unmapped page below the exception stack.
    pub exception_guard: u64,
    /// Exception stack, `[exception_bottom, exception_top)`.
    pub exception_bottom: u64,
    /// Top of the exception stack.
    pub exception_top: u64,
    /// Translation-table pool, `[tables, end)`.
    pub tables: u64,
    /// End of the image (image_size in the header).
    pub end: u64,
}

/// The image's layout from the linker script's symbols.
pub fn image_layout() -> ImageLayout {
    extern "C" {
        static __image_start: u8;
        static __rodata_start: u8;
        static __data_start: u8;
        static __stack_bottom: u8;
        static __stack_top: u8;
        static __exception_stack_bottom: u8;
        static __exception_stack_top: u8;
        static __tables_start: u8;
        static __image_end: u8;
    }
    macro_rules! addr {
        ($sym:ident) => {
            // Only the address of a linker-script symbol is taken, never its contents.
            core::ptr::addr_of!($sym) as u64
        };
    }
    let stack_bottom = addr!(__stack_bottom);
    let exception_bottom = addr!(__exception_stack_bottom);
    ImageLayout {
        start: addr!(__image_start),
        rodata: addr!(__rodata_start),
        data: addr!(__data_start),
        stack_guard: stack_bottom - 4096,
        stack_bottom,
        stack_top: addr!(__stack_top),
        exception_guard: exception_bottom - 4096,
        exception_bottom,
        exception_top: addr!(__exception_stack_top),
        tables: addr!(__tables_start),
        end: addr!(__image_end),
    }
}
