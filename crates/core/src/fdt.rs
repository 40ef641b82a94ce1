//! A small reader for flattened device trees (DTBs): validated once, then read
//! without allocating, recursing or panicking.
//!
//! The blob format is that of the Devicetree Specification (release v0.4),
//! chapter "Flattened Devicetree (DTB) Format":
//! - *Header*: ten big-endian 32-bit fields; [`total_size`] reads `magic`,
//!   `totalsize`, `version` and `last_comp_version` (*Versioning*: a reader of
//!   version 17 accepts any version backwards compatible with 17).
//! - *Structure Block*, *Lexical structure*: a sequence of 4-byte aligned
//!   tokens, `FDT_BEGIN_NODE` (followed by the node's NUL-terminated unit
//!   name), `FDT_END_NODE`, `FDT_PROP` (followed by the value's length, the
//!   offset of the property's name in the strings block and the value),
//!   `FDT_NOP` and `FDT_END`.
//! - *Structure Block*, *Tree structure*: the root node, then `FDT_END`; in
//!   each node, its properties before its children; `FDT_NOP` tokens anywhere
//!   in between, left where a property or node was overwritten to delete it
//!   (libfdt's `fdt_nop_property()` and `fdt_nop_node()`, used by U-Boot).
//! - *Strings Block*: the NUL-terminated property names.
//! - *Alignment*: the structure block must start 4-byte aligned.
//!
//! # Validation
//!
//! [`Fdt::new`] checks the blob once, as a whole, and returns an [`Error`] saying
//! what is wrong:
//! - the header is at least 40 bytes, with the magic, a version compatible with
//!   17 and a total size within the buffer ([`Error::Header`], [`Error::Truncated`]);
//! - the structure and strings blocks lie inside the blob, and the structure
//!   block is 4-byte aligned ([`Error::Blocks`]);
//! - the structure block holds one root (empty name) whose tokens are all
//!   known, in bounds (of the structure block, not just of the blob) and in
//!   order: properties before child nodes, every node closed, `FDT_END` right
//!   after the root (what follows it in the block is ignored), `FDT_NOP`
//!   anywhere inside the root; every node name is
//!   NUL-terminated UTF-8, and every property name offset points to
//!   NUL-terminated UTF-8 inside the strings block ([`Error::Structure`]).
//!
//! It deliberately does not enforce the naming rules of the specification's
//! *Node Names* and *Property Names* sections (1 to 31 characters from a small
//! set): real DTBs break them (Linux's `rk3399.dtsi` has the 33-character
//! `snps,dis-tx-ipgap-linecheck-quirk`), and dtc, libfdt, U-Boot and Linux
//! accept them. Nor does it read the *Memory Reservation Block*, or check where
//! the blocks lie relative to one another.
//!
//! # Reading
//!
//! Every reader walks the tokens with the same code as the check, so it sees
//! the blob the check accepted. Readers use no indexing that can fail, no
//! unchecked arithmetic, no `unwrap` and no `str` searcher (`split` and
//! `split_once` on a `char` carry a bounds check that can panic): where the
//! check's guarantees would not hold, they end (an iterator ends, a lookup
//! returns `None`) rather than panic. So no panic path, and none of
//! `core::fmt`'s `Debug` machinery, is linked from here. Nothing recurses:
//! nesting depth is limited only by the blob's size. `FDT_NOP` is skipped
//! everywhere.
//!
//! Lookups by name compare bytes; [`Node::child`] and paths ([`Fdt::find_node`])
//! follow the specification's *Path Names* section, and libfdt.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::unreachable,
    clippy::arithmetic_side_effects
)]

use core::ffi::CStr;
use core::fmt;

/// The header's `magic`.
pub const MAGIC: u32 = 0xd00d_feed;
/// Size of the header in bytes (version 17).
pub const HEADER_SIZE: usize = 40;
/// The version this reader implements: it accepts any version backwards
/// compatible with it.
pub const VERSION: u32 = 17;
/// `#address-cells` of a node that has none (*`#address-cells` and
/// `#size-cells`*).
pub const DEFAULT_ADDRESS_CELLS: u32 = 2;
/// `#size-cells` of a node that has none.
pub const DEFAULT_SIZE_CELLS: u32 = 1;

