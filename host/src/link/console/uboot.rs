//! What is known of U-Boot: its autoboot text, the marker a command's status comes back in,
//! the error lines it prints and what they mean, and a boot script's commands.

use std::time::Duration;

/// What a line ends with when U-Boot ran a command typed with it: `@@mbrc=<status>`.
pub const MARKER: &str = "@@mbrc=";
/// The text U-Boot prints while it counts down to booting.
pub const AUTOBOOT: &str = "Hit any key to stop autoboot";
/// How long each typed character waits for its echo before the next is sent.
pub const ECHO_WAIT: Duration = Duration::from_millis(500);
/// The quiet time after which a board that said nothing is sent a CR to get a prompt.
pub const QUIET: Duration = Duration::from_millis(1500);
/// The quiet time after which the text after the last line feed is taken for the prompt.
pub(super) const PROMPT_QUIET: Duration = Duration::from_millis(300);
/// CRs sent to get a prompt before giving up.
pub(super) const PROMPT_TRIES: u32 = 4;
/// The default time limit of a session that waits for the end record (seconds).
pub const DEFAULT_TIMEOUT_S: u64 = 600;

/// U-Boot's own error lines that a person loading and booting an image meets (from U-Boot's
/// source: fs/fs.c, cmd/booti.c, boot/bootm.c, boot/image-fdt.c, common/command.c,
/// disk/part.c, cmd/nvedit.c), each with what it means in plain words.
pub const ERRORS: &[(&str, &str)] = &[
    ("Wrong Image Format for", "U-Boot does not recognise the image at that address: bootm wants a uImage or FIT (mkimage), booti a raw arm64 Image (llvm-objcopy -O binary), bootefi a PE/COFF EFI application"),
    ("Reading file would overwrite reserved memory", "the load address lies in memory U-Boot reserved (U-Boot itself, its stack, its device tree or a no-map region): load to ${kernel_addr_r}, or another address `bdinfo` shows as free RAM"),
    ("Bad Linux ARM64 Image magic", "no arm64 Image at the address given to booti: the load failed or went elsewhere, or the file is an ELF or uImage, not the raw Image (llvm-objcopy -O binary)"),
    ("Bad Magic Number", "no uImage at the address given to bootm (make one with mkimage, or use booti for a raw Image)"),
    ("Unknown command", "this U-Boot has no such command (built without it, or mistyped): `help` lists the ones it has"),
    ("Failed to load", "the file could not be read: `ls <interface> <dev>:<part>` lists what the partition holds (names are case-sensitive on ext4)"),
    ("Unable to read file", "the file is not on that partition, or cannot be read: check its name with `ls <interface> <dev>:<part>`"),
    ("File not found", "the file is not on that partition: check its name with `ls <interface> <dev>:<part>`"),
    ("Bad device specification", "no such device: scan first (`virtio scan`, `mmc list`, `usb start`, `scsi scan`), then check the device number"),
    ("Couldn't find partition", "no such device or partition: check `<dev>:<part>` (e.g. mmc 0:1) with `part list <interface> <dev>`"),
    ("Can't set block device", "the device or partition could not be opened (see the line above)"),
    ("Unrecognized filesystem type", "the partition holds no file system U-Boot reads (FAT or ext2/3/4 are the usual ones)"),
    ("No partition table", "the device has no partition table U-Boot knows (MBR or GPT)"),
    ("Did not find a cmdline Flattened Device Tree", "no device tree at the address given: use ${fdtcontroladdr} (the one U-Boot runs on) or load the board's .dtb to ${fdt_addr_r}"),
    ("Could not find a valid device tree", "no device tree at the address given: use ${fdtcontroladdr} or load the board's .dtb to ${fdt_addr_r}"),
    ("image is not a fdt", "the device tree address holds no device tree blob"),
    ("kernel_comp_addr_r or kernel_comp_size is not provided", "booti was given a compressed Image: use the uncompressed Image"),
    ("not defined", "a variable the command uses is not set on this board (`printenv` lists them)"),
    ("Usage:", "the command's arguments were wrong: U-Boot printed its usage above"),
    ("syntax error", "U-Boot's shell could not parse the line (quotes? an unclosed if?)"),
    ("Error: Bad gzipped data", "the image is not gzip data (booti and bootm take the raw Image unless told otherwise)"),
    ("## Error", "U-Boot reported an error (quoted above)"),
];

/// The first command word of the script lines that do not come back when they work.
pub(super) const NO_RETURN: &[&str] = &[
    "booti", "bootm", "bootz", "bootefi", "go", "boot", "bootd", "bootflow", "reset", "poweroff",
];

