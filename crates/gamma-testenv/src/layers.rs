//! One-way layers of a crate's modules, checked from its source tree.
//!
//! A crate lists each of its files (or folders, ending in `/`) with a layer number, bottom
//! (1) to top; [`check`] reads every file, takes the `use` declarations and the inline
//! `crate::`, `super::` and `self::` paths of its non-test code (items under `#[cfg(test)]`
//! and files named `tests.rs` are skipped; comments and string literals are ignored),
//! resolves each to the file that defines what it names (following `pub use` re-exports),
//! and reports:
//!
//! - every import of a file in a higher layer (file, line, the path as written, both layers);
//! - every file in no layer of the table;
//! - every import circle whose files lie in more than one folder (files at the root of the
//!   checked tree each count as a folder of their own): cycles may remain only inside one
//!   folder.
//!
//! Paths are read as text, not compiled: a path the checker cannot resolve to a file of the
//! crate (`std::`, other crates, local items) is not an import of another file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A crate's layer table.
#[derive(Debug, Clone, Copy)]
pub struct Layers<'a> {
    /// The names of the layers, bottom first: layer `n` is `names[n - 1]`.
    pub names: &'a [&'a str],
    /// Files (`build/mod.rs`, `hostname.rs`) and folders (`build/`), relative to the source
    /// root, with their layer; a file's own entry wins over its folder's.
    pub table: &'a [(&'a str, usize)],
}

impl Layers<'_> {
    /// The layer of a file (relative path with `/`), by its own entry or its nearest folder's.
    pub fn layer_of(&self, file: &str) -> Option<usize> {
        if let Some((_, l)) = self.table.iter().find(|(k, _)| *k == file) {
            return Some(*l);
        }
        let mut dir = file;
        while let Some(i) = dir.rfind('/') {
            dir = &dir[..i];
            let folder = format!("{dir}/");
            if let Some((_, l)) = self.table.iter().find(|(k, _)| *k == folder) {
                return Some(*l);
            }
        }
        None
    }

    fn name(&self, layer: usize) -> &str {
        layer
            .checked_sub(1)
            .and_then(|i| self.names.get(i))
            .copied()
            .unwrap_or("?")
    }
}

/// One import of one file: where it is written and what it names.
#[derive(Debug, Clone)]
pub struct Import {
    /// The line of the `use` or the path.
    pub line: usize,
    /// The path as written (`crate::table::Part`).
    pub text: String,
    /// The file it resolves to, relative to the source root.
    pub target: String,
}

/// The files of a crate's source tree, their modules and what each re-exports.
#[derive(Debug, Default)]
pub struct Tree {
    /// Relative path -> module path (`build/mod.rs` -> `["build"]`).
    files: BTreeMap<String, Vec<String>>,
    /// Module path -> relative path.
    modules: BTreeMap<Vec<String>, String>,
    /// Per file, its non-test code with comments and literals blanked.
    code: BTreeMap<String, String>,
    /// Per file: name -> absolute path it re-exports; glob re-exports; names it defines.
    reexports: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    globs: BTreeMap<String, Vec<Vec<String>>>,
    defines: BTreeMap<String, BTreeSet<String>>,
}