/// A position past any structure block: the readers' "no more tokens".
const NOWHERE: usize = usize::MAX;

const FDT_BEGIN_NODE: u32 = 1;
const FDT_END_NODE: u32 = 2;
const FDT_PROP: u32 = 3;
const FDT_NOP: u32 = 4;
const FDT_END: u32 = 9;

// Byte offsets of the header fields.
const OFF_MAGIC: usize = 0;
const OFF_TOTALSIZE: usize = 4;
const OFF_OFF_DT_STRUCT: usize = 8;
const OFF_OFF_DT_STRINGS: usize = 12;
const OFF_VERSION: usize = 20;
const OFF_LAST_COMP_VERSION: usize = 24;
const OFF_SIZE_DT_STRINGS: usize = 32;
const OFF_SIZE_DT_STRUCT: usize = 36;

/// Why [`Fdt::new`] rejected a blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Fewer than 40 bytes, a wrong magic, a version not compatible with 17,
    /// or a total size under 40 bytes.
    Header,
    /// The buffer is shorter than the header's total size.
    Truncated,
    /// The structure or strings block is not inside the blob, or the structure
    /// block is not 4-byte aligned.
    Blocks,
    /// The structure block is malformed (see the module documentation).
    Structure {
        /// Offset, in the structure block, of the first token that is wrong.
        offset: usize,
    },
}

impl Error {
    /// A sentence saying what is wrong.
    pub const fn message(self) -> &'static str {
        match self {
            Error::Header => "the header is invalid (size, magic, version or total size)",
            Error::Truncated => "the blob is shorter than its header says",
            Error::Blocks => {
                "the structure or strings block is outside the blob, or the structure block is \
                 not 4-byte aligned"
            }
            Error::Structure { .. } => "the structure block is malformed",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// Total size of the blob whose header starts `header`, or `None` unless
/// `header` holds the 40-byte header with the magic, a version compatible with
/// 17 and a total size of at least 40 bytes.
///
/// A boot loader passes a pointer: this is how much to read from it.
pub fn total_size(header: &[u8]) -> Option<usize> {
    let total = usize::try_from(be32(header, OFF_TOTALSIZE)?).ok()?;
    let ok = header.len() >= HEADER_SIZE
        && be32(header, OFF_MAGIC)? == MAGIC
        && be32(header, OFF_VERSION)? >= VERSION
        && be32(header, OFF_LAST_COMP_VERSION)? <= VERSION
        && total >= HEADER_SIZE;
    ok.then_some(total)
}

/// A validated flattened device tree.
#[derive(Clone, Copy)]
pub struct Fdt<'a> {
    structs: &'a [u8],
    strings: &'a [u8],
}

impl fmt::Debug for Fdt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fdt")
            .field("size_dt_struct", &self.structs.len())
            .field("size_dt_strings", &self.strings.len())
            .finish()
    }
}

