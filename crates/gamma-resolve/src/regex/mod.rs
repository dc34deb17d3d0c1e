//! Regexes (layer 3, above the vocabulary and the input): the size limits, one regex compiled
//! for a full match ([`single`]), multi-pattern regex sets ([`set`]), the upper bound on a
//! pattern's program read off its syntax tree ([`nfa_bound`]), and the pool that compiles each
//! distinct regex of a table once ([`pool`]).
//!
//! May use: nothing of the crate but itself. Patterns are anchored so that every regex match
//! is a **full** match, and compiled with size limits so hostile input cannot blow up memory
//! (docs/architecture.md "bounded work").

pub(crate) mod nfa_bound;
pub(crate) mod pool;
pub(crate) mod set;
pub(crate) mod single;

pub(crate) use pool::{HoldsRegexes, RegexPool};

/// Compiled-program size limit per regex (bytes).
pub const REGEX_SIZE_LIMIT: usize = 256 * 1024;
/// Lazy-DFA cache limit per regex (bytes).
pub const REGEX_DFA_LIMIT: usize = 256 * 1024;

/// Anchors the single regexes wrap every pattern in (a full match). The pattern itself must
/// parse alone: `a)|(b` would parse inside them, as `^(?:a)|(b)$`, and escape them.
pub(crate) const ANCHOR: (&str, &str) = ("^(?:", ")$");
