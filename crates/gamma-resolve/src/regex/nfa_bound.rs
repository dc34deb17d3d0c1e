//! An upper bound on the size of the forward NFA a parsed pattern compiles to, read off its
//! syntax tree without compiling it.
//!
//! A regex of the table is refused when its compiled program exceeds
//! [`REGEX_SIZE_LIMIT`](crate::regex::REGEX_SIZE_LIMIT). Deciding that exactly means compiling
//! the NFA, which costs more than parsing the pattern; but most route regexes are short ASCII
//! paths (`/v[0-9]+/items/[a-z-]+`, `/api/.*`) whose programs are a few kilobytes, two orders
//! of magnitude under the limit. For those this bound proves the pattern within the limit, so
//! a regex only ever matched through a regex set need not compile its own program at all
//! ([`crate::regex::single::SingleRegex::deferred`]). Where the bound is inconclusive (large
//! Unicode classes, counted repetitions of them) the caller compiles and decides exactly.
//!
//! The bound follows what the Thompson compiler of `regex-automata` adds to its builder per
//! syntax node (the size limit counts the builder's states and their transitions): a state
//! per literal byte, one sparse state for an ASCII class, a UTF-8 automaton of at most four
//! states per byte sequence for any other class (at most 26 sequences per scalar range), a
//! copy of the sub-expression per repetition, a union state per alternation or optional
//! copy. Each term is rounded up generously; a property test compiles random patterns under
//! exactly their bound.

use regex_syntax::hir::{Class, Hir, HirKind};

/// A state of the compiler's builder, rounded up (the enum is 32 bytes on 64-bit targets).
const STATE: usize = 64;
/// A transition of a sparse state (a byte range and a state id: 8 bytes).
const TRANSITION: usize = 8;
/// An alternate of a union state (a state id: 4 bytes), with room to spare.
const ALTERNATE: usize = 8;
/// UTF-8 byte sequences of one scalar value range, at most (per encoded length `n`, at most
/// `2n - 1`, twice for the three-byte ranges split around the surrogates: 1 + 3 + 10 + 7).
const SEQUENCES_PER_RANGE: usize = 26;
/// The states and transitions one UTF-8 byte sequence adds: at most one of each per byte.
const PER_SEQUENCE: usize = 4 * (STATE + TRANSITION);
/// What compiling any pattern adds around it: the start states, the unanchored prefix
/// (`(?s-u:.)*?`) and the match state.
const FIXED: usize = 16 * STATE;
/// Syntax trees deeper than this are not bounded (the parser's nest limit is 250).
const MAX_DEPTH: usize = 512;

/// An upper bound, in the bytes the NFA size limit counts, of the forward program of `hir`
/// compiled alone without capture states; `usize::MAX` when it cannot be bounded cheaply.
pub(crate) fn nfa_bytes_bound(hir: &Hir) -> usize {
    bound(hir, 0).saturating_add(FIXED)
}

/// Whether the forward program of `hir` is surely within `limit` bytes (the bound, doubled
/// for margin, is).
pub(crate) fn surely_within(hir: &Hir, limit: usize) -> bool {
    nfa_bytes_bound(hir).saturating_mul(2) <= limit
}

fn bound(hir: &Hir, depth: usize) -> usize {
    if depth > MAX_DEPTH {
        return usize::MAX;
    }
    let sub = |h: &Hir| bound(h, depth + 1);
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => STATE,
        HirKind::Literal(lit) => lit.0.len().saturating_add(1).saturating_mul(STATE),
        HirKind::Class(Class::Bytes(c)) => sparse(c.ranges().len()),
        HirKind::Class(Class::Unicode(c)) if c.is_ascii() => sparse(c.ranges().len()),
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .len()
            .saturating_mul(SEQUENCES_PER_RANGE * PER_SEQUENCE)
            .saturating_add(2 * STATE),
        HirKind::Repetition(rep) => {
            // `x{n}`, `x{n,m}` and `x{n,}` compile at most max(n, m, 1) copies of `x`, each
            // optional one behind a union state
            let copies = rep.max.unwrap_or(rep.min).max(rep.min).max(1);
            let copies = usize::try_from(copies).unwrap_or(usize::MAX);
            sub(&rep.sub)
                .saturating_add(STATE + 2 * ALTERNATE)
                .saturating_mul(copies)
                .saturating_add(2 * STATE)
        }
        HirKind::Capture(cap) => sub(&cap.sub).saturating_add(2 * STATE),
        HirKind::Concat(subs) => subs.iter().fold(STATE, |acc, h| acc.saturating_add(sub(h))),
        HirKind::Alternation(subs) => subs.iter().fold(2 * STATE, |acc, h| {
            acc.saturating_add(sub(h)).saturating_add(STATE + ALTERNATE)
        }),
    }
}