/// One token of the structure block.
#[derive(Clone, Copy)]
enum Token<'a> {
    BeginNode(&'a str),
    EndNode,
    Prop(Property<'a>),
    Nop,
    End,
}

impl<'a> Fdt<'a> {
    /// Checks `data` as described in the module documentation. The blob is the
    /// first `totalsize` bytes of `data`: anything after is ignored.
    pub fn new(data: &'a [u8]) -> Result<Self, Error> {
        let total = total_size(data).ok_or(Error::Header)?;
        let blob = data.get(..total).ok_or(Error::Truncated)?;
        let field = |at: usize| usize::try_from(be32(blob, at)?).ok();
        let block = |off: usize, size: usize| blob.get(off..off.checked_add(size)?);
        let off_struct = field(OFF_OFF_DT_STRUCT).ok_or(Error::Blocks)?;
        let structs = field(OFF_SIZE_DT_STRUCT)
            .and_then(|size| block(off_struct, size))
            .filter(|_| off_struct.is_multiple_of(4))
            .ok_or(Error::Blocks)?;
        let strings = field(OFF_OFF_DT_STRINGS)
            .zip(field(OFF_SIZE_DT_STRINGS))
            .and_then(|(off, size)| block(off, size))
            .ok_or(Error::Blocks)?;
        let fdt = Fdt { structs, strings };
        fdt.check().map_err(|offset| Error::Structure { offset })?;
        Ok(fdt)
    }

    /// Walks the structure block, token by token, as the readers will; on
    /// error, returns the offset of the offending token.
    fn check(self) -> Result<(), usize> {
        let mut pos = 0;
        let mut depth = 0usize;
        // Properties may follow a node's name, but not its first child.
        let mut props_allowed = false;
        loop {
            let (token, next) = self.token(pos).ok_or(pos)?;
            let ok = match token {
                // The root first, then only inside it; the root is unnamed.
                Token::BeginNode(name) if depth > 0 || pos == 0 => {
                    props_allowed = true;
                    depth = depth.checked_add(1).ok_or(pos)?;
                    depth > 1 || name.is_empty()
                }
                Token::EndNode => {
                    props_allowed = false;
                    depth = depth.checked_sub(1).ok_or(pos)?;
                    true
                }
                Token::Prop(_) => props_allowed,
                Token::Nop => depth > 0,
                // The root has been closed (a first token FDT_END is caught here too).
                Token::End if depth == 0 && pos > 0 => return Ok(()),
                // A second root, anything before the root or between it and FDT_END.
                Token::BeginNode(_) | Token::End => false,
            };
            if !ok {
                return Err(pos);
            }
            pos = next;
        }
    }

    /// The token at `pos` in the structure block, and the position of the next
    /// one; `None` for an unknown token or one that does not fit.
    fn token(self, pos: usize) -> Option<(Token<'a>, usize)> {
        let after = pos.checked_add(4)?;
        match be32(self.structs, pos)? {
            FDT_BEGIN_NODE => {
                let name = cstr(self.structs, after)?;
                let next = align4(after.checked_add(name.len())?.checked_add(1)?)?;
                Some((Token::BeginNode(name), next))
            }
            FDT_END_NODE => Some((Token::EndNode, after)),
            FDT_PROP => {
                let len = usize::try_from(be32(self.structs, after)?).ok()?;
                let name_off = usize::try_from(be32(self.structs, after.checked_add(4)?)?).ok()?;
                let value_at = after.checked_add(8)?;
                let value_end = value_at.checked_add(len)?;
                let value = self.structs.get(value_at..value_end)?;
                let name = cstr(self.strings, name_off)?;
                Some((Token::Prop(Property { name, value }), align4(value_end)?))
            }
            FDT_NOP => Some((Token::Nop, after)),
            FDT_END => Some((Token::End, after)),
            _ => None,
        }
    }

    /// The root node. Not inlined: one copy for its callers.
    #[inline(never)]
    pub fn root(self) -> Node<'a> {
        Node {
            fdt: self,
            offset: 0,
        }
    }

    /// The node at `path`, as [`walk_path`](Self::walk_path) finds it.
    pub fn find_node(self, path: &str) -> Option<Node<'a>> {
        self.walk_path(path, |_| true)
    }

    /// Walks `path` down from the root and returns the node it names.
    ///
    /// `path` is either absolute (`/soc/serial@9000`; `/` is the root) or
    /// starts with an alias (`serial0`, `serial0/child`), which is looked up
    /// once in `/aliases` (an alias naming another alias is not followed) and
    /// must be an absolute path. Empty components are skipped. A component
    /// matches a child by its full name (unit address included) or, if it has
    /// no `@`, also by its name without the unit address (see
    /// [`Node::child`]); the first matching child is taken. The
    /// specification's *Path Names* section lets a path leave out a unit
    /// address only where that is unambiguous, and leaves ambiguous paths
    /// undefined; taking the first match is what libfdt's `fdt_path_offset()`
    /// does, so U-Boot and Linux's `earlycon` pick the same node. Options
    /// after a `:` (as in `stdout-path`) must be cut off by the caller.
    ///
    /// `visit` is called with each node along the way, root first, as it is
    /// found; when it returns `false` the walk stops and returns `None`.
    pub fn walk_path(
        self,
        path: &str,
        mut visit: impl FnMut(Node<'a>) -> bool,
    ) -> Option<Node<'a>> {
        let (head, tail) = if path.starts_with('/') {
            (path, "")
        } else {
            let (alias, rest) = split_at_byte(path, b'/').unwrap_or((path, ""));
            let target = self.alias(alias).filter(|t| t.starts_with('/'))?;
            (target, rest)
        };
        let mut node = self.root();
        if !visit(node) {
            return None;
        }
        for name in components(head).chain(components(tail)) {
            node = node.child(name)?;
            if !visit(node) {
                return None;
            }
        }
        Some(node)
    }

    /// The path that `/aliases` gives `name`, if it has a string property of
    /// that name (*`/aliases` node*); read as [`Property::as_str`] reads it.
    pub fn alias(self, name: &str) -> Option<&'a str> {
        self.root().child("aliases")?.property(name)?.as_str()
    }
}

