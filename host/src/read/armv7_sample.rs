//! Records of a real armv7 run (QEMU 10.0.2 TCG `virt`, Cortex-A7 model, the firmware's
//! default sweep: lines of its console log, its 16 KiB points of four kernels on three types),
//! for the tests of every command that reads logs of either architecture.

use super::model::Run;

/// The lines, as the 32-bit image printed them: A32 kernel names (`read-ldm`, `write-stm`,
/// `maint-dccimvac`) and ARMv7's `normal-wb-nowa`.
pub(crate) const LOG: &str = r#"
@mb {"kind":"start","schema":1,"version":"0.1.0","arch":"armv7","entry_el":1,"el":1,"entry_mmu":false,"entry_dcache":false,"midr":"0x410fc075","mpidr":"0x80000000","cntfrq_hz":62500000,"platform":"linux,dummy-virt","emulated":true,"host":"qemu-10.0.2","accel":"tcg","emulated_by":["bootarg","dtb"],"emulation_tells":["cycles-are-ns"],"console":"pl011","console_base":"0x9000000","psci":"hvc","semihosting":true,"dtb":"0x48000000","image_base":"0x40010000","ram_base":"0x40000000","ram_size":268435456,"bootargs":"mairbench.host=qemu-10.0.2 mairbench.accel=tcg","bootargs_from":"dtb","firmware":"none","tables":"dtb"}
@mb {"kind":"cache","level":1,"type":"separate","size":32768,"line":64,"ways":2,"sets":256}
@mb {"kind":"cache","level":2,"type":"unified","size":2359296,"line":64,"ways":16,"sets":2304}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldm","granule":"4K","size":16384,"passes":8,"reps":3,"best_ticks":1264,"median_ticks":1264,"freq_hz":62500000,"cv_pct":1.2,"best_cycles":20728,"bytes":131072,"best_mbps":6481,"median_mbps":6481,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"result","memtype":"normal-wb-nowa","kernel":"read-ldm","granule":"4K","size":16384,"passes":8,"reps":3,"best_ticks":1290,"median_ticks":1296,"freq_hz":62500000,"cv_pct":12.4,"best_cycles":21130,"bytes":131072,"best_mbps":6350,"median_mbps":6321,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"result","memtype":"device-ngnre","kernel":"read-ldm","granule":"4K","size":16384,"passes":1,"reps":3,"best_ticks":3154,"median_ticks":3211,"freq_hz":62500000,"cv_pct":1.3,"best_cycles":50974,"bytes":16384,"best_mbps":325,"median_mbps":319,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"result","memtype":"normal-wb","kernel":"write-stm","granule":"4K","size":16384,"passes":9,"reps":3,"best_ticks":1394,"median_ticks":1401,"freq_hz":62500000,"cv_pct":0.4,"best_cycles":22786,"bytes":147456,"best_mbps":6611,"median_mbps":6578,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"result","memtype":"normal-wb-nowa","kernel":"write-stm","granule":"4K","size":16384,"passes":16,"reps":3,"best_ticks":2485,"median_ticks":2534,"freq_hz":62500000,"cv_pct":8.4,"best_cycles":40319,"bytes":262144,"best_mbps":6593,"median_mbps":6466,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"result","memtype":"device-ngnre","kernel":"write-stm","granule":"4K","size":16384,"passes":1,"reps":3,"best_ticks":2916,"median_ticks":2918,"freq_hz":62500000,"cv_pct":0.2,"best_cycles":47161,"bytes":16384,"best_mbps":351,"median_mbps":351,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"result","memtype":"normal-wb","kernel":"maint-dccimvac","granule":"4K","size":16384,"passes":39,"reps":3,"best_ticks":1275,"median_ticks":1285,"freq_hz":62500000,"cv_pct":0.4,"best_cycles":41047,"lines":9984,"bytes":638976,"ns_per_line":2.04,"median_ns_per_line":2.06,"best_mbps":31322,"pmu":null,"start":"written","line_state":"dirty","integrity":"ok"}
@mb {"kind":"result","memtype":"normal-wb-nowa","kernel":"maint-dccimvac","granule":"4K","size":16384,"passes":78,"reps":3,"best_ticks":2492,"median_ticks":2499,"freq_hz":62500000,"cv_pct":0.3,"best_cycles":81091,"lines":19968,"bytes":1277952,"ns_per_line":2.00,"median_ns_per_line":2.00,"best_mbps":32051,"pmu":null,"start":"written","line_state":"not-allocated","integrity":"ok"}
@mb {"kind":"result","memtype":"device-ngnre","kernel":"maint-dccimvac","granule":"4K","size":16384,"passes":96,"reps":3,"best_ticks":2455,"median_ticks":2458,"freq_hz":62500000,"cv_pct":0.1,"best_cycles":39764,"lines":24576,"bytes":1572864,"ns_per_line":1.60,"median_ns_per_line":1.60,"best_mbps":40042,"pmu":null,"start":"invalidated","line_state":"no-line","integrity":"ok"}
@mb {"kind":"result","memtype":"normal-wb","kernel":"write-line","granule":"4K","size":16384,"passes":158,"reps":3,"best_ticks":2450,"median_ticks":2507,"freq_hz":62500000,"cv_pct":1.1,"best_cycles":39663,"bytes":2588672,"best_mbps":66038,"median_mbps":64536,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"result","memtype":"normal-wb-nowa","kernel":"write-line","granule":"4K","size":16384,"passes":158,"reps":3,"best_ticks":2497,"median_ticks":2511,"freq_hz":62500000,"cv_pct":1.3,"best_cycles":40622,"bytes":2588672,"best_mbps":64795,"median_mbps":64433,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"result","memtype":"device-ngnre","kernel":"write-line","granule":"4K","size":16384,"passes":7,"reps":3,"best_ticks":1387,"median_ticks":1407,"freq_hz":62500000,"cv_pct":12.0,"best_cycles":22654,"bytes":114688,"best_mbps":5168,"median_mbps":5095,"pmu":null,"start":"invalidated","integrity":"ok"}
@mb {"kind":"end","status":"pass","checks":42,"failed":0,"warnings":0,"reason":null,"run_us":6959512}
"#;

