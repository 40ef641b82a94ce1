//! The record schema: every kind of `@mb` record the firmware writes, with its fields, their
//! types and units. The firmware's writer names its kind from here, the host's reader takes
//! units and names from here, and `docs/records.md` documents exactly this table.

/// What a field's JSON value holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A JSON string.
    Str,
    /// A non-negative JSON integer.
    U64,
    /// A JSON integer that may be negative.
    I64,
    /// `true` or `false`.
    Bool,
    /// A register-like value as a hexadecimal string, e.g. `"0x410fd083"`.
    Hex,
    /// A JSON number with a fixed number of decimals.
    Decimal,
    /// An array of strings.
    Strs,
}

/// One field of a record kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The JSON key.
    pub name: &'static str,
    /// What its value holds.
    pub ty: Type,
    /// Its unit, in words (`""` when it has none).
    pub unit: &'static str,
    /// Whether every record of the kind carries it.
    pub always: bool,
    /// What it means.
    pub doc: &'static str,
}

/// One kind of record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// The value of its `kind` field.
    pub name: &'static str,
    /// What a record of this kind says, and when it is written.
    pub doc: &'static str,
    /// Its fields after `kind`, in the order the firmware writes them.
    pub fields: &'static [Field],
}

impl Kind {
    /// The field called `name`, if the kind has one.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

macro_rules! kinds {
    ($($(#[$doc:meta])* $id:ident = $name:literal;)*) => {
        $(
            $(#[$doc])*
            pub const $id: Kind = Kind { name: $name, doc: "", fields: &[] };
        )*
        /// Every kind, in the order a run first writes them.
        pub const KINDS: &[&Kind] = &[$(&$id),*];
    };
}

kinds! {
    /// The first record of a run.
    START = "start";
    /// The last record of a run.
    END = "end";
    /// One check.
    CHECK = "check";
    /// The options in force.
    CONFIG = "config";
    /// MMU registers and tables.
    MMU = "mmu";
    /// One mapped region.
    MAP = "map";
    /// The proof of one alias.
    MEMTYPE = "memtype";
    /// One coherence pair.
    COHERENCE = "coherence";
    /// One provoked fault.
    FAULT = "fault";
    /// One Device-memory fault probe.
    DEVICE_FAULT = "device-fault";
    /// A running CPU.
    HELLO = "hello";
    /// A CPU that did not start.
    CPU = "cpu";
    /// One cache level.
    CACHE = "cache";
    /// The clock of the benchmark.
    TIMER = "timer";
    /// One benchmark point.
    RESULT = "result";
    /// One multi-core point.
    SCALING = "scaling";
    /// An unexpected exception.
    EXCEPTION = "exception";
    /// A panic.
    PANIC = "panic";
}

/// The kind called `name`, if there is one.
pub fn kind(name: &str) -> Option<&'static Kind> {
    KINDS.iter().copied().find(|k| k.name == name)
}
