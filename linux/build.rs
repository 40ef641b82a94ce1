//! mairbench-linux links as a static, non-PIE Linux executable (entry `_start`, lld's
//! default layout): the kernel maps it where it was linked, with no loader and no
//! relocations to apply. The code is position-independent all the same (the target's
//! rustflags), which a fixed address does not mind.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for arg in ["--no-pie", "-static", "-e", "_start", "-z", "noexecstack"] {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
}
