//! The verdict of the mapping proof: what `AT S1E1R` + PAR_EL1 said about pages sampled
//! across one alias of the test buffer, judged against the memory type the alias claims.
//!
//! The Arm ARM lets PAR_EL1.ATTR report the attribute the core implements rather than the
//! one the descriptor asked for (e.g. write-through as non-cacheable), so a difference within
//! the same class (Normal or Device) is a warning; across classes, or at a wrong physical
//! address, the alias is wrong.

use crate::memtype::{describe_mair_byte, Class, MemType};

/// What the sampled pages of one alias showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    /// Pages sampled.
    pub samples: u32,
    /// Pages that did not translate, or translated to another physical address.
    pub wrong_pa: u32,
    /// PAR_EL1.ATTR of the first page that translated.
    pub attr: Option<u8>,
    /// Whether every page that translated reported the same attribute.
    pub consistent: bool,
    /// Pages that translated to the right address with a PAR that reports no attributes
    /// (QEMU's short-descriptor PAR: [`crate::paging::short::par_reports_attributes`]).
    pub unattributed: u32,
}

impl Evidence {
    /// No page sampled yet.
    pub const fn new() -> Self {
        Evidence {
            samples: 0,
            wrong_pa: 0,
            attr: None,
            consistent: true,
            unattributed: 0,
        }
    }

    /// Adds one sampled page whose PAR gave its address but no attributes: `right_pa`
    /// whether that address is the one expected.
    pub fn page_address_only(&mut self, right_pa: bool) {
        self.samples = self.samples.saturating_add(1);
        self.wrong_pa = self.wrong_pa.saturating_add(u32::from(!right_pa));
        self.unattributed = self.unattributed.saturating_add(u32::from(right_pa));
    }

    /// Adds one sampled page: `Some((right_pa, attr))` when it translated, `None` when the
    /// walk faulted.
    pub fn page(&mut self, translated: Option<(bool, u8)>) {
        self.samples = self.samples.saturating_add(1);
        match translated {
            Some((right_pa, attr)) => {
                self.wrong_pa = self.wrong_pa.saturating_add(u32::from(!right_pa));
                self.consistent &= *self.attr.get_or_insert(attr) == attr;
            }
            None => self.wrong_pa = self.wrong_pa.saturating_add(1),
        }
    }
}

/// The verdict on one alias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Right address, PAR.ATTR equal to the MAIR byte asked for.
    Exact,
    /// Right address, PAR.ATTR another attribute of the same class: what the core implements.
    ImplementedAs,
    /// Some page did not translate, or not to the buffer's physical address.
    WrongPa,
    /// The attribute differs across the buffer.
    Inconsistent,
    /// The attribute is of the other class (Normal for Device, or the reverse).
    WrongAttr,
    /// Right address on every page, and a PAR that reports no attributes (QEMU's
    /// short-descriptor PAR): the aliasing is proven, the attribute is the tables' alone.
    AddressOnly,
}

impl Verdict {
    /// The verdict as records name it.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Exact => "exact",
            Verdict::ImplementedAs => "implemented-as",
            Verdict::WrongPa => "wrong-pa",
            Verdict::Inconsistent => "inconsistent",
            Verdict::WrongAttr => "wrong-attr",
            Verdict::AddressOnly => "address-only",
        }
    }

    /// Whether the alias is usable: the run passes.
    pub fn passes(self) -> bool {
        matches!(
            self,
            Verdict::Exact | Verdict::ImplementedAs | Verdict::AddressOnly
        )
    }

    /// Whether it passes with a warning.
    pub fn is_warning(self) -> bool {
        self == Verdict::ImplementedAs
    }
}

