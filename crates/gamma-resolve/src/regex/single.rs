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
//!
//! Accepting a regex needs only its parse when its program is provably within the size limit
//! ([`crate::regex::nfa_bound`]): the program is then compiled when the table is finished, or, for a
//! path regex the table only matches through a regex set, by the first search that needs it
//! alone (a set's lazy DFA giving up, an explanation), like the caches.

use regex_automata::hybrid::dfa as lazy;
use regex_automata::nfa::thompson::pikevm::{self, PikeVM};
use regex_automata::nfa::thompson::{self, NFA, WhichCaptures};
use regex_automata::util::pool::Pool;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input};
use regex_syntax::hir::{Hir, Look};
use std::sync::OnceLock;

use super::{REGEX_DFA_LIMIT, REGEX_SIZE_LIMIT};

/// The per-thread search state: the lazy DFA's cache and the PikeVM's.
#[derive(Debug)]
struct Caches {
    dfa: Option<lazy::Cache>,
    vm: Option<pikevm::Cache>,
}

type NewCaches =
    Box<dyn Fn() -> Caches + Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>;

/// A compiled, already anchored regex that answers whether it matches a whole value.
///
/// Its program is compiled when the regex is made ([`SingleRegex::compile`]) or, for a
/// regex proven within the size limit without compiling ([`SingleRegex::deferred`]), when
/// [`SingleRegex::force`] or the first search asks for it: a path regex the table only ever
/// matches through a regex set is never compiled on its own.
#[derive(Debug)]
pub(crate) struct SingleRegex {
    pattern: Box<str>,
    engines: OnceLock<Engines>,
}

/// The compiled program of a [`SingleRegex`] and its search caches.
#[derive(Debug)]
struct Engines {
    /// `None` when the lazy DFA cannot be built within [`REGEX_DFA_LIMIT`]: the PikeVM alone.
    dfa: Option<lazy::DFA>,
    /// `None` only for a program that could not be compiled late (see [`Engines::late`]).
    vm: Option<PikeVM>,
    caches: Pool<Caches, NewCaches>,
}

impl Engines {
    /// The engines of a deferred regex's parsed pattern `hir`. Its size was bounded when the
    /// regex was accepted, so it is compiled without a limit, to what
    /// [`SingleRegex::compile`] would have made. Should that fail all the same (or `hir` be
    /// `None`, a pattern that no longer parses: neither happens to an accepted regex), the
    /// regex matches nothing rather than panicking in a search.
    fn late(hir: Option<&Hir>, with: &mut Compiling) -> Self {
        hir.and_then(|h| Self::compile(h, with, None).ok())
            .unwrap_or_else(|| Self {
                dfa: None,
                vm: None,
                caches: Pool::new(Box::new(|| Caches {
                    dfa: None,
                    vm: None,
                })),
            })
    }

    /// The engines of `hir`, compiled within `limit` bytes of program (`None`: no limit).
    fn compile(hir: &Hir, with: &mut Compiling, limit: Option<usize>) -> Result<Self, String> {
        let nfa = with.nfa(&[hir], limit)?;
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
            vm: Some(v.create_cache()),
        });
        Ok(Self {
            dfa,
            vm: Some(vm),
            caches: Pool::new(new),
        })
    }
}

/// What compiling a build's regexes needs, made once per build and reused for every regex and
/// regex set: one syntax parser and one NFA compiler. A fresh compiler allocates and clears its
/// UTF-8 caches (tens of thousands of instructions, more than compiling a short path pattern);
/// a reused one only bumps their version.
#[derive(Debug)]
pub(crate) struct Compiling {
    ast: regex_syntax::ast::parse::Parser,
    /// Made on the first compile: most builds (every update of routes without regexes) never
    /// compile a program, and making the compiler allocates.
    compiler: Option<thompson::Compiler>,
}

impl Default for Compiling {
    fn default() -> Self {
        Self {
            // the `regex` crate's syntax defaults (nest limit 250; Unicode and UTF-8 in
            // `translator`), those of `regex_automata::util::syntax::Config::new()`
            ast: regex_syntax::ast::parse::ParserBuilder::new().build(),
            compiler: None,
        }
    }
}

impl Compiling {
    /// Parses `pattern` under the `regex` crate's syntax defaults (`None`: a syntax error).
    ///
    /// The syntax tree's parser is reused; the translator into the parsed pattern is made
    /// for each pattern (it costs nothing to make): a translator keeps the flags a pattern
    /// sets outside any group (`(?i)abc`) for the patterns it translates after it.
    pub(crate) fn parse(&mut self, pattern: &str) -> Option<Hir> {
        let ast = self.ast.parse(pattern).ok()?;
        regex_syntax::hir::translate::TranslatorBuilder::new()
            .build()
            .translate(pattern, &ast)
            .ok()
    }