/// A node of a [`Fdt`].
#[derive(Clone, Copy)]
pub struct Node<'a> {
    fdt: Fdt<'a>,
    /// Offset of its `FDT_BEGIN_NODE` token in the structure block.
    offset: usize,
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("name", &self.name())
            .field("offset", &self.offset)
            .finish()
    }
}

impl<'a> Node<'a> {
    /// The name and the position of the first token after it.
    fn begin(self) -> Option<(&'a str, usize)> {
        match self.fdt.token(self.offset)? {
            (Token::BeginNode(name), next) => Some((name, next)),
            _ => None,
        }
    }

    /// The full name, `node-name@unit-address` or `node-name` (*Node Names*);
    /// `""` for the root.
    pub fn name(self) -> &'a str {
        self.begin().map_or("", |(name, _)| name)
    }

    /// The name without its unit address: up to the first `@`.
    pub fn node_name(self) -> &'a str {
        let name = self.name();
        split_at_byte(name, b'@').map_or(name, |(node_name, _)| node_name)
    }

    /// The unit address: what follows the first `@`, if there is one.
    pub fn unit_address(self) -> Option<&'a str> {
        split_at_byte(self.name(), b'@').map(|(_, address)| address)
    }

    /// The properties, in blob order.
    pub fn properties(self) -> Properties<'a> {
        Properties {
            fdt: self.fdt,
            pos: self.begin().map_or(NOWHERE, |(_, body)| body),
        }
    }

    /// The first property called `name`.
    pub fn property(self, name: &str) -> Option<Property<'a>> {
        self.properties().find(|p| p.name == name)
    }

    /// The child nodes, in blob order.
    pub fn children(self) -> Children<'a> {
        Children {
            fdt: self.fdt,
            pos: self.begin().map_or(NOWHERE, |(_, body)| body),
            in_child: false,
        }
    }

    /// The first child called `name`: if `name` has an `@`, the child's full
    /// name must equal it; if not, the child's name or its name without the
    /// unit address must (`memory` finds `memory` or `memory@0`, `memory@0`
    /// only `memory@0`).
    pub fn child(self, name: &str) -> Option<Node<'a>> {
        let with_address = name.bytes().any(|b| b == b'@');
        self.children().find(|child| {
            if with_address {
                child.name() == name
            } else {
                child.node_name() == name
            }
        })
    }

    /// `#address-cells`: how many cells the children's addresses take.
    /// [`DEFAULT_ADDRESS_CELLS`] if the property is absent; `None` if it is
    /// not one cell.
    pub fn address_cells(self) -> Option<u32> {
        self.property("#address-cells")
            .map_or(Some(DEFAULT_ADDRESS_CELLS), |p| p.as_u32())
    }

    /// `#size-cells`: how many cells the children's sizes take.
    /// [`DEFAULT_SIZE_CELLS`] if the property is absent; `None` if it is not
    /// one cell.
    pub fn size_cells(self) -> Option<u32> {
        self.property("#size-cells")
            .map_or(Some(DEFAULT_SIZE_CELLS), |p| p.as_u32())
    }
}

