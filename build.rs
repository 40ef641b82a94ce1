//! The firmware's link: a position-independent executable laid out by its architecture's
//! linker script (linker.ld for AArch64, linker-armv7.ld for 32-bit Arm). The entry code
//! applies its own relative relocations, packed as RELR (boot/aarch64/entry.S,
//! boot/armv7/entry.S), so boot loaders may place the image anywhere in RAM their protocol
//! allows. Given here, for this package's binary only, so that other binaries of the target
//! (mairbench-linux) link their own way.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let script = match std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() {
        Ok("arm") => "linker-armv7.ld",
        _ => "linker.ld",
    };
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={script}");
    // RELR: the relative relocations packed (the entry code applies them).
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
    println!("cargo:rustc-link-arg-bins=-T{dir}/{script}");
}
