"""Overwrites properties and nodes of a DTB with FDT_NOP tokens, in place, as
libfdt's fdt_nop_property() and fdt_nop_node() do (U-Boot and other boot
loaders use them to delete without moving the rest of the blob).

Usage: nop.py IN.dtb OUT.dtb TARGET...
A TARGET is /path/to/node (the node and its subtree) or /path/to/node:property.
Paths use full node names, unit addresses included; the root is /.
"""
import struct
import sys

BEGIN_NODE, END_NODE, PROP, NOP, END = 1, 2, 3, 4, 9


def align4(n):
    return (n + 3) & ~3


def walk(dtb):
    """Yields (kind, path, name, start, end) for every property and node."""
    off_struct, off_strings = struct.unpack_from(">II", dtb, 8)
    size_struct = struct.unpack_from(">I", dtb, 36)[0]
    pos, stack, starts = off_struct, [], []
    while pos < off_struct + size_struct:
        start = pos
        (token,) = struct.unpack_from(">I", dtb, pos)
        pos += 4
        if token == BEGIN_NODE:
            end = dtb.index(b"\0", pos)
            stack.append(dtb[pos:end].decode())
            starts.append(start)
            pos = align4(end + 1)
        elif token == END_NODE:
            path = "/" + "/".join(stack[1:])
            yield "node", path, None, starts.pop(), pos
            stack.pop()
        elif token == PROP:
            length, name_off = struct.unpack_from(">II", dtb, pos)
            name_at = off_strings + name_off
            name = dtb[name_at : dtb.index(b"\0", name_at)].decode()
            pos = align4(pos + 8 + length)
            yield "prop", "/" + "/".join(stack[1:]), name, start, pos
        elif token == NOP:
            pass
        elif token == END:
            return
        else:
            sys.exit(f"bad token {token:#x} at {start}")


def main():
    src, dst, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
    dtb = bytearray(open(src, "rb").read())
    regions = {}
    for kind, path, name, start, end in walk(bytes(dtb)):
        key = path if kind == "node" else f"{path}:{name}"
        regions[key] = (start, end)
    for target in targets:
        if target not in regions:
            sys.exit(f"{src}: no {target}")
        start, end = regions[target]
        dtb[start:end] = struct.pack(">I", NOP) * ((end - start) // 4)
    open(dst, "wb").write(dtb)


main()