/// The properties of a node: see [`Node::properties`].
#[derive(Debug, Clone)]
pub struct Properties<'a> {
    fdt: Fdt<'a>,
    pos: usize,
}

impl<'a> Iterator for Properties<'a> {
    type Item = Property<'a>;

    fn next(&mut self) -> Option<Property<'a>> {
        loop {
            let Some((token, next)) = self.fdt.token(self.pos) else {
                self.pos = NOWHERE;
                return None;
            };
            match token {
                Token::Nop => self.pos = next,
                Token::Prop(property) => {
                    self.pos = next;
                    return Some(property);
                }
                // The first child, or the end of the node.
                Token::BeginNode(_) | Token::EndNode | Token::End => {
                    self.pos = NOWHERE;
                    return None;
                }
            }
        }
    }
}

/// The children of a node: see [`Node::children`].
#[derive(Debug, Clone)]
pub struct Children<'a> {
    fdt: Fdt<'a>,
    /// The next token to read, or the `FDT_BEGIN_NODE` of the child last
    /// returned if `in_child`.
    pos: usize,
    in_child: bool,
}

impl Children<'_> {
    /// The position after the subtree whose `FDT_BEGIN_NODE` is at `pos`.
    fn skip_subtree(&self, mut pos: usize) -> Option<usize> {
        let mut depth = 0usize;
        loop {
            let (token, next) = self.fdt.token(pos)?;
            match token {
                Token::BeginNode(_) => depth = depth.checked_add(1)?,
                Token::EndNode => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(next);
                    }
                }
                Token::Prop(_) | Token::Nop => {}
                Token::End => return None,
            }
            pos = next;
        }
    }
}

impl<'a> Iterator for Children<'a> {
    type Item = Node<'a>;

    fn next(&mut self) -> Option<Node<'a>> {
        if self.in_child {
            self.in_child = false;
            self.pos = self.skip_subtree(self.pos).unwrap_or(NOWHERE);
        }
        while let Some((token, next)) = self.fdt.token(self.pos) {
            match token {
                // Properties come first; the check rejects any after a child.
                Token::Prop(_) | Token::Nop => self.pos = next,
                Token::BeginNode(_) => {
                    self.in_child = true;
                    return Some(Node {
                        fdt: self.fdt,
                        offset: self.pos,
                    });
                }
                Token::EndNode | Token::End => break,
            }
        }
        self.pos = NOWHERE;
        None
    }
}

/// A property: a name and a value (*Property Values*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Property<'a> {
    name: &'a str,
    value: &'a [u8],
}