/// One sparse state with `ranges` transitions, and the empty state after it.
fn sparse(ranges: usize) -> usize {
    ranges.saturating_mul(TRANSITION).saturating_add(2 * STATE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regex::REGEX_SIZE_LIMIT;
    use crate::regex::single::Compiling;
    use proptest::prelude::*;

    fn parsed(pattern: &str) -> Hir {
        Compiling::default()
            .parse(pattern)
            .unwrap_or_else(|| panic!("{pattern} parses"))
    }

    /// Compiling `pattern` alone under exactly its bound succeeds.
    fn within_its_bound(pattern: &str) -> Result<(), String> {
        let hir = parsed(pattern);
        let b = nfa_bytes_bound(&hir);
        if b == usize::MAX {
            return Ok(());
        }
        Compiling::default()
            .nfa(&[&hir], Some(b))
            .map(|_| ())
            .map_err(|e| format!("{pattern}: bound {b}: {e}"))
    }

    // The route regexes of the benchmarks and the documentation are proven small without
    // compiling; Unicode word classes repeated are left to the compiler.
    #[test]
    fn short_ascii_path_patterns_are_proven_within_the_limit() {
        for p in [
            "^(?:/r0/v[0-9]+/items/[a-z0-9-]+)$",
            "^(?:/r1/(users|groups)/[0-9]+(/.*)?)$",
            r"^(?:/r2/.*\.(json|xml))$",
            "^(?:/r3/[A-Za-z]+-[0-9]{2,4})$",
            "^(?:/api/v[0-9]+/[^/]+/status)$",
        ] {
            assert!(surely_within(&parsed(p), REGEX_SIZE_LIMIT), "{p}");
        }
        for p in [
            "^(?:\\w{0,32}x)$",
            "^(?:\\w{0,5000}x)$",
            "^(?:((a{100}){100}){100})$",
        ] {
            assert!(!surely_within(&parsed(p), REGEX_SIZE_LIMIT), "{p}");
        }
    }

    #[test]
    fn the_bound_holds_for_unicode_classes_repetitions_and_alternations() {
        for p in [
            "^(?:\\w{0,3}x)$",
            "^(?:\\pL+)$",
            "^(?:(?i)straße)$",
            "^(?:[^/]{2,9}|[\u{80}-\u{10FFFF}]+|é*)$",
            "^(?:(ab|cd|ef|gh){3,5})$",
            "^(?:(a|b)*(c{2,}|d?)e{0,3})$",
            "^(?:\\b\\B(?-u:\\b)(?m:^$)\\A\\z)$",
            "^(?:)$",
            "^(?:(?s).{1,20})$",
            "^(?:[\u{7FF}-\u{800}\u{FFFF}-\u{10000}\u{D7FF}-\u{E000}])$",
        ] {
            assert_eq!(within_its_bound(p), Ok(()));
        }
    }

    /// Pieces of random patterns: those of the single regex's tests, with Unicode classes,
    /// counted repetitions and literal alternations.
    fn pieces() -> Vec<&'static str> {
        let more = ["\\d{2}", "x{3,}", "\\pL", "[a-zé]{0,3}", "(cat|dog|ox)"];
        crate::regex::single::tests::PIECES
            .iter()
            .copied()
            .chain(more)
            .collect()
    }

    proptest! {
        // The bound is an upper bound: every random pattern compiles within exactly it.
        #[test]
        fn every_pattern_compiles_within_its_bound(
            pieces in proptest::collection::vec(proptest::sample::select(pieces()), 0..8),
            group in any::<bool>(),
            rep in proptest::option::of((0u32..4, 0u32..4)),
        ) {
            let body = pieces.concat();
            let body = match (group, rep) {
                (true, Some((n, m))) => format!("({body}){{{n},{}}}", n + m),
                (true, None) => format!("({body})*"),
                _ => body,
            };
            let pattern = format!("^(?:{body})$");
            if Compiling::default().parse(&pattern).is_some() {
                prop_assert_eq!(within_its_bound(&pattern), Ok(()));
            }
        }
    }
}