/// Judges the evidence for an alias that claims `expected`.
pub fn judge(expected: &MemType, e: &Evidence) -> Verdict {
    let device = |c: Class| c == Class::Device;
    match e.attr {
        _ if e.wrong_pa != 0 || e.samples == 0 => Verdict::WrongPa,
        None if e.unattributed != 0 => Verdict::AddressOnly,
        None => Verdict::WrongPa,
        Some(_) if e.unattributed != 0 => Verdict::Inconsistent,
        Some(_) if !e.consistent => Verdict::Inconsistent,
        Some(attr) if attr == expected.mair => Verdict::Exact,
        Some(attr) => match describe_mair_byte(attr).class() {
            Some(c) if device(c) == device(expected.class()) => Verdict::ImplementedAs,
            _ => Verdict::WrongAttr,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memtype::MEMTYPES;

    fn evidence(pages: &[Option<(bool, u8)>]) -> Evidence {
        let mut e = Evidence::new();
        pages.iter().for_each(|&p| e.page(p));
        e
    }

    fn by_name(name: &str) -> &'static MemType {
        MEMTYPES.iter().find(|t| t.name == name).unwrap()
    }

    #[test]
    fn every_type_is_exact_on_its_own_byte() {
        for t in &MEMTYPES {
            let e = evidence(&[Some((true, t.mair)); 16]);
            assert_eq!(judge(t, &e), Verdict::Exact, "{}", t.name);
            assert!(judge(t, &e).passes());
        }
    }

    #[test]
    fn same_class_is_implemented_as_a_warning() {
        // A core that implements write-through as non-cacheable (Cortex-A9, A5 TRMs).
        let wt = by_name("normal-wt");
        let v = judge(wt, &evidence(&[Some((true, 0x44)); 4]));
        assert_eq!(v, Verdict::ImplementedAs);
        assert!(v.passes() && v.is_warning());
        // Device-nGnRE reported as nGnRnE.
        let v = judge(by_name("device-ngnre"), &evidence(&[Some((true, 0x00))]));
        assert_eq!(v, Verdict::ImplementedAs);
    }

    #[test]
    fn cross_class_wrong_address_and_inconsistency_fail() {
        // The bad-attr selftest: normal-nc mapped with the Device-nGnRnE index.
        let nc = by_name("normal-nc");
        let v = judge(nc, &evidence(&[Some((true, 0x00)); 16]));
        assert_eq!((v, v.passes()), (Verdict::WrongAttr, false));
        let v = judge(nc, &evidence(&[Some((true, 0x44)), Some((false, 0x44))]));
        assert_eq!(v, Verdict::WrongPa);
        let v = judge(nc, &evidence(&[Some((true, 0x44)), None]));
        assert_eq!(v, Verdict::WrongPa);
        let v = judge(nc, &evidence(&[Some((true, 0x44)), Some((true, 0xff))]));
        assert_eq!(v, Verdict::Inconsistent);
        assert_eq!(judge(nc, &Evidence::new()), Verdict::WrongPa);
        // An unpredictable encoding is never "the same class".
        let v = judge(nc, &evidence(&[Some((true, 0x01))]));
        assert_eq!(v, Verdict::WrongAttr);
    }

    #[test]
    fn a_par_without_attributes_proves_the_address_only() {
        let wb = by_name("normal-wb");
        let mut e = Evidence::new();
        (0..16).for_each(|_| e.page_address_only(true));
        let v = judge(wb, &e);
        assert_eq!(v, Verdict::AddressOnly);
        assert!(v.passes() && !v.is_warning());
        // A wrong address still fails; so does a mix with pages that report attributes.
        e.page_address_only(false);
        assert_eq!(judge(wb, &e), Verdict::WrongPa);
        let mut mixed = evidence(&[Some((true, 0xff))]);
        mixed.page_address_only(true);
        assert_eq!(judge(wb, &mixed), Verdict::Inconsistent);
    }

    #[test]
    fn names_are_the_record_values() {
        let all = [
            Verdict::Exact,
            Verdict::ImplementedAs,
            Verdict::WrongPa,
            Verdict::Inconsistent,
            Verdict::WrongAttr,
            Verdict::AddressOnly,
        ];
        let names: [&str; 6] = all.map(Verdict::name);
        assert_eq!(
            names,
            [
                "exact",
                "implemented-as",
                "wrong-pa",
                "inconsistent",
                "wrong-attr",
                "address-only"
            ]
        );
    }
}
