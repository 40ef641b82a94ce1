//! The bytes of the exchange: control characters, block 0 (the file's name and size), data
//! blocks and their CRC-16/XMODEM.

pub(super) const SOH: u8 = 0x01;
pub(super) const STX: u8 = 0x02;
pub(super) const EOT: u8 = 0x04;
pub(super) const ACK: u8 = 0x06;
pub(super) const NAK: u8 = 0x15;
pub(super) const CAN: u8 = 0x18;
pub(super) const PAD: u8 = 0x1A;
pub(super) const CRC_START: u8 = b'C';

/// The file's name for block 0: without directories (the receiver's business), spaces as `_`
/// (YMODEM names have none), `file` when empty, cut so that name and size fit in 128 bytes.
pub(super) fn header(name: &str, size: usize) -> Vec<u8> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let mut clean: String = base
        .chars()
        .filter(|c| *c != '\0')
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    if clean.is_empty() {
        clean = "file".into();
    }
    let size = size.to_string();
    let room = 128 - 2 - size.len();
    while clean.len() > room {
        clean.pop();
    }
    let mut h = clean.into_bytes();
    h.push(0);
    h.extend_from_slice(size.as_bytes());
    h.push(0);
    h
}

/// One block: SOH (128 bytes) when the payload fits, else STX (1024), padded with `pad`.
pub(super) fn frame(number: u8, payload: &[u8], pad: u8) -> Vec<u8> {
    let len = if payload.len() <= 128 { 128 } else { 1024 };
    let mut f = Vec::with_capacity(len + 5);
    f.extend_from_slice(&[if len == 128 { SOH } else { STX }, number, !number]);
    f.extend_from_slice(payload);
    f.resize(3 + len, pad);
    let crc = crc16(&f[3..]);
    f.extend_from_slice(&crc.to_be_bytes());
    f
}

/// CRC-16/XMODEM (polynomial 0x1021, initial value 0), as U-Boot's `crc16_ccitt(0, ..)`.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &b in data {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc16_xmodem_check_value() {
        // The catalogue's check value of CRC-16/XMODEM over "123456789".
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(crc16(&[]), 0);
    }

    #[test]
    fn header_names() {
        let name = |n: &str, size: usize| {
            let h = header(n, size);
            assert!(h.len() <= 128);
            String::from_utf8(h).unwrap()
        };
        assert_eq!(name("out/img/my file.bin", 17), "my_file.bin\u{0}17\u{0}");
        assert_eq!(name("C:\\x\\a.img", 0), "a.img\u{0}0\u{0}");
        assert_eq!(name("dir/", 5), "file\u{0}5\u{0}");
        let long = "é".repeat(100);
        let h = name(&long, 246_907);
        assert!(h.ends_with("\u{0}246907\u{0}") && h.starts_with("ééé"));
        assert_eq!(header(&long, 246_907).len(), 128);
    }
}
