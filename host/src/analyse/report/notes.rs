//! What the report says about a run QEMU emulated or ran under KVM.

/// What to say about timings taken in an emulator.
pub const EMULATED_CAVEAT: &str =
    "QEMU models no caches: these timings do not reflect memory types";

/// What `report` says of a run QEMU ran under KVM (the `start` record's `accel`).
pub const KVM_NOTE: &str = "QEMU under KVM: the cores and caches are the host's own, so these \
timings count; they are a guest's (the host's stage 2 may override the memory types asked for) \
and only the device tree is QEMU's";

/// What the steps and ratios of an emulated run are (docs/lab.md, step 2e), said after
/// [`EMULATED_CAVEAT`] under the tables and the prediction sheet.
pub const EMULATED_STEPS: &str = "under QEMU the curves step where the host CPU's own caches \
     end (its L1 and L2 data caches, whatever the cache: lines say) and where a sweep outgrows \
     QEMU's software TLB (4 KiB entries: 1 MiB by default, 2 MiB or more once a boot loader \
     has grown it; latency rises about ten times there, the streaming reads (read-ldp, read-ldm on armv7) about 1.5 times); between \
     Normal rows, and for latency from 2 MiB up, a ratio to normal-wb (vs wb, the prediction \
     sheet) is host noise: single points 0.7x to 1.7x apart on a loaded host (docs/lab.md, \
     step 2e)";
