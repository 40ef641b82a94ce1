#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
dmesg -n 1
echo "mairbench: /init: reached at $(cut -d' ' -f1 /proc/uptime) s of uptime; Linux $(uname -r)"
if [ -f /lib/modules/mairbench/order ]; then
    while IFS= read -r m; do
        if insmod "/lib/modules/mairbench/$m"; then
            echo "mairbench: /init: loaded module $m at $(cut -d' ' -f1 /proc/uptime) s of uptime"
        else
            echo "mairbench: /init: could not load module $m"
        fi
    done </lib/modules/mairbench/order
else
    echo "mairbench: /init: no modules to load (MAIRBENCH_LINUX_MODULES=none)"
fi
# ivshmem-plain (1af4:1110): nothing enables its memory decoding without a driver.
for d in /sys/bus/pci/devices/*; do
    [ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/device")" = 0x1110 ] || continue
    if [ "$(cat "$d/enable")" = 0 ]; then
        echo 1 >"$d/enable" && echo "mairbench: /init: enabled ${d##*/} (ivshmem-plain)"
    fi
done
# What the twin's sources rely on, printed on every boot.
ls -l /dev/udmabuf
ls -d /dev/dma_heap /dev/dma_heap/* /dev/dri /dev/dri/* 2>&1
echo "mairbench: /init: kernel command line: $(cat /proc/cmdline)"
for d in /sys/bus/pci/devices/*; do
    echo "mairbench: /init: pci ${d##*/} $(cat "$d/vendor"):$(cat "$d/device") enable=$(cat "$d/enable")"
done
for f in /sys/bus/pci/devices/*/resource2*; do
    [ -e "$f" ] && echo "mairbench: /init: $f $(stat -c %s "$f") B"
done
if [ -f /mairbench.args ]; then
    if [ -x /mairbench-linux ]; then
        set --
        while IFS= read -r a; do set -- "$@" "$a"; done </mairbench.args
        /mairbench-linux "$@"
        echo "mairbench: /init: /mairbench-linux exited with status $?"
    else
        echo "mairbench: /init: no executable /mairbench-linux in the initramfs"
    fi
else
    echo "mairbench: /init: smoke check done (no twin)"
fi
poweroff -f