    /// One forward NFA without capture states of `patterns` (pattern id = position), within
    /// `limit` bytes of compiled program (`None`: no limit); the error says what was over
    /// the limits.
    pub(crate) fn nfa<H: std::borrow::Borrow<Hir>>(
        &mut self,
        patterns: &[H],
        limit: Option<usize>,
    ) -> Result<NFA, String> {
        self.compiler
            .get_or_insert_with(thompson::Compiler::new)
            .configure(
                thompson::Config::new()
                    // only whether (which pattern) matches is asked, never where a group did
                    .which_captures(WhichCaptures::None)
                    .nfa_size_limit(limit),
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

    /// [`SingleRegex::new`] with a given parser and compiler; also returns the parsed
    /// pattern. The build uses [`SingleRegex::deferred`], which accepts the same patterns.
    #[cfg(test)]
    pub(crate) fn compile(pattern: &str, with: &mut Compiling) -> Result<(Self, Hir), String> {
        let hir = with.parse(pattern).ok_or_else(|| parse_error(pattern))?;
        let engines = Engines::compile(&hir, with, Some(REGEX_SIZE_LIMIT))?;
        let re = Self {
            pattern: pattern.into(),
            engines: OnceLock::from(engines),
        };
        Ok((re, hir))
    }

    /// Compiles the route pattern `raw` wrapped in `anchors` (`^(?:`, `)$`: a full match) as
    /// [`SingleRegex::new`] does the wrapped text, with the build's parser and compiler. The
    /// pattern must parse alone (a pattern such as `a)|(b` parses only inside the wrapping,
    /// where it escapes the anchors, and is refused); it is parsed alone and wrapped in the
    /// parsed anchors, the same syntax tree as the wrapped text's, without parsing the
    /// wrapping. The program of a pattern that [`nfa_bound`](super::nfa_bound) proves within
    /// [`REGEX_SIZE_LIMIT`] is not compiled now: [`SingleRegex::force`] or the first search
    /// does it. Parsing is what accepting a regex costs; compiling its program alone costs
    /// about as much again, and a path regex matched through a regex set never needs it.
    /// Also returns the parsed wrapped pattern, which the regex sets over this regex are
    /// compiled from (one parse per distinct regex).
    pub(crate) fn deferred(
        raw: &str,
        anchors: (&str, &str),
        with: &mut Compiling,
    ) -> Result<(Self, Hir), String> {
        let hir = with.parse(raw).ok_or_else(|| parse_error(raw))?;
        let hir = Hir::concat(vec![Hir::look(Look::Start), hir, Hir::look(Look::End)]);
        let engines = OnceLock::new();
        if !super::nfa_bound::surely_within(&hir, REGEX_SIZE_LIMIT) {
            let _ = engines.set(Engines::compile(&hir, with, Some(REGEX_SIZE_LIMIT))?);
        }
        let re = Self {
            pattern: [anchors.0, raw, anchors.1].concat().into(),
            engines,
        };
        Ok((re, hir))
    }

    /// Compiles the program of a [`SingleRegex::deferred`] regex now, with the build's
    /// compiler (`hir`: its parsed pattern, parsed again when `None`), so that no search
    /// pays for it; nothing for a compiled one.
    pub(crate) fn force(&self, hir: Option<&Hir>, with: &mut Compiling) {
        if self.engines.get().is_none() {
            let parsed = if hir.is_none() {
                with.parse(&self.pattern)
            } else {
                None
            };
            let hir = hir.or(parsed.as_ref());
            let _ = self.engines.get_or_init(|| Engines::late(hir, with));
        }
    }

    /// Whether the program is compiled (a deferred regex not searched nor forced is not).
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.engines.get().is_some()
    }

    /// The compiled program, compiling a deferred one on first use.
    #[inline]
    fn engines(&self) -> &Engines {
        match self.engines.get() {
            Some(e) => e,
            None => self.compile_now(),
        }
    }

    /// [`SingleRegex::engines`] of a deferred regex on its first search, with a parser and
    /// compiler of its own (the build's are gone).
    #[cold]
    #[inline(never)]
    fn compile_now(&self) -> &Engines {
        self.engines.get_or_init(|| {
            let mut with = Compiling::default();
            let hir = with.parse(&self.pattern);
            Engines::late(hir.as_ref(), &mut with)
        })
    }

    /// The pattern as compiled (anchored).
    pub(crate) fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether the regex matches `haystack` (the pattern is anchored at both ends, so: the
    /// whole of it).
    #[inline]
    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        let e = self.engines();
        let input = Input::new(haystack).anchored(Anchored::Yes).earliest(true);
        let mut caches = e.caches.get();
        let c = &mut *caches;
        if let (Some(dfa), Some(cache)) = (&e.dfa, c.dfa.as_mut())
            && let Ok(m) = dfa.try_search_fwd(cache, &input)
        {
            return m.is_some();
        }
        match (&e.vm, c.vm.as_mut()) {
            (Some(vm), Some(cache)) => vm.is_match(cache, input),
            _ => false,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    const ANCHORS: (&str, &str) = crate::regex::ANCHOR;

    /// Pieces random patterns are made of: literals, classes, repetitions, alternations,
    /// groups, inner anchors, word boundaries (ASCII and Unicode) and flags.
    pub(crate) const PIECES: &[&str] = &[
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

    proptest! {
        // A regex accepted without compiling its program refuses and accepts the same
        // patterns as one compiled at once, and matches the same values whether its program
        // is compiled on the first search or forced beforehand.
        #[test]
        fn deferred_regexes_agree_with_compiled_ones(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..6),
            force in any::<bool>(),
            values in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(&["/", "a", "b", "x", "A", "0", "é", " ", ""][..]),
                    0..7,
                ).prop_map(|v| v.concat()),
                1..6,
            ),
        ) {
            let raw = pieces.concat();
            let anchored = format!("^(?:{raw})$");
            let mut with = Compiling::default();
            let eager = SingleRegex::compile(&anchored, &mut with);
            let lazy = SingleRegex::deferred(&raw, ANCHORS, &mut with);
            prop_assert_eq!(eager.is_ok(), lazy.is_ok(), "{}", anchored);
            if let (Ok((eager, wrapped)), Ok((lazy, hir))) = (eager, lazy) {
                // the pattern parsed alone and wrapped is the wrapped text parsed
                prop_assert_eq!(&wrapped, &hir, "{}", anchored);
                prop_assert_eq!(lazy.as_str(), anchored.as_str());
                if force {
                    lazy.force(Some(&hir), &mut with);
                    prop_assert!(lazy.is_compiled());
                }
                for v in &values {
                    prop_assert_eq!(eager.is_match(v), lazy.is_match(v), "{} on {:?}", anchored, v);
                }
                prop_assert!(lazy.is_compiled());
            }
        }
    }

    // A short path pattern is accepted without compiling its program; a large Unicode one is
    // compiled (and so judged against the size limit) at once.
    #[test]
    fn only_provably_small_patterns_are_deferred() {
        let mut with = Compiling::default();
        let small = SingleRegex::deferred("/v[0-9]+/items/.*", ANCHORS, &mut with);
        assert!(small.is_ok_and(|(re, _)| !re.is_compiled()));
        let unicode = SingleRegex::deferred("\\w{0,4}x", ANCHORS, &mut with);
        assert!(unicode.is_ok_and(|(re, _)| re.is_compiled()));
        assert!(SingleRegex::deferred("\\w{0,32}x", ANCHORS, &mut with).is_err());
        assert!(SingleRegex::deferred("a)", ANCHORS, &mut with).is_err());
    }

    // One parser parses every regex of a build: the flags a pattern sets outside any group
    // apply to that pattern only.
    #[test]
    fn flags_of_one_pattern_do_not_reach_the_next() {
        let mut with = Compiling::default();
        let Ok((first, _)) = SingleRegex::deferred("(?i)get", ANCHORS, &mut with) else {
            panic!("(?i)get is a regex");
        };
        let Ok((second, _)) = SingleRegex::deferred("[a-z]+T", ANCHORS, &mut with) else {
            panic!("[a-z]+T is a regex");
        };
        assert!(first.is_match("GET"));
        assert!(!second.is_match("List"));
        assert!(second.is_match("lisT"));
        assert_eq!(with.parse("x"), Some(Hir::literal(*b"x")));
    }

    // A route regex must parse alone: one that parses only inside the anchors escapes them
    // (`a)|(b` would be `^(?:a)|(b)$`, any value starting with `a` or ending with `b`), so it
    // is refused, as the regex crate and RE2 refuse it.
    #[test]
    fn a_pattern_that_escapes_the_anchors_is_refused() {
        let mut with = Compiling::default();
        assert!(SingleRegex::compile("^(?:a)|(b)$", &mut with).is_ok());
        let escaped = SingleRegex::deferred("a)|(b", ANCHORS, &mut with);
        assert_eq!(escaped.err(), Some(parse_error("a)|(b")));
        assert!(SingleRegex::deferred("(a)|(b)", ANCHORS, &mut with).is_ok());
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
