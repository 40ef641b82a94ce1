//! Helpers shared by the platform tests.
#![allow(dead_code)]

pub mod oracle;

use std::path::PathBuf;

/// Where `qemu/dtbs` caches the real boards' DTBs: `$MAIRBENCH_DTB_DIR`, else
/// `${XDG_CACHE_HOME:-$HOME/.cache}/mairbench/dtbs` (named ones at the top, every board's under
/// `all/`).
pub fn dtb_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MAIRBENCH_DTB_DIR") {
        return dir.into();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .expect("neither MAIRBENCH_DTB_DIR, XDG_CACHE_HOME nor HOME is set");
    cache.join("mairbench/dtbs")
}

/// The board DTB at `path` under [`dtb_dir`]; fails, saying how to get it, when it is not
/// there.
pub fn board(path: &str) -> Vec<u8> {
    let path = dtb_dir().join(path);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: the real boards' DTBs are missing; run qemu/dtbs (test.sh does) to fetch \
             them from Debian's arm64 kernel package",
            path.display()
        )
    })
}

/// A fixture from `tests/dtb/`.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/dtb/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// How many `FDT_NOP` tokens the structure block of a well-formed `dtb` holds.
pub fn count_nops(dtb: &[u8]) -> usize {
    let word = |at: usize| u32::from_be_bytes(dtb[at..at + 4].try_into().unwrap());
    let (mut pos, strings) = (word(8) as usize, word(12) as usize);
    let mut nops = 0;
    loop {
        let token = word(pos);
        pos += 4;
        match token {
            FDT_BEGIN_NODE => {
                let name = dtb[pos..].iter().position(|&b| b == 0).unwrap();
                pos = (pos + name + 1).next_multiple_of(4);
            }
            FDT_PROP => pos = (pos + 8 + word(pos) as usize).next_multiple_of(4),
            FDT_NOP => nops += 1,
            FDT_END_NODE => {}
            FDT_END => return nops,
            t => panic!("token {t:#x} at {}", pos - 4),
        }
        assert!(pos < strings, "the structure block runs into the strings");
    }
}

/// Builds a DTB token by token, including malformed ones.
#[derive(Default)]
pub struct DtBuilder {
    structs: Vec<u8>,
    strings: Vec<u8>,
}

pub const FDT_BEGIN_NODE: u32 = 1;
pub const FDT_END_NODE: u32 = 2;
pub const FDT_PROP: u32 = 3;
pub const FDT_NOP: u32 = 4;
pub const FDT_END: u32 = 9;

impl DtBuilder {
    pub fn token(&mut self, t: u32) -> &mut Self {
        self.structs.extend(t.to_be_bytes());
        self
    }

    pub fn begin(&mut self, name: &str) -> &mut Self {
        self.token(FDT_BEGIN_NODE);
        self.structs.extend(name.as_bytes());
        self.structs.push(0);
        self.pad()
    }

    pub fn end(&mut self) -> &mut Self {
        self.token(FDT_END_NODE)
    }

    pub fn prop(&mut self, name: &str, value: &[u8]) -> &mut Self {
        let name_off = self.strings.len() as u32;
        self.strings.extend(name.as_bytes());
        self.strings.push(0);
        self.token(FDT_PROP);
        self.structs.extend((value.len() as u32).to_be_bytes());
        self.structs.extend(name_off.to_be_bytes());
        self.structs.extend(value);
        self.pad()
    }

    pub fn str(&mut self, name: &str, value: &str) -> &mut Self {
        self.prop(name, format!("{value}\0").as_bytes())
    }

    pub fn cells(&mut self, name: &str, cells: &[u32]) -> &mut Self {
        let value: Vec<u8> = cells.iter().flat_map(|c| c.to_be_bytes()).collect();
        self.prop(name, &value)
    }

    fn pad(&mut self) -> &mut Self {
        while !self.structs.len().is_multiple_of(4) {
            self.structs.push(0);
        }
        self
    }

    /// Appends FDT_END and wraps the blocks in a version-17 header.
    pub fn finish(&mut self) -> Vec<u8> {
        self.token(FDT_END);
        let rsvmap = 40;
        let off_struct = rsvmap + 16;
        let off_strings = off_struct + self.structs.len();
        let total = off_strings + self.strings.len();
        let header = [
            0xd00d_feed,
            total,
            off_struct,
            off_strings,
            rsvmap,
            17,
            16,
            0,
            self.strings.len(),
            self.structs.len(),
        ];
        let mut blob: Vec<u8> = header
            .iter()
            .flat_map(|&f| (f as u32).to_be_bytes())
            .collect();
        blob.extend([0; 16]);
        blob.extend(&self.structs);
        blob.extend(&self.strings);
        blob
    }
}

/// A small valid tree: `stdout` as `/chosen/stdout-path`, a PL011 at
/// `0x1c09_0000`, 1 GiB of RAM at `0x8000_0000`, PSCI over HVC; `extra` adds
/// to the root after those nodes.
pub fn minimal_tree(stdout: &str, extra: impl FnOnce(&mut DtBuilder)) -> Vec<u8> {
    let mut b = DtBuilder::default();
    b.begin("")
        .cells("#address-cells", &[2])
        .cells("#size-cells", &[2])
        .str("compatible", "test,minimal");
    b.begin("chosen").str("stdout-path", stdout).end();
    b.begin("psci").str("method", "hvc").end();
    b.begin("memory@80000000")
        .str("device_type", "memory")
        .cells("reg", &[0, 0x8000_0000, 0, 0x4000_0000])
        .end();
    b.begin("uart@1c090000")
        .str("compatible", "arm,pl011")
        .cells("reg", &[0, 0x1c09_0000, 0, 0x1000])
        .end();
    extra(&mut b);
    b.end().finish()
}

/// xorshift64 for mutation tests: deterministic, so a failure names a reproducible case.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
