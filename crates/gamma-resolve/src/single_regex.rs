//! One regex of the table, compiled for the only question the table asks it: does it match
//! the whole value?
//!
//! The table's regexes are anchored (`^(?:p)$`) and only ever asked `is_match`, never where a
//! match starts or what a group captured. `regex::Regex` (the meta regex of `regex-automata`)
//! answers every question: it compiles a forward NFA with capture states, a reverse NFA (to
//! find where a match starts), a one-pass DFA and literal prefilters, about 235,000
//! instructions for a short path pattern, of which is_match uses the forward lazy DFA. This
//! compiles one forward NFA without capture states, a lazy DFA over it (built as it
//! searches) and a PikeVM over the same NFA for the searches the lazy DFA gives up on (a
//! Unicode word boundary next to non-ASCII text, a thrashing cache): the same engines the
//! meta regex would run for `is_match`, with the same answers.
//!
//! Per search nothing is allocated once warm: the caches come from a pool, as in the `regex`
//! crate (the thread that created the pool gets its value without locking).

use regex_automata::hybrid::dfa as lazy;
use regex_automata::nfa::thompson::pikevm::{self, PikeVM};
use regex_automata::nfa::thompson::{self, NFA, WhichCaptures};
use regex_automata::util::pool::Pool;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input};
use regex_syntax::hir::Hir;

use crate::cond::{REGEX_DFA_LIMIT, REGEX_SIZE_LIMIT};

/// The per-thread search state: the lazy DFA's cache and the PikeVM's.
#[derive(Debug)]
struct Caches {
    dfa: Option<lazy::Cache>,
    vm: pikevm::Cache,
}

type NewCaches =
    Box<dyn Fn() -> Caches + Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>;

/// A compiled, already anchored regex that answers whether it matches a whole value.
#[derive(Debug)]
pub(crate) struct SingleRegex {
    pattern: Box<str>,
    /// `None` when the lazy DFA cannot be built within [`REGEX_DFA_LIMIT`]: the PikeVM alone.
    dfa: Option<lazy::DFA>,
    vm: PikeVM,
    caches: Pool<Caches, NewCaches>,
}

/// What compiling a build's regexes needs, made once per build and reused for every regex and
/// regex set: one parser and one NFA compiler. A fresh compiler allocates and clears its UTF-8
/// caches (tens of thousands of instructions, more than compiling a short path pattern); a
/// reused one only bumps their version.
#[derive(Debug)]
pub(crate) struct Compiling {
    parser: regex_syntax::Parser,
    compiler: thompson::Compiler,
}

impl Default for Compiling {
    fn default() -> Self {
        Self {
            // the `regex` crate's syntax defaults (Unicode, UTF-8, nest limit 250), those of
            // `regex_automata::util::syntax::Config::new()`
            parser: regex_syntax::ParserBuilder::new().build(),
            compiler: thompson::Compiler::new(),
        }
    }
}

impl Compiling {
    /// Parses `pattern` under the `regex` crate's syntax defaults (`None`: a syntax error).
    pub(crate) fn parse(&mut self, pattern: &str) -> Option<Hir> {
        self.parser.parse(pattern).ok()
    }

    /// One forward NFA without capture states of `patterns` (pattern id = position), within
    /// `limit` bytes of compiled program; the error says what was over the limits.
    pub(crate) fn nfa<H: std::borrow::Borrow<Hir>>(
        &mut self,
        patterns: &[H],
        limit: usize,
    ) -> Result<NFA, String> {
        self.compiler
            .configure(
                thompson::Config::new()
                    // only whether (which pattern) matches is asked, never where a group did
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(Some(limit)),
            )
            .build_many_from_hir(patterns)
            .map_err(|e| e.to_string())
    }
}

/// The error compiling `pattern` from its text reports, for a pattern that does not parse:
/// the message a refused regex always had.
fn parse_error(pattern: &str) -> String {
    thompson::Compiler::new()
        .syntax(syntax::Config::new())
        .build(pattern)
        .err()
        .map_or_else(|| "error parsing regex".to_string(), |e| e.to_string())
}

impl SingleRegex {
    /// Compiles `pattern` (already anchored) under the `regex` crate's syntax defaults
    /// (Unicode, UTF-8) and [`REGEX_SIZE_LIMIT`] on the compiled NFA; the error names what
    /// was refused (a syntax error or the size limit).
    #[cfg(test)]
    pub(crate) fn new(pattern: &str) -> Result<Self, String> {
        Self::compile(pattern, &mut Compiling::default()).map(|(re, _)| re)
    }

