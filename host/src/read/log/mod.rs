//! Reading a console log into a [`Run`](crate::read::model::Run): the `@mb` records among
//! whatever else the console printed (boot loader output, CR LF line ends, ANSI escapes,
//! serial noise, a cut last line). What the records mean (kinds, fields, units) comes from
//! core's schema and kernel tables; a kind or a field they do not know is a warning, not an
//! error.
//!
//! One line at a time ([`line`](mod@line): [`record`], [`records`]), checked against the schema
//! ([`schema`]: [`mismatches`]), folded into a [`Parsed`] ([`parse()`]), then judged as a
//! whole ([`verdict()`]).

pub mod line;
pub mod parse;
pub mod parsed;
pub mod schema;
pub mod verdict;

pub use line::{last_end, record, records, BadRecord, End};
pub use parse::parse;
pub use parsed::{Evidence, Kept, Parsed, Problem};
pub use schema::mismatches;
pub use verdict::{verdict, Verdict};