impl<'a> Property<'a> {
    /// The name.
    pub fn name(self) -> &'a str {
        self.name
    }

    /// The raw value.
    pub fn value(self) -> &'a [u8] {
        self.value
    }

    /// The value as a `<u32>`: exactly one big-endian cell.
    pub fn as_u32(self) -> Option<u32> {
        Some(u32::from_be_bytes(self.value.try_into().ok()?))
    }

    /// The value as a `<u64>`: exactly two big-endian cells, the high one first.
    pub fn as_u64(self) -> Option<u64> {
        Some(u64::from_be_bytes(self.value.try_into().ok()?))
    }

    /// The value as a `<string>`, up to its first NUL: it must end with a NUL
    /// and be UTF-8 throughout. A `<stringlist>` gives its first string.
    pub fn as_str(self) -> Option<&'a str> {
        let text = core::str::from_utf8(self.value.strip_suffix(b"\0")?).ok()?;
        Some(split_at_byte(text, 0).map_or(text, |(first, _)| first))
    }

    /// The value as a `<stringlist>`: its NUL-terminated strings, in order,
    /// empty ones included. Ends at the first string that is not NUL-terminated
    /// or not UTF-8.
    pub fn strings(self) -> Strings<'a> {
        Strings { rest: self.value }
    }

    /// The value as a `<prop-encoded-array>` of entries of `N` numbers, number
    /// `i` taking `cells[i]` cells, as `reg` (address and size) and `ranges`
    /// (child address, parent address and size) are. `None` unless the value is
    /// a whole number of entries of at least one cell.
    pub fn entries<const N: usize>(self, cells: [u32; N]) -> Option<Entries<'a, N>> {
        let mut entry = 0usize;
        let mut field_bytes = [0usize; N];
        for (bytes, &n) in field_bytes.iter_mut().zip(&cells) {
            *bytes = usize::try_from(n).ok()?.checked_mul(4)?;
            entry = entry.checked_add(*bytes)?;
        }
        if entry == 0 || !self.value.len().is_multiple_of(entry) {
            return None;
        }
        Some(Entries {
            rest: self.value,
            entry,
            field_bytes,
        })
    }
}

/// The strings of a `<stringlist>`: see [`Property::strings`].
#[derive(Debug, Clone)]
pub struct Strings<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Strings<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let string = CStr::from_bytes_until_nul(self.rest).ok()?.to_str().ok()?;
        self.rest = self.rest.get(string.len().checked_add(1)?..)?;
        Some(string)
    }
}

/// The entries of a `<prop-encoded-array>`: see [`Property::entries`].
///
/// Each number is read with [`cells_to_u64`]: `None` if it takes more than two
/// cells.
#[derive(Debug, Clone)]
pub struct Entries<'a, const N: usize> {
    rest: &'a [u8],
    entry: usize,
    field_bytes: [usize; N],
}

impl<const N: usize> Iterator for Entries<'_, N> {
    type Item = [Option<u64>; N];

    fn next(&mut self) -> Option<[Option<u64>; N]> {
        let (mut entry, rest) = self.rest.split_at_checked(self.entry)?;
        self.rest = rest;
        Some(self.field_bytes.map(|bytes| {
            let (field, more) = entry.split_at_checked(bytes).unwrap_or((entry, &[]));
            entry = more;
            cells_to_u64(field)
        }))
    }
}

/// A number of zero, one or two big-endian cells (zero cells read as 0);
/// `None` for any other length.
pub fn cells_to_u64(cells: &[u8]) -> Option<u64> {
    match cells.len() {
        0 => Some(0),
        4 => Some(u64::from(u32::from_be_bytes(cells.try_into().ok()?))),
        8 => Some(u64::from_be_bytes(cells.try_into().ok()?)),
        _ => None,
    }
}

/// `s` split around its first `sep` (an ASCII character): [`crate::text::split_once`].
use crate::text::split_once as split_at_byte;

/// The non-empty `/`-separated components of `path`.
fn components(mut path: &str) -> impl Iterator<Item = &str> {
    core::iter::from_fn(move || loop {
        if path.is_empty() {
            return None;
        }
        let (name, rest) = split_at_byte(path, b'/').unwrap_or((path, ""));
        path = rest;
        if !name.is_empty() {
            return Some(name);
        }
    })
}

fn align4(n: usize) -> Option<usize> {
    Some(n.checked_add(3)? & !3)
}

#[inline(never)]
fn be32(bytes: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_be_bytes(*bytes.get(off..)?.first_chunk()?))
}

/// The NUL-terminated UTF-8 string at `off`.
fn cstr(bytes: &[u8], off: usize) -> Option<&str> {
    CStr::from_bytes_until_nul(bytes.get(off..)?)
        .ok()?
        .to_str()
        .ok()
}
