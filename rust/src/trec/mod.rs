//! TREC qrels and run text, read in windows and parsed in parallel pieces, with the
//! user and item ids encoded to dense codes (in order of first appearance) while
//! parsing.
//!
//! Lines end with `\n` or `\r\n` (the `\r` is whitespace), or with `\r` alone in a
//! text without any `\n` (old Mac OS line ends); a UTF-8 byte-order mark at the start
//! of the text is skipped. Lines are split on ASCII whitespace; blank lines and lines
//! starting with `#` are skipped. A qrels line has exactly 4 fields (`user iteration item grade`), a run
//! line at least 6 (`user Q0 item rank score tag`; fields after the tag are ignored,
//! as trec_eval ignores them). Errors name the 1-based line; when a file has several
//! problems the first line with a wrong number of fields wins, then the first value
//! that is not a number, then the first score that is not finite.
//!
//! The text is parsed in windows of whole lines: a plain file is mapped into memory
//! and each window parsed is dropped from the map; gzip is decompressed into
//! windows by a thread of its own while the previous window is parsed. Memory
//! holds a window or two of text next to the output, never the whole file. A
//! window is cut into pieces at line ends, parsed in parallel: each piece looks its
//! ids up in the codes of the windows before (read only) and numbers the ids it is
//! the first to see in a table of its own; the pieces' new ids then get their codes
//! in file order, and the rows are written to the output with the final codes. The
//! result does not depend on the sizes of windows and pieces, nor on the threads.

//!
//! Beside the reader: trec_eval's measures of one user ([`measures`]) and their
//! expected values over the orders of tied scores ([`ties`]).

pub(crate) mod ids;
pub mod measures;
mod parsed;
mod pieces;
mod read;
mod text;
pub mod ties;

pub use parsed::{Kind, Parsed, TrecError, Users};
pub use read::{parse, parse_reader, parse_slice, read_file, Sizes};

#[cfg(test)]
mod tests;
