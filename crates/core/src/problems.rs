//! A set of the problems one part of discovery can report: one bit per problem of an enum
//! that lists them all. Used by the device tree's platform discovery and its reserved-memory
//! reader, each with its own problem enum.

use core::fmt;
use core::marker::PhantomData;

/// A kind of problem: an enum whose every value is in [`Kind::ALL`].
pub trait Kind: Copy + PartialEq + fmt::Debug + 'static {
    /// Every problem, in the order sets list them (at most 64; one beyond is never stored).
    const ALL: &'static [Self];

    /// The problem's bit: its position in [`Kind::ALL`] (64, no bit, if it is missing).
    fn bit(self) -> u32 {
        let at = Self::ALL.iter().position(|&p| p == self);
        at.and_then(|i| u32::try_from(i).ok()).unwrap_or(64)
    }
}

/// Makes `$problem`, an enum with a `const ALL` array and a `message(self) -> &'static str`,
/// a [`Kind`]: its `Display` is its message, and `Problems` (defined where this is used) the
/// set of it.
/// `kind!(Problem, assumed)`: its `Display` is the message followed by `assumed(self)`.
macro_rules! kind {
    ($problem:ident) => {
        impl core::fmt::Display for $problem {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.message())
            }
        }
        crate::problems::kind!(@set $problem);
    };
    ($problem:ident, $then:ident) => {
        impl core::fmt::Display for $problem {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.message())?;
                f.write_str(self.$then())
            }
        }
        crate::problems::kind!(@set $problem);
    };
    (@set $problem:ident) => {

        /// A set of [`Problem`]s.
        pub type Problems = crate::problems::Set<$problem>;

        impl crate::problems::Kind for $problem {
            const ALL: &'static [$problem] = &$problem::ALL;
        }
    };
}
pub(crate) use kind;

/// A set of problems of kind `P`.
pub struct Set<P: Kind>(u64, PhantomData<P>);

impl<P: Kind> Set<P> {
    /// The empty set.
    pub const NONE: Set<P> = Set(0, PhantomData);

    /// Adds `p`.
    pub fn insert(&mut self, p: P) {
        self.0 |= 1u64.checked_shl(p.bit()).unwrap_or(0);
    }

    /// Whether `p` is in the set.
    pub fn contains(self, p: P) -> bool {
        self.0 & 1u64.checked_shl(p.bit()).unwrap_or(0) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The problems in the set, in [`Kind::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = P> {
        P::ALL.iter().copied().filter(move |&p| self.contains(p))
    }
}

impl<P: Kind> Clone for Set<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: Kind> Copy for Set<P> {}

impl<P: Kind> PartialEq for Set<P> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<P: Kind> Eq for Set<P> {}

impl<P: Kind> Default for Set<P> {
    fn default() -> Self {
        Self::NONE
    }
}

impl<P: Kind> fmt::Debug for Set<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum P {
        A,
        B,
        C,
    }

    impl Kind for P {
        const ALL: &'static [P] = &[P::C, P::A, P::B];
    }

    #[test]
    fn a_set_lists_its_problems_in_table_order() {
        let mut s = Set::<P>::NONE;
        assert!(s.is_empty());
        s.insert(P::B);
        s.insert(P::C);
        s.insert(P::B);
        assert!(s.contains(P::B) && s.contains(P::C) && !s.contains(P::A));
        assert!(s.iter().eq([P::C, P::B]));
        assert_eq!(s, s.clone());
        assert_ne!(s, Set::default());
        assert_eq!(format!("{s:?}"), "{C, B}");
    }
}
