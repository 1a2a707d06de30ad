//! The module map's invariants (ARCHITECTURE.md), checked on the source itself:
//! - each database driver is named only inside its own folder of the store
//!   (`rusqlite` in `store/sqlite/`, `tokio_postgres`/`deadpool_postgres` in
//!   `store/postgres/`, `mysql::` in `store/mysql/`);
//! - no two modules of a crate import each other, directly or around a circle.
//!
//! A module is a file (`a/b.rs` or `a/b/mod.rs` is `a::b`). An edge `m -> n` is a path in
//! `m`'s code (comments and `#[cfg(test)]` modules aside) that starts with `crate::` or
//! `super::` and resolves to module `n`, the longest prefix that is a module. Edges to a
//! module's ancestors (a parent re-exports the words its children share) and to its
//! descendants do not count: a circle here is one between siblings or cousins.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file: without its tests and comment lines.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            (parts, f)
        })
        .collect()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every `crate::…`/`super::…` path in `code`, with `a::{b, c::d}` groups expanded one
/// level (`a::b`, `a::c`).
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts =
            |w: &str| code_at(&bytes, i).starts_with(w) && (i == 0 || !is_ident(bytes[i - 1]));
        if !(starts("crate::") || starts("super::")) {
            i += 1;
            continue;
        }
        let mut path = String::new();
        let mut j = i;
        loop {
            let seg: String = bytes[j..].iter().take_while(|c| is_ident(**c)).collect();
            j += seg.chars().count();
            path.push_str(&seg);
            if code_at(&bytes, j).starts_with("::") {
                j += 2;
                if bytes.get(j) == Some(&'{') {
                    let close = bytes[j..]
                        .iter()
                        .position(|c| *c == '}')
                        .map_or(j, |p| j + p);
                    let inner: String = bytes[j + 1..close].iter().collect();
                    for item in inner.split(',') {
                        let first = item.trim().split("::").next().unwrap_or("").trim();
                        let first = first.split(' ').next().unwrap_or("");
                        if first.starts_with(|c: char| c.is_ascii_lowercase()) && first != "self" {
                            out.push(format!("{path}::{first}"));
                        }
                    }
                    j = close;
                    break;
                }
                path.push_str("::");
                continue;
            }
            break;
        }
        out.push(path);
        i = j.max(i + 1);
    }
    out
}

fn code_at(chars: &[char], i: usize) -> String {
    chars[i..chars.len().min(i + 8)].iter().collect()
}

fn resolve(module: &Module, path: &str, mods: &BTreeMap<Module, PathBuf>) -> Option<Module> {
    let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
    let (mut full, rest): (Module, &[&str]) = if parts.first() == Some(&"crate") {
        (Vec::new(), &parts[1..])
    } else {
        (module.clone(), &parts[..])
    };
    let mut rest = rest;
    while rest.first() == Some(&"super") {
        full.pop();
        rest = &rest[1..];
    }
    full.extend(rest.iter().map(|s| s.to_string()));
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| mods.contains_key(m))
}

fn edges(mods: &BTreeMap<Module, PathBuf>) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut out = BTreeMap::new();
    for (m, file) in mods {
        let mut to = BTreeSet::new();
        for p in paths(&code(file)) {
            let Some(n) = resolve(m, &p, mods) else {
                continue;
            };
            if &n == m || m.starts_with(&n) || n.starts_with(m) {
                continue;
            }
            to.insert(n);
        }
        out.insert(m.clone(), to);
    }
    out
}

/// The strongly connected components of more than one module (Tarjan).
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g Module) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            for w in &self.graph[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(&w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    comp.push(w.join("::"));
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.found.push(comp);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn no_module_imports_another_that_imports_it_back() {
    for src in ["runtime/src", "codegen/src", "derive/src", "src"] {
        let mods = modules(&root().join(src));
        assert!(mods.len() > 1, "no modules found under {src}");
        let found = circles(&edges(&mods));
        assert!(found.is_empty(), "import circles in {src}: {found:#?}");
    }
}

#[test]
fn the_circle_finder_finds_a_circle() {
    // Two siblings that name each other, and a third that only names one of them.
    let mut mods = BTreeMap::new();
    for m in ["a", "b", "c"] {
        mods.insert(vec![m.to_string()], PathBuf::new());
    }
    let graph: BTreeMap<Module, BTreeSet<Module>> = [
        ("a", "crate::b::Thing"),
        ("b", "super::a::{self, other}"),
        ("c", "crate::{a::X, b}"),
    ]
    .into_iter()
    .map(|(m, text)| {
        let m = vec![m.to_string()];
        let to = paths(text)
            .iter()
            .filter_map(|p| resolve(&m, p, &mods))
            .filter(|n| n != &m)
            .collect();
        (m, to)
    })
    .collect();
    assert_eq!(
        circles(&graph),
        vec![vec!["a".to_string(), "b".to_string()]]
    );
}

/// Each driver crate, and the store folder that alone may name it.
const DRIVERS: [(&str, &str); 4] = [
    ("rusqlite", "runtime/src/store/sqlite"),
    ("tokio_postgres", "runtime/src/store/postgres"),
    ("deadpool_postgres", "runtime/src/store/postgres"),
    ("mysql::", "runtime/src/store/mysql"),
];

#[test]
fn each_driver_is_named_only_inside_its_own_folder() {
    let mut files = Vec::new();
    for src in ["runtime/src", "src"] {
        rust_files(&root().join(src), &mut files);
    }
    let mut offenders = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = code(file);
        for (driver, home) in DRIVERS {
            if rel.starts_with(home) {
                continue;
            }
            let named = text.match_indices(driver).any(|(i, _)| {
                // `mysql::` as a path of its own, not `store::mysql::` (the folder).
                let before = text[..i].chars().next_back();
                !before.is_some_and(|c| is_ident(c) || c == ':')
            });
            if named {
                offenders.push(format!("{rel} names {driver}"));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
    // The check can see a driver: each folder names its own.
    for (driver, home) in DRIVERS {
        let mut own = Vec::new();
        rust_files(&root().join(home), &mut own);
        assert!(
            own.iter().any(|f| code(f).contains(driver)),
            "{home} does not name {driver}"
        );
    }
}
