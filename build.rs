//! The firmware's link: a position-independent executable laid out by linker.ld
//! (boot/aarch64/entry.S applies its own relative relocations, packed as RELR, so boot loaders
//! may place the image at any 2 MiB-aligned address). Given here, for this package's binary only, so
//! that other binaries of the target (mairbench-linux) link their own way.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=linker.ld");
    // RELR: the relative relocations packed (boot/aarch64/entry.S applies them).
    for arg in [
        "-pie",
        "--no-dynamic-linker",
        "-z",
        "notext",
        "-z",
        "pack-relative-relocs",
        "--icf=all",
    ] {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
    println!("cargo:rustc-link-arg-bins=-T{dir}/linker.ld");
}
