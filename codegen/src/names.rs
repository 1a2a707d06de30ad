//! Rust names for schema names: PascalCase type and variant names, snake_case field names,
//! escaped keywords (`r#type`, `self_`) and allocation without collisions.
//!
//! Only ASCII letters and digits survive; every other character separates words. Names
//! never depend on iteration order of hash maps: callers allocate in uid and schema order.

use std::collections::HashSet;

/// Rust keywords (strict, reserved and edition-dependent) that need escaping as field names.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers; they get a trailing underscore instead.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Type names that generated types must not take, so that derive output and user code
/// that says `Option`, `String` or `Vec` inside the generated module keeps its meaning.
pub(crate) const RESERVED_TYPE_NAMES: &[&str] = &[
    "Self", "Option", "Some", "None", "Result", "Ok", "Err", "String", "Vec", "Box",
];

/// The words of a name: runs of ASCII letters and digits, also split at lower→upper
/// case changes (`wordCount` → `word`, `Count`).
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_ascii_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `faq-item` → `FaqItem`, `wordCount` → `WordCount`, `users-permissions` → `UsersPermissions`,
/// `SEO` → `Seo` (as Rust's naming conventions and clippy want). May be empty or start
/// with a digit; callers fix that up.
pub(crate) fn pascal(s: &str) -> String {
    let mut out = String::new();
    for w in words(s) {
        let mut cs = w.chars();
        if let Some(first) = cs.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(cs.map(|c| c.to_ascii_lowercase()));
        }
    }
    out
}

/// `metaTitle` → `meta_title`, `provider_metadata` stays, `HTMLBody` → `html_body`.
pub(crate) fn snake(s: &str) -> String {
    words(s)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_")
}

/// A type-position name for `s` (PascalCase), never empty, never starting with a digit.
pub(crate) fn type_name(s: &str, prefix_if_digit: &str) -> String {
    let p = pascal(s);
    if p.is_empty() {
        return prefix_if_digit.to_string();
    }
    if p.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("{prefix_if_digit}{p}");
    }
    p
}

/// A field name for attribute `s`: snake_case, never empty or starting with a digit.
/// Keywords are returned as they are; [`ident`] escapes them.
pub(crate) fn field_name(s: &str) -> String {
    let n = snake(s);
    if n.is_empty() {
        return "field".to_string();
    }
    if n.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("_{n}");
    }
    n
}

/// An identifier token for `name`: raw (`r#type`) for keywords that allow it, with a
/// trailing underscore (`self_`) for the few that do not.
pub(crate) fn ident(name: &str) -> proc_macro2::Ident {
    let span = proc_macro2::Span::call_site();
    if NOT_RAW.contains(&name) {
        proc_macro2::Ident::new(&format!("{name}_"), span)
    } else if KEYWORDS.contains(&name) {
        proc_macro2::Ident::new_raw(name, span)
    } else {
        proc_macro2::Ident::new(name, span)
    }
}

/// Hands out names that are unique within one scope (the module's types, a struct's
/// fields, an enum's variants), adding `2`, `3`, … (or `_2`, … for snake_case) on clashes.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    used: HashSet<String>,
}

impl Scope {
    /// A scope where `taken` are already in use.
    pub(crate) fn with(taken: &[&str]) -> Self {
        Scope {
            used: taken.iter().map(|s| (*s).to_string()).collect(),
        }
    }

    /// Takes `base`, or the first free `base2`, `base3`, … (`base_2`, … when `snake`).
    pub(crate) fn take(&mut self, base: &str, snake: bool) -> String {
        self.take_inner(base, snake, &[])
    }

    /// Takes a PascalCase name `N` such that `N` and `N` + each suffix are all free, and
    /// reserves them all.
    pub(crate) fn take_with(&mut self, base: &str, suffixes: &[&str]) -> String {
        self.take_inner(base, false, suffixes)
    }

    fn take_inner(&mut self, base: &str, snake: bool, suffixes: &[&str]) -> String {
        let free = |used: &HashSet<String>, c: &str| {
            c != "Self"
                && !used.contains(c)
                && suffixes.iter().all(|s| !used.contains(&format!("{c}{s}")))
        };
        let mut candidate = base.to_string();
        let mut n = 2;
        while !free(&self.used, &candidate) {
            candidate = if snake {
                format!("{base}_{n}")
            } else {
                format!("{base}{n}")
            };
            n += 1;
        }
        for s in suffixes {
            self.used.insert(format!("{candidate}{s}"));
        }
        self.used.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_and_snake() {
        assert_eq!(pascal("faq-item"), "FaqItem");
        assert_eq!(pascal("users-permissions"), "UsersPermissions");
        assert_eq!(pascal("wordCount"), "WordCount");
        assert_eq!(pascal("i18n"), "I18n");
        assert_eq!(pascal("two words"), "TwoWords");
        assert_eq!(pascal("SEO"), "Seo");
        assert_eq!(pascal("HTMLBody"), "HtmlBody");
        assert_eq!(snake("metaTitle"), "meta_title");
        assert_eq!(snake("provider_metadata"), "provider_metadata");
        assert_eq!(snake("HTMLBody"), "html_body");
        assert_eq!(snake("publishedAt"), "published_at");
        assert_eq!(snake("v2Value"), "v2_value");
        assert_eq!(type_name("2-col", "V"), "V2Col");
        assert_eq!(type_name("--", "V"), "V");
        assert_eq!(field_name("3d"), "_3d");
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("match").to_string(), "r#match");
        assert_eq!(ident("self").to_string(), "self_");
        assert_eq!(ident("Self").to_string(), "Self_");
        assert_eq!(ident("title").to_string(), "title");
    }

    #[test]
    fn scopes_never_hand_out_a_name_twice() {
        let mut s = Scope::with(&["id"]);
        assert_eq!(s.take("id", true), "id_2");
        assert_eq!(s.take("id", true), "id_3");
        let mut t = Scope::with(RESERVED_TYPE_NAMES);
        assert_eq!(t.take("Option", false), "Option2");
        assert_eq!(t.take("Self", false), "Self2");
        let mut u = Scope::with(&["FooPath"]);
        assert_eq!(u.take_with("Foo", &["Path", "Field"]), "Foo2");
        assert_eq!(u.take("Foo2Field", false), "Foo2Field2");
    }
}
