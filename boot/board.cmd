# mairbench: the commands a person types at a board's U-Boot prompt to boot mairbench.bin,
# one per line; `cargo host console PORT --boot boot/board.cmd` types them for you (it stops
# autoboot, waits for the prompt after each line, stops at the first that fails, then logs the
# run until its end record). Lines starting with # and blank lines are skipped.
#
# Put mairbench.bin (llvm-objcopy -O binary target/aarch64-unknown-none/release/mairbench
# mairbench.bin) on the board's FAT (or ext4) boot partition. Adapt the device of the load
# line, <interface> <device>:<partition>:
#   mmc 0:1     the first partition of the first SD card or eMMC (`mmc list` names them)
#   usb 0:1     a USB stick: type `usb start` on a line before the load
#   virtio 0:1  QEMU's virtio disk (qemu/run MAIRBENCH_SERIAL=pty): `virtio scan` first
# `part list mmc 0` lists the partitions, `ls mmc 0:1` the files.
# No card at hand: send the image over the serial line instead (YMODEM, at most 11.5 kB/s at
# 115200 baud): replace the load line by `loady ${kernel_addr_r}` and run
#   cargo host console PORT --boot FILE --send mairbench.bin
#
# Board-specific values come from U-Boot's own variables only: ${kernel_addr_r} is where this
# board's U-Boot loads a kernel, ${fdtcontroladdr} the device tree U-Boot itself runs on (to
# pass a .dtb of your own instead: load it to ${fdt_addr_r} and give that to booti).
# `printenv kernel_addr_r` shows the address; a board without it needs a line
# `setenv kernel_addr_r <a free, 2 MiB-aligned RAM address>` first.

# The command line: empty for the full run, e.g. `setenv bootargs mairbench.quick` for the
# short one (docs/bootargs.md).
setenv bootargs
load mmc 0:1 ${kernel_addr_r} mairbench.bin
booti ${kernel_addr_r} - ${fdtcontroladdr}
