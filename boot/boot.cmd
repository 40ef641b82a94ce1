# mairbench: U-Boot boot script for real boards (and for QEMU, MAIRBENCH_BOOT=uboot-script).
#
# Make boot.scr from it and put it on the FAT boot partition, next to mairbench.bin:
#     mkimage -A arm64 -T script -C none -n mairbench -d boot/boot.cmd boot.scr
# U-Boot's distro boot (`run distro_bootcmd`, or bootstd's script method) finds boot.scr on
# its own and sets devtype, devnum, distro_bootpart and prefix before sourcing it.
#
# Files, read from the directory boot.scr was found in (${prefix}, "/" or "/boot/"):
#   mairbench.bin  required: the raw arm64 Image (llvm-objcopy -O binary target/.../mairbench)
#   mairbench.txt  optional: a line `bootargs=mairbench.quick ...` (U-Boot `env import -t`
#                  format; CR LF line ends are fine; only `bootargs` is taken from it)
#   mairbench.dtb  optional: a device tree to pass instead of the board's own
# Environment (optional, wins over mairbench.txt): mairbench_bootargs, e.g. at the prompt
#     setenv mairbench_bootargs mairbench.quick; run bootcmd
#
# It loads mairbench.bin to ${kernel_addr_r} and runs `booti ${kernel_addr_r} - <dtb>`, where
# <dtb> is mairbench.dtb loaded to ${fdt_addr_r}, else the live device tree U-Boot itself runs
# on (${fdtcontroladdr}), else ${fdt_addr}. booti writes bootargs into /chosen of that tree.
# Every step is announced with a "mairbench:" line; every failure says what failed, and the
# script then returns to U-Boot (distro boot goes on with its next boot target).
#
# U-Boot's hush shell: no functions and no early return, hence the nested if/else. It also
# takes a single quote inside double quotes as the start of a quoted string: echo texts here
# have no apostrophes. Variables of this script are named mb_*.

echo "mairbench: boot script started (devtype=${devtype} devnum=${devnum} distro_bootpart=${distro_bootpart} prefix=${prefix})"

# Where to read from. Distro boot sets all of these; when the script is sourced by hand they
# may be missing: assume the first partition of the first SD/eMMC device, at its root.
if test -z "${devtype}"; then setenv devtype mmc; echo "mairbench: devtype not set, using mmc"; fi
if test -z "${devnum}"; then setenv devnum 0; echo "mairbench: devnum not set, using 0"; fi
if test -z "${distro_bootpart}"; then setenv distro_bootpart 1; echo "mairbench: distro_bootpart not set, using 1"; fi
if test -z "${prefix}"; then setenv mb_dir /; else setenv mb_dir ${prefix}; fi
echo "mairbench: reading ${mb_dir} on ${devtype} ${devnum}:${distro_bootpart}"

# The command line: ${mairbench_bootargs}, else bootargs= from mairbench.txt, else empty (a
# bootargs the board set for Linux would only be named and ignored by the firmware).
# mairbench.txt is loaded to ${kernel_addr_r}, which mairbench.bin overwrites afterwards.
setenv mb_ok 1
if test -z "${kernel_addr_r}"; then
    echo "mairbench: FAILED: this U-Boot sets no kernel_addr_r; setenv kernel_addr_r <2 MiB-aligned RAM address> and run the script again"
    setenv mb_ok 0
elif test -n "${mairbench_bootargs}"; then
    setenv bootargs "${mairbench_bootargs}"
    echo "mairbench: bootargs from the environment (mairbench_bootargs)"
elif test -e ${devtype} ${devnum}:${distro_bootpart} ${mb_dir}mairbench.txt; then
    setenv bootargs
    if load ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} ${mb_dir}mairbench.txt; then
        env import -t -r ${kernel_addr_r} ${filesize} bootargs
        if test -z "${bootargs}"; then
            echo "mairbench: note: ${mb_dir}mairbench.txt has no line bootargs=...; booting without bootargs"
        else
            echo "mairbench: bootargs from ${mb_dir}mairbench.txt"
        fi
    else
        echo "mairbench: note: cannot read ${mb_dir}mairbench.txt; booting without bootargs"
    fi
else
    setenv bootargs
    echo "mairbench: no mairbench.txt and no mairbench_bootargs: booting without bootargs"
fi

# The device tree: mairbench.dtb from the partition, else the board's own.
setenv mb_fdt
if test ${mb_ok} = 1 && test -e ${devtype} ${devnum}:${distro_bootpart} ${mb_dir}mairbench.dtb; then
    if test -z "${fdt_addr_r}"; then
        echo "mairbench: note: ${mb_dir}mairbench.dtb ignored: this U-Boot sets no fdt_addr_r"
    elif load ${devtype} ${devnum}:${distro_bootpart} ${fdt_addr_r} ${mb_dir}mairbench.dtb; then
        setenv mb_fdt ${fdt_addr_r}
        echo "mairbench: device tree: ${mb_dir}mairbench.dtb at ${fdt_addr_r}"
    else
        echo "mairbench: note: cannot read ${mb_dir}mairbench.dtb; using the device tree of the board"
    fi
fi
if test -z "${mb_fdt}"; then
    if test -n "${fdtcontroladdr}"; then
        setenv mb_fdt ${fdtcontroladdr}
        echo "mairbench: device tree: the one U-Boot runs on (fdtcontroladdr ${fdtcontroladdr})"
    elif test -n "${fdt_addr}"; then
        setenv mb_fdt ${fdt_addr}
        echo "mairbench: device tree: the one at fdt_addr ${fdt_addr}"
    elif test ${mb_ok} = 1; then
        echo "mairbench: FAILED: no device tree: put the DTB of the board next to boot.scr as mairbench.dtb"
        setenv mb_ok 0
    fi
fi

# The image, then booti; booti only returns when it refused the image or the device tree.
if test ${mb_ok} = 1; then
    echo "mairbench: loading ${mb_dir}mairbench.bin to ${kernel_addr_r}"
    if load ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} ${mb_dir}mairbench.bin; then
        echo "mairbench: booti ${kernel_addr_r} - ${mb_fdt} with bootargs [${bootargs}]"
        booti ${kernel_addr_r} - ${mb_fdt}
        echo "mairbench: FAILED: booti returned (see the message above): is mairbench.bin the raw Image (objcopy -O binary), and ${mb_fdt} a device tree?"
    else
        echo "mairbench: FAILED: cannot load ${mb_dir}mairbench.bin from ${devtype} ${devnum}:${distro_bootpart}"
    fi
fi
echo "mairbench: boot script ended without starting mairbench"