/// A command of a boot script, with its line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// 1-based line in the script file.
    pub line: usize,
    /// The command as typed.
    pub text: String,
}

impl Command {
    /// Whether the command does not return when it works (its first word is in `NO_RETURN`).
    pub fn no_return(&self) -> bool {
        let first = self.text.split_whitespace().next().unwrap_or("");
        NO_RETURN.contains(&first)
    }

    /// Whether the command is U-Boot's YMODEM receiver (`loady`).
    pub fn loady(&self) -> bool {
        self.text.split_whitespace().next() == Some("loady")
    }
}

/// The commands of a U-Boot script: one per line; blank lines and lines starting with `#`
/// are skipped; CR LF line ends are fine. A line longer than U-Boot's usual console buffer
/// (256 B with the marker), or with a byte that is not printable ASCII, is an error naming
/// its line.
pub fn script(text: &str) -> Result<Vec<Command>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(c) = line
            .chars()
            .find(|c| !(' '..='~').contains(c) && *c != '\t')
        {
            return Err(format!(
                "line {}: {c:?} is not printable ASCII (U-Boot's console takes ASCII).",
                i + 1
            ));
        }
        if line.len() + MARKER.len() + 12 > 256 {
            return Err(format!(
                "line {}: {} characters is too long for U-Boot's console buffer (at most {}).",
                i + 1,
                line.len(),
                256 - MARKER.len() - 12
            ));
        }
        out.push(Command {
            line: i + 1,
            text: line.trim_end_matches(';').trim_end().replace('\t', " "),
        });
    }
    if out.is_empty() {
        return Err("the boot script holds no command (only blank and # lines).".into());
    }
    Ok(out)
}

/// The plain words for each known U-Boot error line among `lines`.
pub fn explain(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        if let Some((_, words)) = ERRORS.iter().find(|(pat, _)| l.contains(pat)) {
            let said = format!("U-Boot said {:?}: {words}", l.trim());
            if !out.contains(&said) {
                out.push(said);
            }
        }
    }
    out
}

/// Whether `bytes` look like a wrong baud rate: mostly neither text nor line ends.
pub fn garbage(bytes: &[u8]) -> bool {
    if bytes.len() < 64 {
        return false;
    }
    let bad = bytes
        .iter()
        .filter(|&&b| b >= 0x80 || (b < 0x20 && !matches!(b, b'\r' | b'\n' | b'\t' | 8 | 0x1b)))
        .count();
    bad * 10 > bytes.len() * 3
}

/// The size U-Boot's `loady` says it received ("## Total Size      = 0x0003b000 = 241664 Bytes").
pub fn total_size(lines: &[String]) -> Option<usize> {
    lines.iter().find_map(|l| {
        let rest = l.trim().strip_prefix("## Total Size")?;
        rest.rsplit('=')
            .next()?
            .trim()
            .strip_suffix("Bytes")?
            .trim()
            .parse()
            .ok()
    })
}

/// What U-Boot printed for a command: `lines` without the echo of the typed line, the marker
/// line and blank lines.
pub(super) fn said(lines: &[String], typed: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !l.trim().is_empty() && !l.contains(typed) && !l.trim().starts_with(MARKER))
        .cloned()
        .collect()
}

/// The boot script the tests type: a comment, a blank line, CR LF and LF line ends.
#[cfg(test)]
pub(super) const SCRIPT: &str = "# comment\r\n\nsetenv bootargs mairbench.quick\r\n\
                                 load virtio 0:1 ${kernel_addr_r} mairbench.bin\n\
                                 booti ${kernel_addr_r} - ${fdtcontroladdr}\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_skips_comments_and_blank_lines_and_refuses_bad_lines() {
        let c = script(SCRIPT).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(
            c[0],
            Command {
                line: 3,
                text: "setenv bootargs mairbench.quick".into()
            }
        );
        assert!(c[2].no_return() && !c[1].no_return());
        assert!(script("# only\n\n").unwrap_err().contains("no command"));
        assert!(script("echo é\n").unwrap_err().starts_with("line 1:"));
        assert!(script(&"x".repeat(300)).unwrap_err().contains("too long"));
        assert!(script("loady ${kernel_addr_r}\n").unwrap()[0].loady());
    }

    #[test]
    fn total_size_is_read_from_uboots_line() {
        assert_eq!(
            total_size(&["## Total Size      = 0x0003b000 = 241664 Bytes".into()]),
            Some(241_664)
        );
        assert_eq!(total_size(&["## Total Size = garbage".into()]), None);
    }
}