impl Tree {
    /// Reads every `.rs` file under `src` (but `tests.rs` files and `tests/` folders).
    pub fn read(src: &Path) -> std::io::Result<Tree> {
        let mut tree = Tree::default();
        let mut stack = vec![src.to_path_buf()];
        let mut paths: Vec<PathBuf> = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir)? {
                let path = entry?.path();
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if path.is_dir() {
                    if name != "tests" {
                        stack.push(path);
                    }
                } else if name.ends_with(".rs") && name != "tests.rs" {
                    paths.push(path);
                }
            }
        }
        for path in paths {
            let rel = path
                .strip_prefix(src)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let mut module: Vec<String> = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_owned)
                .collect();
            if module.last().is_some_and(|m| m == "mod") || module == ["lib"] || module == ["main"]
            {
                module.pop();
            }
            let text = fs::read_to_string(&path)?;
            tree.code
                .insert(rel.clone(), drop_test_items(&blank(&text)));
            tree.modules.insert(module.clone(), rel.clone());
            tree.files.insert(rel, module);
        }
        let files: Vec<(String, Vec<String>)> = tree
            .files
            .iter()
            .map(|(f, m)| (f.clone(), m.clone()))
            .collect();
        for (file, module) in files {
            let code = tree.code.get(&file).cloned().unwrap_or_default();
            tree.defines.insert(file.clone(), defined_names(&code));
            for (_, is_pub, use_tree) in use_declarations(&code) {
                if !is_pub {
                    continue;
                }
                for (path, alias) in expand_use_tree(&use_tree) {
                    let Some(abs) = tree.absolute(&path, &module) else {
                        continue;
                    };
                    if path.last().is_some_and(|s| s == "*") {
                        let mut glob = abs;
                        glob.pop();
                        tree.globs.entry(file.clone()).or_default().push(glob);
                    } else if let Some(name) = alias.or_else(|| path.last().cloned()) {
                        tree.reexports
                            .entry(file.clone())
                            .or_default()
                            .insert(name, abs);
                    }
                }
            }
        }
        Ok(tree)
    }

    /// Every file, relative to the source root.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// A path as written in the module `module`, made absolute (without `crate`); `None` when
    /// it does not start in this crate.
    fn absolute(&self, path: &[String], module: &[String]) -> Option<Vec<String>> {
        let first = path.first()?;
        match first.as_str() {
            "crate" => Some(path.get(1..)?.to_vec()),
            "super" | "self" => {
                let mut base = module.to_vec();
                let mut rest = path;
                while let Some(s) = rest.first() {
                    match s.as_str() {
                        "super" => {
                            base.pop()?;
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                Some(base)
            }
            _ => {
                // a child module of the current one (2018 paths in `use`)
                let mut child = module.to_vec();
                child.push(first.clone());
                self.modules.contains_key(&child).then(|| {
                    let mut out = module.to_vec();
                    out.extend(path.iter().cloned());
                    out
                })
            }
        }
    }

    /// The file that defines what an absolute path names, following re-exports.
    fn resolve(&self, path: &[String], depth: usize) -> Option<String> {
        let k = (0..=path.len())
            .rev()
            .find(|k| self.modules.contains_key(&path[..*k]))?;
        let file = self.modules.get(&path[..k])?.clone();
        let rest = &path[k..];
        let Some(name) = rest.first() else {
            return Some(file);
        };
        if depth > 16 || name == "*" {
            return Some(file);
        }
        if let Some(target) = self.reexports.get(&file).and_then(|r| r.get(name)) {
            let mut next = target.clone();
            next.extend(rest[1..].iter().cloned());
            return self.resolve(&next, depth + 1).or(Some(file));
        }
        if !self.defines.get(&file).is_some_and(|d| d.contains(name)) {
            for glob in self.globs.get(&file).into_iter().flatten() {
                let Some(glob_file) = self.modules.get(glob) else {
                    continue;
                };
                if self
                    .defines
                    .get(glob_file)
                    .is_some_and(|d| d.contains(name))
                    || self
                        .reexports
                        .get(glob_file)
                        .is_some_and(|r| r.contains_key(name))
                {
                    let mut next = glob.clone();
                    next.extend(rest.iter().cloned());
                    return self.resolve(&next, depth + 1).or(Some(file));
                }
            }
        }
        Some(file)
    }

    /// The imports of a file's non-test code that name another file of the tree.
    pub fn imports(&self, file: &str) -> Vec<Import> {
        let (Some(code), Some(module)) = (self.code.get(file), self.files.get(file)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let uses = use_declarations(code);
        let mut add = |line: usize, path: Vec<String>| {
            let Some(abs) = self.absolute(&path, module) else {
                return;
            };
            if let Some(target) = self.resolve(&abs, 0)
                && target != file
            {
                out.push(Import {
                    line,
                    text: path.join("::"),
                    target,
                });
            }
        };
        for (at, _, tree) in &uses {
            for (path, _) in expand_use_tree(tree) {
                add(line_of(code, *at), path);
            }
        }
        for (at, path) in inline_paths(code) {
            if uses
                .iter()
                .any(|(start, _, tree)| at >= *start && at <= start + tree.len() + 8)
            {
                continue;
            }
            add(line_of(code, at), path);
        }
        out
    }
}

/// Checks the files of `src` under the folder `under` (`""`: all of them) against `layers`;
/// the problems found, one line each (empty: the layers hold). Imports of files outside
/// `under` are not checked.
pub fn check(src: &Path, under: &str, layers: &Layers<'_>) -> Vec<String> {
    let tree = match Tree::read(src) {
        Ok(t) => t,
        Err(e) => return vec![format!("cannot read {}: {e}", src.display())],
    };
    let prefix = if under.is_empty() {
        String::new()
    } else {
        format!("{}/", under.trim_end_matches('/'))
    };
    let checked: Vec<&str> = tree.files().filter(|f| f.starts_with(&prefix)).collect();
    let order: Vec<String> = layers
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{} {n}", i + 1))
        .collect();
    let mut problems = Vec::new();
    let mut edges: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for file in &checked {
        let Some(own) = layers.layer_of(file) else {
            problems.push(format!(
                "{file} is in no layer: add it to the layer table (layers, bottom to top: {}); \
                 it may import only from its own layer and those below",
                order.join(", ")
            ));
            continue;
        };
        for import in tree.imports(file) {
            if !import.target.starts_with(&prefix) {
                continue;
            }
            edges.entry(file).or_default().insert(import.target.clone());
            let Some(theirs) = layers.layer_of(&import.target) else {
                continue;
            };
            if theirs > own {
                problems.push(format!(
                    "{file}:{}: `{}` imports {} (layer {theirs}, {}) from layer {own} ({}): \
                     imports run one way, from higher layers to lower ones; move what it \
                     needs down, or the code up",
                    import.line,
                    import.text,
                    import.target,
                    layers.name(theirs),
                    layers.name(own)
                ));
            }
        }
    }
    // the folder of a file: the module that owns its directory (`table/` for `table/mod.rs`
    // and `table/compiled.rs`, `reference/` for `reference.rs` and `reference/gateway.rs`);
    // a file at the root of the checked tree is a folder of its own
    let with_dirs: BTreeSet<&[String]> = tree
        .files
        .values()
        .flat_map(|m| (1..m.len()).map(move |k| &m[..k]))
        .collect();
    let root_depth = prefix.matches('/').count();
    let unit = |f: &str| -> String {
        let Some(module) = tree.files.get(f) else {
            return f.to_owned();
        };
        let owner: &[String] = if with_dirs.contains(module.as_slice()) {
            module
        } else {
            &module[..module.len().saturating_sub(1)]
        };
        if owner.len() <= root_depth {
            f.to_owned()
        } else {
            format!("{}/", owner.join("/"))
        }
    };
    for circle in circles(&checked, &edges) {
        let folders: BTreeSet<String> = circle.iter().map(|f| unit(f)).collect();
        if folders.len() > 1 {
            problems.push(format!(
                "import circle across folders ({}): {}; cycles may remain only inside one folder",
                folders.into_iter().collect::<Vec<_>>().join(", "),
                circle.join(" ")
            ));
        }
    }
    problems
}

/// The strongly connected components of more than one file (Tarjan).
fn circles(files: &[&str], edges: &BTreeMap<&str, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'e> {
        edges: &'e BTreeMap<&'e str, BTreeSet<String>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on: BTreeSet<String>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit(s: &mut State<'_>, v: &str) {
        s.index.insert(v.to_owned(), s.next);
        s.low.insert(v.to_owned(), s.next);
        s.next += 1;
        s.stack.push(v.to_owned());
        s.on.insert(v.to_owned());
        let targets: Vec<String> = s
            .edges
            .get(v)
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        for w in targets {
            if !s.index.contains_key(&w) {
                visit(s, &w);
                let lw = s.low.get(&w).copied().unwrap_or(usize::MAX);
                if let Some(lv) = s.low.get_mut(v) {
                    *lv = (*lv).min(lw);
                }
            } else if s.on.contains(&w) {
                let iw = s.index.get(&w).copied().unwrap_or(usize::MAX);
                if let Some(lv) = s.low.get_mut(v) {
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low.get(v) == s.index.get(v) {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(&w);
                let done = w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for f in files {
        if !s.index.contains_key(*f) {
            visit(&mut s, f);
        }
    }
    s.out
}

fn line_of(code: &str, at: usize) -> usize {
    code.get(..at).map_or(0, |c| c.matches('\n').count()) + 1
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The source with comments, string and char literals replaced by spaces (newlines kept, so
/// byte offsets and lines stay).
fn blank(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let n = b.len();
    let at = |i: usize| b.get(i).copied().unwrap_or('\0');
    let spaces = |out: &mut String, from: &[char]| {
        for c in from {
            out.push(if *c == '\n' { '\n' } else { ' ' });
        }
    };
    while i < n {
        let c = at(i);
        if c == '/' && at(i + 1) == '/' {
            let mut j = i;
            while j < n && at(j) != '\n' {
                j += 1;
            }
            spaces(&mut out, &b[i..j]);
            i = j;
        } else if c == '/' && at(i + 1) == '*' {
            let (mut depth, mut j) = (1, i + 2);
            while j < n && depth > 0 {
                if at(j) == '/' && at(j + 1) == '*' {
                    depth += 1;
                    j += 2;
                } else if at(j) == '*' && at(j + 1) == '/' {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            let j = j.min(n);
            spaces(&mut out, &b[i..j]);
            i = j;
        } else if (c == 'r' || c == 'b')
            && !(i > 0 && is_ident(at(i - 1)))
            && raw_string_start(&b, i).is_some()
        {
            let (hashes, body) = raw_string_start(&b, i).unwrap_or((0, i));
            let mut j = body;
            loop {
                if j >= n {
                    break;
                }
                if at(j) == '"' && (1..=hashes).all(|k| at(j + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            let j = j.min(n);
            spaces(&mut out, &b[i..j]);
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < n && at(j) != '"' {
                j += if at(j) == '\\' { 2 } else { 1 };
            }
            let j = (j + 1).min(n);
            spaces(&mut out, &b[i..j]);
            i = j;
        } else if c == '\'' {
            // a char literal ('x', '\n', '\u{..}'); a lifetime has no closing quote
            let end = if at(i + 1) == '\\' {
                (i + 2..n.min(i + 12)).find(|&j| at(j) == '\'')
            } else if at(i + 2) == '\'' {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(j) => {
                    spaces(&mut out, &b[i..=j]);
                    i = j + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `r"`, `r#"`, `br"`...: the number of `#` and where the body starts.
fn raw_string_start(b: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if b.get(j) == Some(&'b') {
        j += 1;
    }
    if b.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while b.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (b.get(j) == Some(&'"')).then_some((hashes, j + 1))
}

/// The code with every item under `#[cfg(test)]` blanked (newlines kept).
fn drop_test_items(code: &str) -> String {
    let mut b: Vec<char> = code.chars().collect();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + marker.len() <= b.len() {
        if b[i..i + marker.len()] != marker[..] {
            i += 1;
            continue;
        }
        let end = item_end(&b, i + marker.len());
        for c in b.iter_mut().take(end).skip(i) {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
    b.into_iter().collect()
}

/// The end of the item starting at `i` (after an attribute): further attributes skipped, up
/// to its `;` or the end of its first brace block.
fn item_end(b: &[char], mut i: usize) -> usize {
    let n = b.len();
    loop {
        while i < n && b[i].is_whitespace() {
            i += 1;
        }
        if i + 1 < n && b[i] == '#' && b[i + 1] == '[' {
            let mut depth = 0;
            while i < n {
                match b[i] {
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i += 1;
        } else {
            break;
        }
    }
    while i < n {
        match b[i] {
            ';' => return i + 1,
            '{' => {
                let mut depth = 0;
                while i < n {
                    match b[i] {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return n;
            }
            _ => i += 1,
        }
    }
    n
}

/// Every `use` declaration: (offset of `use`, whether it is a re-export, the tree text).
fn use_declarations(code: &str) -> Vec<(usize, bool, String)> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(k) = code.get(from..).and_then(|c| c.find("use")) {
        let at = from + k;
        from = at + 3;
        let before = code.get(..at).and_then(|c| c.chars().next_back());
        let after = bytes.get(at + 3).copied().map(char::from);
        if before.is_some_and(is_ident)
            || before == Some('#')
            || !after.is_some_and(char::is_whitespace)
        {
            continue;
        }
        let Some(end) = code.get(at..).and_then(|c| c.find(';')) else {
            continue;
        };
        let tree = code.get(at + 3..at + end).unwrap_or("").to_owned();
        // `pub use`, `pub(crate) use`, `pub(super) use`
        let head = code.get(..at).unwrap_or("").trim_end();
        let is_pub = head.ends_with("pub")
            || (head.ends_with(')') && head.contains("pub(") && {
                let open = head.rfind("pub(").unwrap_or(0);
                !head[open..].contains('\n')
            });
        out.push((at, is_pub, tree));
    }
    out
}

/// The paths of a use tree (`a::{b, c::d as e}`), each with its alias.
fn expand_use_tree(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    let compact: String = {
        let mut s = String::new();
        let mut words = tree.split_whitespace().peekable();
        while let Some(w) = words.next() {
            s.push_str(w);
            if words.peek() == Some(&"as") || w == "as" {
                s.push(' ');
            }
        }
        s
    };
    let mut out = Vec::new();
    walk_tree(&[], &compact, &mut out);
    out
}

fn walk_tree(prefix: &[String], t: &str, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let t = t.trim();
    if t.is_empty() {
        return;
    }
    if let (Some(open), Some(close)) = (t.find('{'), t.rfind('}')) {
        let head = t[..open].trim_end_matches(':');
        let mut base = prefix.to_vec();
        base.extend(
            head.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
        let inner = &t[open + 1..close];
        let (mut depth, mut start) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    walk_tree(&base, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        walk_tree(&base, &inner[start..], out);
        return;
    }
    let (path, alias) = match t.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim().to_owned())),
        None => (t, None),
    };
    let mut full = prefix.to_vec();
    full.extend(
        path.split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
    );
    if full.last().is_some_and(|s| s == "self") {
        full.pop();
    }
    out.push((full, alias));
}

/// Inline paths starting with `crate`, `super` or `self` (not after `::`): offset and segments.
fn inline_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if !(c.is_ascii_alphabetic() || c == '_') || (i > 0 && is_ident(chars[i - 1].1)) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && is_ident(chars[j].1) {
            j += 1;
        }
        let word: String = chars[i..j].iter().map(|(_, c)| c).collect();
        let after_colons = i >= 2 && chars[i - 1].1 == ':' && chars[i - 2].1 == ':';
        if matches!(word.as_str(), "crate" | "super" | "self") && !after_colons {
            let mut segments = vec![word];
            let mut k = j;
            while k + 2 < chars.len() && chars[k].1 == ':' && chars[k + 1].1 == ':' {
                let s = k + 2;
                let mut e = s;
                while e < chars.len() && is_ident(chars[e].1) {
                    e += 1;
                }
                if e == s {
                    break;
                }
                segments.push(chars[s..e].iter().map(|(_, c)| c).collect());
                k = e;
            }
            if segments.len() > 1 {
                out.push((at, segments));
            }
            i = k;
        } else {
            i = j;
        }
    }
    out
}

/// The names items are defined under (`struct X`, `fn f`, `mod m`, ...), anywhere in the code.
fn defined_names(code: &str) -> BTreeSet<String> {
    const KEYWORDS: [&str; 9] = [
        "struct", "enum", "fn", "trait", "type", "const", "static", "mod", "union",
    ];
    let mut out = BTreeSet::new();
    let mut previous: Option<&str> = None;
    for word in code.split(|c: char| !is_ident(c)).filter(|w| !w.is_empty()) {
        if previous.is_some_and(|p| KEYWORDS.contains(&p)) {
            out.insert(word.to_owned());
        }
        previous = Some(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: Layers<'static> = Layers {
        names: &["vocabulary", "table", "facade"],
        table: &[("words.rs", 1), ("table/", 2), ("lib.rs", 3)],
    };

    fn tree(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "gamma-layers-{}-{}",
            std::process::id(),
            files.len() * 31 + files.iter().map(|(_, c)| c.len()).sum::<usize>()
        ));
        let _ = fs::remove_dir_all(&dir);
        for (path, text) in files {
            let p = dir.join(path);
            if let Some(parent) = p.parent() {
                fs::create_dir_all(parent).unwrap_or_default();
            }
            fs::write(&p, text).unwrap_or_default();
        }
        dir
    }

    #[test]
    fn an_upward_import_an_unlisted_file_and_a_circle_are_reported() {
        let dir = tree(&[
            ("lib.rs", "mod table;\nmod words;\npub use table::Table;\n"),
            (
                "words.rs",
                "//! crate::table::Table in a comment is no import\n\
                 pub struct Word;\n\
                 pub fn f() -> usize { crate::table::size() }\n\
                 #[cfg(test)]\nmod tests { use crate::table::Table; }\n",
            ),
            (
                "table/mod.rs",
                "mod parts;\nuse crate::words::Word;\npub use parts::size;\npub struct Table(Word);\n",
            ),
            (
                "table/parts.rs",
                "use super::Table;\npub fn size() -> usize { 1 }\n",
            ),
            ("extra.rs", "use crate::words::{self, Word as W};\n"),
        ]);
        let problems = check(&dir, "", &TABLE);
        let _ = fs::remove_dir_all(&dir);
        assert_eq!(problems.len(), 3, "{problems:#?}");
        // the re-export is followed to the file that defines `size`
        assert!(problems.iter().any(|p| p.starts_with(
            "words.rs:3: `crate::table::size` imports table/parts.rs (layer 2, table) from layer 1"
        )));
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("extra.rs is in no layer"))
        );
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("import circle across folders") && p.contains("words.rs"))
        );
    }

    #[test]
    fn downward_and_sideways_imports_pass() {
        let dir = tree(&[
            (
                "lib.rs",
                "mod table;\nmod words;\nuse crate::table::Table;\n",
            ),
            (
                "words.rs",
                "pub struct Word;\nlet s = \"crate::table::Table\";\n",
            ),
            (
                "table/mod.rs",
                "mod parts;\nuse crate::words::Word;\npub struct Table;\n",
            ),
            (
                "table/parts.rs",
                "use super::Table;\nfn f(t: &'static super::Table) {}\n",
            ),
        ]);
        let problems = check(&dir, "", &TABLE);
        let _ = fs::remove_dir_all(&dir);
        assert_eq!(problems, Vec::<String>::new());
    }
}