/// [`LOG`] read.
pub(crate) fn run() -> Run {
    crate::read::log::parse(LOG.as_bytes()).run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::model::{distinct, in_table_order, kernel_row, memtype_row, named_as};
    use mairbench_core::arch::Arch;
    use mairbench_core::memtype;

    #[test]
    fn an_armv7_log_is_read_by_row_under_its_own_names() {
        use mairbench_core::kernel::Kernel;
        use mairbench_core::memtype::Role;
        let run = run();
        assert_eq!((run.arch(), run.arch_tables()), ("armv7", Arch::Armv7));
        assert_eq!(run.measurements.len(), 12);
        // Its own names for the rows, from core's tables.
        assert_eq!(run.kernel_name(Kernel::ReadLdp), Some("read-ldm"));
        assert_eq!(run.kernel_name(Kernel::MaintCivac), Some("maint-dccimvac"));
        assert_eq!(run.kernel_name(Kernel::FillZva), None);
        let hinted = memtype::position(Role::WriteBackHinted).unwrap();
        assert_eq!(run.memtype_name(hinted), Some("normal-wb-nowa"));
        assert_eq!(
            Run::default().memtype_name(hinted),
            Some("normal-wb-noalloc")
        );
        // Its records' names stand for the rows.
        assert_eq!(kernel_row("write-stm"), Some(Kernel::WriteStp));
        assert_eq!(kernel_row("write-stp"), Some(Kernel::WriteStp));
        assert_eq!(memtype_row("normal-wb-nowa"), Some(hinted));
        assert_eq!(memtype_row("normal-wb-noalloc"), Some(hinted));
        assert_eq!((kernel_row("read-ldq"), memtype_row("anon")), (None, None));
        // Ordered as the table's rows: the hinted write-back type second, not after them all.
        let order = in_table_order(run.measurements.iter().map(|m| m.memtype.as_str()));
        assert_eq!(order, ["normal-wb", "normal-wb-nowa", "device-ngnre"]);
        // Renamed as AArch64 names the rows: every point, and nothing else.
        let a64 = named_as(&run, Arch::Aarch64);
        let names = |r: &Run| distinct(r.measurements.iter().map(|m| m.kernel.as_str())).join(",");
        assert_eq!(names(&run), "read-ldm,write-stm,maint-dccimvac,write-line");
        assert_eq!(names(&a64), "read-ldp,write-stp,maint-civac,write-line");
        let types = distinct(a64.measurements.iter().map(|m| m.memtype.as_str()));
        assert_eq!(types, ["normal-wb", "normal-wb-noalloc", "device-ngnre"]);
        let values = |r: &Run| {
            r.measurements
                .iter()
                .map(|m| (m.size, m.best))
                .collect::<Vec<_>>()
        };
        assert_eq!(values(&a64), values(&run));
        assert_eq!(a64.arch, run.arch);
        // And back.
        assert_eq!(named_as(&a64, Arch::Armv7), run);
    }

    #[test]
    fn a_rows_name_is_the_one_the_points_carry() {
        use mairbench_core::kernel::Kernel;
        use mairbench_core::memtype::Role;
        let hinted = memtype::position(Role::WriteBackHinted).unwrap();
        // An armv7 run whose points carry AArch64's names (as the 32-bit twin's records may):
        // those, not its architecture's.
        let a64_names = Run {
            arch: Some("armv7".into()),
            ..named_as(&run(), Arch::Aarch64)
        };
        assert_eq!(a64_names.kernel_name(Kernel::ReadLdp), Some("read-ldp"));
        assert_eq!(a64_names.memtype_name(hinted), Some("normal-wb-noalloc"));
        // A row it has no point of: its architecture's name.
        assert_eq!(a64_names.kernel_name(Kernel::Latency), Some("latency"));
        assert_eq!(a64_names.kernel_name(Kernel::ReadLdpQ), Some("read-vld1"));
        assert_eq!(run().kernel_name(Kernel::WriteStp), Some("write-stm"));
    }
}