    /// [`SingleRegex::new`] with the build's parser and compiler; also returns the parsed
    /// pattern, which the regex sets over this regex are compiled from (one parse per
    /// distinct regex).
    pub(crate) fn compile(pattern: &str, with: &mut Compiling) -> Result<(Self, Hir), String> {
        let hir = with.parse(pattern).ok_or_else(|| parse_error(pattern))?;
        let nfa = with.nfa(&[&hir], REGEX_SIZE_LIMIT)?;
        let dfa = lazy::Builder::new()
            .configure(
                lazy::Config::new()
                    .cache_capacity(REGEX_DFA_LIMIT)
                    // quit on non-ASCII text rather than refuse a Unicode word boundary
                    .unicode_word_boundary(true)
                    // give up when the cache thrashes, as the regex crate does
                    .minimum_cache_clear_count(Some(3))
                    .minimum_bytes_per_state(Some(10)),
            )
            .build_from_nfa(nfa.clone())
            .ok();
        let vm = PikeVM::builder()
            .build_from_nfa(nfa)
            .map_err(|e| e.to_string())?;
        let (d, v) = (dfa.clone(), vm.clone());
        let new: NewCaches = Box::new(move || Caches {
            dfa: d.as_ref().map(lazy::DFA::create_cache),
            vm: v.create_cache(),
        });
        let re = Self {
            pattern: pattern.into(),
            dfa,
            vm,
            caches: Pool::new(new),
        };
        Ok((re, hir))
    }

    /// The pattern as compiled (anchored).
    pub(crate) fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether the regex matches `haystack` (the pattern is anchored at both ends, so: the
    /// whole of it).
    #[inline]
    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        let input = Input::new(haystack).anchored(Anchored::Yes).earliest(true);
        let mut caches = self.caches.get();
        let c = &mut *caches;
        if let (Some(dfa), Some(cache)) = (&self.dfa, c.dfa.as_mut())
            && let Ok(m) = dfa.try_search_fwd(cache, &input)
        {
            return m.is_some();
        }
        self.vm.is_match(&mut c.vm, input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pieces random patterns are made of: literals, classes, repetitions, alternations,
    /// groups, inner anchors, word boundaries (ASCII and Unicode) and flags.
    const PIECES: &[&str] = &[
        "/",
        "a",
        "b",
        "x",
        "[ab]",
        "[0-9]+",
        ".*",
        ".+",
        "(a|b)",
        "(/x)?",
        "a*",
        "b{1,2}",
        "^",
        "$",
        "(?i)A",
        "\\b",
        "\\B",
        "(?-u:\\b)",
        "|",
        "[^/]*",
        "é",
        "\\w+",
        "(?m)$",
        "(?s).",
    ];

    proptest! {
        // The regex crate's own `Regex::is_match` and this one agree on every value, Unicode
        // word boundaries next to non-ASCII text included (the lazy DFA gives up, the PikeVM
        // answers).
        #[test]
        fn agrees_with_the_regex_crate(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..6),
            values in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(&["/", "a", "b", "x", "A", "0", "é", " ", "\n", ""][..]),
                    0..7,
                ).prop_map(|v| v.concat()),
                1..8,
            ),
        ) {
            let anchored = format!("^(?:{})$", pieces.concat());
            let ours = SingleRegex::new(&anchored);
            let theirs = regex::Regex::new(&anchored);
            prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{}", anchored);
            if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
                for v in &values {
                    prop_assert_eq!(ours.is_match(v), theirs.is_match(v), "{} on {:?}", anchored, v);
                }
            }
        }
    }

    // docs/robustness.md bounded work: a pattern whose program exceeds the size limit is
    // refused, as the regex crate refuses it under the same limit.
    #[test]
    fn oversized_patterns_are_refused() {
        let big = "^(?:\\w{0,5000}x)$";
        assert!(SingleRegex::new(big).is_err());
        assert!(
            regex::RegexBuilder::new(big)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .is_err()
        );
        // the limit bounds the one forward program this compiles (no capture states, no
        // reverse program), so it admits what the regex crate admits under it, and a little
        // more near the limit
        assert!(SingleRegex::new("^(?:\\w{0,4}x)$").is_ok());
        assert!(SingleRegex::new("^(?:\\w{0,32}x)$").is_err());
        assert!(SingleRegex::new("^(?:a)|(b)$").is_ok());
        assert!(SingleRegex::new("^(?:a))$").is_err());
    }
}
