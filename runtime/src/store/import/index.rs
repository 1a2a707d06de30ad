//! Pass 1 of an import: the keys of every document, file and user, the shape of every
//! document's versions, and the row ids each will get, so that pass 2 can write relations
//! to documents that come later in the file.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::locales::default_locale;
use super::statements;
use super::stream::{Item, Section, for_each_item};
use super::values::{json_type, parse_timestamp, path_index, path_key};
use super::{DATASET_FORMAT, FastMap, ImportError, Problems};
use crate::schema::{Model, Schema, SchemaKind};
use crate::store::seam::Writer;

/// The most locales one dataset may use (a document's rows are tracked in 64-bit masks).
pub(crate) const MAX_LOCALES: usize = 64;

/// Where a document's rows are: consecutive ids from `first_row`, per locale (in locale
/// index order) a draft row if its bit is set in `draft`, then a published row if its bit
/// is set in `published`. Non-D&P rows count as published; non-localized types use bit 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DocEntry {
    pub first_row: i64,
    pub draft: u64,
    pub published: u64,
}

impl DocEntry {
    /// The row id of the version in locale `loc` with this status, if it exists.
    pub(crate) fn row(&self, loc: usize, published: bool) -> Option<i64> {
        let bit = 1u64.checked_shl(u32::try_from(loc).ok()?)?;
        let present = if published {
            self.published & bit
        } else {
            self.draft & bit
        };
        if present == 0 {
            return None;
        }
        let below = bit - 1;
        let before = (self.draft & below).count_ones() + (self.published & below).count_ones();
        let own = if published && self.draft & bit != 0 {
            1
        } else {
            0
        };
        Some(self.first_row + i64::from(before) + own)
    }

    /// Whether the document has any row in locale `loc`.
    pub(crate) fn has_locale(&self, loc: usize) -> bool {
        u32::try_from(loc)
            .ok()
            .and_then(|l| 1u64.checked_shl(l))
            .is_some_and(|bit| (self.draft | self.published) & bit != 0)
    }

    /// How many rows the document has.
    pub(crate) fn rows(&self) -> u32 {
        self.draft.count_ones() + self.published.count_ones()
    }
}

/// A locale declared in the dataset.
#[derive(Debug, Clone)]
pub(crate) struct DeclaredLocale {
    pub code: String,
    pub name: String,
    pub default: bool,
    pub document_id: Option<String>,
    pub timestamp: Option<i64>,
}

/// Everything pass 1 learns.
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// Per schema (by `SchemaId` index): key → rows.
    pub docs: Vec<FastMap<Box<str>, DocEntry>>,
    /// File key → row id.
    pub files: HashMap<Box<str>, i64>,
    /// Locale code → locale index (the order rows are numbered in).
    pub locale_index: HashMap<String, usize>,
    /// The codes, by index.
    pub locale_codes: Vec<String>,
    /// The locales the dataset declares.
    pub declared: Vec<DeclaredLocale>,
    /// The default locale's index, if it has one.
    pub default_locale: Option<usize>,
    /// Per schema: whether its table had rows before the import.
    pub table_had_rows: Vec<bool>,
    /// Documents whose type, key or shape was wrong (pass 2 skips them).
    pub broken: HashSet<usize>,
    /// Per schema: the first row id of this import.
    pub first_ids: Vec<i64>,
    /// The first file id of this import.
    pub first_file_id: i64,
    /// The default locale to create when the database has no locale at all.
    pub create_default: Option<String>,
}

impl Index {
    /// The locale index of a code, assigning the next one when it is new.
    fn locale(&mut self, code: &str) -> Option<usize> {
        if let Some(i) = self.locale_index.get(code) {
            return Some(*i);
        }
        if self.locale_codes.len() >= MAX_LOCALES {
            return None;
        }
        let i = self.locale_codes.len();
        self.locale_codes.push(code.to_string());
        self.locale_index.insert(code.to_string(), i);
        Some(i)
    }
}

/// One part of a document's data: `data`, or a version.
#[derive(Debug, Clone)]
pub(crate) struct Part<'v> {
    pub data: &'v Map<String, Value>,
    pub path: String,
}

/// A document's versions in one locale (`locale` is `None` for non-localized types).
/// Non-D&P types put their single version in `published`.
#[derive(Debug, Clone)]
pub(crate) struct LocaleVersions<'v> {
    pub locale: Option<&'v str>,
    pub locale_path: String,
    pub published: Option<Part<'v>>,
    pub draft: Option<Part<'v>>,
}

/// The keys a document object may have.
const DOCUMENT_KEYS: [&str; 10] = [
    "type",
    "key",
    "documentId",
    "data",
    "locales",
    "published",
    "draft",
    "createdAt",
    "updatedAt",
    "publishedAt",
];

/// The timestamp keys accepted on documents, versions, files, users and locales.
pub(crate) const TIMESTAMP_KEYS: [&str; 3] = ["createdAt", "updatedAt", "publishedAt"];

/// Content types that the `documents` list may not hold, with where their data goes.
pub(crate) fn reserved_type(uid: &str) -> Option<&'static str> {
    match uid {
        "plugin::upload.file" => Some("files go in the top-level `files` list"),
        "plugin::users-permissions.user" => Some("users go in the top-level `users` list"),
        "plugin::i18n.locale" => Some("locales go in the top-level `locales` list"),
        "plugin::upload.folder"
        | "plugin::users-permissions.role"
        | "plugin::users-permissions.permission" => {
            Some("this built-in type is managed by strata and cannot be imported")
        }
        _ => None,
    }
}

/// The document's content type, or a problem.
pub(crate) fn doc_schema<'m>(
    model: &'m Model,
    doc: &Map<String, Value>,
    path: &str,
) -> Result<&'m Schema, (String, String)> {
    let at = path_key(path, "type");
    let uid = match doc.get("type") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err((
                at,
                format!("expected a content-type uid, got {}", json_type(other)),
            ));
        }
        None => {
            return Err((
                path.to_string(),
                "missing `type` (a content-type uid)".into(),
            ));
        }
    };
    match model.by_uid(uid) {
        Some(s) if s.is_content_type() => match reserved_type(uid) {
            Some(why) => Err((at, format!("`{uid}` cannot be a document: {why}"))),
            None => Ok(s),
        },
        Some(_) => Err((at, format!("`{uid}` is a component, not a content type"))),
        None => {
            let known: Vec<&str> = model
                .content_types()
                .filter(|s| reserved_type(s.uid.as_str()).is_none())
                .map(|s| s.uid.as_str())
                .collect();
            Err((
                at,
                format!("unknown content type `{uid}` (known: {})", known.join(", ")),
            ))
        }
    }
}

/// The document's key, or a problem.
pub(crate) fn item_key<'v>(
    obj: &'v Map<String, Value>,
    path: &str,
) -> Result<&'v str, (String, String)> {
    match obj.get("key") {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(Value::String(_)) => Err((path_key(path, "key"), "the key is empty".into())),
        Some(other) => Err((
            path_key(path, "key"),
            format!("expected a string key, got {}", json_type(other)),
        )),
        None => Err((path.to_string(), "missing `key`".into())),
    }
}

/// Checks a given documentId.
pub(crate) fn check_document_id(v: &Value) -> Result<&str, String> {
    match v {
        Value::String(s)
            if !s.is_empty()
                && s.len() <= 255
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
        {
            Ok(s)
        }
        Value::String(s) => Err(format!(
            "`{s}` is not a valid documentId (1 to 255 letters, digits, `-` or `_`)"
        )),
        other => Err(format!(
            "expected a string documentId, got {}",
            json_type(other)
        )),
    }
}

fn as_object<'v>(
    v: &'v Value,
    path: &str,
    what: &str,
    out: &mut Vec<(String, String)>,
) -> Option<&'v Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        other => {
            out.push((
                path.to_string(),
                format!("expected {what} (an object), got {}", json_type(other)),
            ));
            None
        }
    }
}

/// Reads the version structure of a document of `schema` (see `dataset-format.md`).
/// Problems are `(path, message)` pairs.
pub(crate) fn shape<'v>(
    schema: &Schema,
    doc: &'v Map<String, Value>,
    path: &str,
    out: &mut Vec<(String, String)>,
) -> Vec<LocaleVersions<'v>> {
    let before = out.len();
    for k in doc.keys() {
        if !DOCUMENT_KEYS.contains(&k.as_str()) {
            out.push((
                path_key(path, k),
                format!(
                    "unknown document key `{k}` (expected: {})",
                    DOCUMENT_KEYS.join(", ")
                ),
            ));
        }
    }
    if let Some(d) = doc.get("data") {
        as_object(d, &path_key(path, "data"), "the shared data", out);
    }
    for t in TIMESTAMP_KEYS {
        if let Some(v) = doc.get(t)
            && let Err(e) = parse_timestamp(v)
        {
            out.push((path_key(path, t), e));
        }
    }
    let dp = schema.draft_and_publish;
    let i18n = schema.localized;
    let features = match (dp, i18n) {
        (true, true) => "draft and publish and i18n: `locales: {code: {published?, draft?}}`",
        (true, false) => "draft and publish: `published` and/or `draft`",
        (false, true) => "i18n: `locales: {code: data}`",
        (false, false) => "neither draft and publish nor i18n: `data` alone",
    };
    let forbid = |key: &str, out: &mut Vec<(String, String)>| {
        if doc.contains_key(key) {
            out.push((
                path_key(path, key),
                format!("`{}` has {features}; `{key}` is not allowed", schema.uid),
            ));
        }
    };
    let mut versions = Vec::new();
    match (dp, i18n) {
        (false, false) => {
            forbid("locales", out);
            forbid("published", out);
            forbid("draft", out);
            versions.push(LocaleVersions {
                locale: None,
                locale_path: path.to_string(),
                published: None,
                draft: None,
            });
        }
        (true, false) => {
            forbid("locales", out);
            let mut lv = LocaleVersions {
                locale: None,
                locale_path: path.to_string(),
                published: None,
                draft: None,
            };
            for (key, slot) in [("published", &mut lv.published), ("draft", &mut lv.draft)] {
                if let Some(v) = doc.get(key) {
                    let p = path_key(path, key);
                    if let Some(m) = as_object(v, &p, "a version", out) {
                        *slot = Some(Part { data: m, path: p });
                    }
                }
            }
            if lv.published.is_none()
                && lv.draft.is_none()
                && !doc.contains_key("published")
                && !doc.contains_key("draft")
            {
                out.push((
                    path.to_string(),
                    format!(
                        "`{}` has draft and publish: give `published` and/or `draft`",
                        schema.uid
                    ),
                ));
            }
            versions.push(lv);
        }
        (_, true) => {
            forbid("published", out);
            forbid("draft", out);
            let lp = path_key(path, "locales");
            match doc.get("locales") {
                None => out.push((
                    path.to_string(),
                    format!("`{}` is localized: give `locales: {{code: …}}`", schema.uid),
                )),
                Some(v) => {
                    if let Some(locales) = as_object(v, &lp, "the versions per locale", out) {
                        if locales.is_empty() {
                            out.push((lp.clone(), "no locale is given".into()));
                        }
                        for (code, lv) in locales {
                            let p = path_key(&lp, code);
                            let Some(m) = as_object(lv, &p, "a locale's versions", out) else {
                                continue;
                            };
                            let mut entry = LocaleVersions {
                                locale: Some(code),
                                locale_path: p.clone(),
                                published: None,
                                draft: None,
                            };
                            if dp {
                                for k in m.keys() {
                                    if k != "published" && k != "draft" {
                                        out.push((
                                            path_key(&p, k),
                                            format!(
                                                "expected `published` and/or `draft` here, got `{k}` (values go inside a version)"
                                            ),
                                        ));
                                    }
                                }
                                for (key, slot) in [
                                    ("published", &mut entry.published),
                                    ("draft", &mut entry.draft),
                                ] {
                                    if let Some(v) = m.get(key) {
                                        let vp = path_key(&p, key);
                                        if let Some(vm) = as_object(v, &vp, "a version", out) {
                                            *slot = Some(Part { data: vm, path: vp });
                                        }
                                    }
                                }
                                if !m.contains_key("published") && !m.contains_key("draft") {
                                    out.push((
                                        p.clone(),
                                        "give `published` and/or `draft` for this locale".into(),
                                    ));
                                }
                            } else {
                                entry.published = Some(Part {
                                    data: m,
                                    path: p.clone(),
                                });
                            }
                            versions.push(entry);
                        }
                    }
                }
            }
        }
    }
    if out.len() > before {
        // A malformed shape is reported once; its values are not checked further.
        versions.clear();
    }
    versions
}

/// Pass 1 (see the module docs of `import`).
pub(crate) fn build(
    w: &dyn Writer,
    model: &Model,
    path: &Path,
    problems: &mut Problems,
    progress: &dyn Fn(u64),
) -> Result<Index, ImportError> {
    let n = model.schemas().len();
    let mut idx = Index {
        docs: vec![FastMap::default(); n],
        ..Index::default()
    };
    let mut doc_ids: Vec<HashSet<Box<str>>> = vec![HashSet::new(); n];
    let mut next: Vec<i64> = Vec::with_capacity(n);
    for s in model.schemas() {
        if s.is_content_type() {
            next.push(w.next_id(&s.layout.table)?);
            idx.table_had_rows
                .push(statements::has_rows(w, &s.layout.table)?);
        } else {
            next.push(0);
            idx.table_had_rows.push(false);
        }
    }
    idx.first_ids = next.clone();
    let file_schema = model.upload_file().map(|s| s.id);
    let user_schema = model.by_uid("plugin::users-permissions.user").map(|s| s.id);
    let mut next_file = match file_schema {
        Some(f) => next[f.index()],
        None => 1,
    };
    idx.first_file_id = next_file;
    let mut format_seen = false;
    let mut used_locales: HashMap<String, String> = HashMap::new();
    let mut count = 0u64;

    for_each_item(path, &mut |item, read| {
        count += 1;
        if count.is_multiple_of(1024) {
            progress(read);
        }
        match item {
            Item::Format(v) => {
                format_seen = true;
                if v.as_str() != Some(DATASET_FORMAT) {
                    problems.push(
                        None,
                        "$.format",
                        format!("expected \"{DATASET_FORMAT}\", got {v}"),
                    );
                }
            }
            Item::Unknown(k) => problems.push(
                None,
                &path_key("$", &k),
                format!(
                    "unknown top-level key `{k}` (expected: format, locales, files, users, documents)"
                ),
            ),
            Item::Locales(v) => read_locales(&mut idx, &v, problems),
            Item::Element(Section::Files, i, v) => {
                let p = path_index("$.files", i);
                let id = next_file;
                next_file += 1;
                let Value::Object(obj) = &v else {
                    problems.push(None, &p, format!("expected a file object, got {}", json_type(&v)));
                    return Ok(());
                };
                match item_key(obj, &p) {
                    Err((at, msg)) => problems.push(None, &at, msg),
                    Ok(key) => {
                        if idx.files.insert(key.into(), id).is_some() {
                            problems.push(
                                Some(&format!("file `{key}`")),
                                &path_key(&p, "key"),
                                "another file has the same key",
                            );
                        }
                    }
                }
            }
            Item::Element(Section::Users, i, v) => {
                let p = path_index("$.users", i);
                let Some(us) = user_schema else {
                    problems.push(None, &p, "the model has no users-permissions user type");
                    return Ok(());
                };
                let id = next[us.index()];
                next[us.index()] += 1;
                let Value::Object(obj) = &v else {
                    problems.push(None, &p, format!("expected a user object, got {}", json_type(&v)));
                    return Ok(());
                };
                match item_key(obj, &p) {
                    Err((at, msg)) => problems.push(None, &at, msg),
                    Ok(key) => {
                        let entry = DocEntry {
                            first_row: id,
                            draft: 0,
                            published: 1,
                        };
                        if idx.docs[us.index()].insert(key.into(), entry).is_some() {
                            problems.push(
                                Some(&format!("user `{key}`")),
                                &path_key(&p, "key"),
                                "another user has the same key",
                            );
                        }
                        if let Some(d) = obj.get("documentId") {
                            match check_document_id(d) {
                                Ok(d) => {
                                    if !doc_ids[us.index()].insert(d.into()) {
                                        problems.push(
                                            Some(&format!("user `{key}`")),
                                            &path_key(&p, "documentId"),
                                            format!("documentId `{d}` is used twice"),
                                        );
                                    }
                                }
                                Err(e) => problems.push(
                                    Some(&format!("user `{key}`")),
                                    &path_key(&p, "documentId"),
                                    e,
                                ),
                            }
                        }
                    }
                }
            }
            Item::Element(Section::Documents, i, v) => {
                let p = path_index("$.documents", i);
                let Value::Object(doc) = &v else {
                    problems.push(
                        None,
                        &p,
                        format!("expected a document object, got {}", json_type(&v)),
                    );
                    idx.broken.insert(i);
                    return Ok(());
                };
                let schema = match doc_schema(model, doc, &p) {
                    Ok(s) => s,
                    Err((at, msg)) => {
                        let label = doc.get("key").and_then(Value::as_str).map(|k| format!("`{k}`"));
                        problems.push(label.as_deref(), &at, msg);
                        idx.broken.insert(i);
                        return Ok(());
                    }
                };
                let key = match item_key(doc, &p) {
                    Ok(k) => k,
                    Err((at, msg)) => {
                        problems.push(Some(schema.uid.as_str()), &at, msg);
                        idx.broken.insert(i);
                        return Ok(());
                    }
                };
                let label = format!("{} `{key}`", schema.uid);
                let mut out = Vec::new();
                if let Some(d) = doc.get("documentId") {
                    match check_document_id(d) {
                        Ok(d) => {
                            if !doc_ids[schema.id.index()].insert(d.into()) {
                                out.push((
                                    path_key(&p, "documentId"),
                                    format!("documentId `{d}` is used by another document of this type"),
                                ));
                            }
                        }
                        Err(e) => out.push((path_key(&p, "documentId"), e)),
                    }
                }
                let versions = shape(schema, doc, &p, &mut out);
                let mut entry = DocEntry {
                    first_row: 0,
                    draft: 0,
                    published: 0,
                };
                for lv in &versions {
                    let loc = match lv.locale {
                        None => 0,
                        Some(code) => match idx.locale(code) {
                            Some(l) => {
                                if !used_locales.contains_key(code) {
                                    used_locales.insert(code.to_string(), lv.locale_path.clone());
                                }
                                l
                            }
                            None => {
                                out.push((
                                    lv.locale_path.clone(),
                                    format!("more than {MAX_LOCALES} locales are used"),
                                ));
                                continue;
                            }
                        },
                    };
                    let bit = 1u64 << loc;
                    if schema.draft_and_publish {
                        entry.draft |= bit;
                        if lv.published.is_some() {
                            entry.published |= bit;
                        }
                    } else {
                        entry.published |= bit;
                    }
                }
                if !out.is_empty() {
                    for (at, msg) in out {
                        problems.push(Some(&label), &at, msg);
                    }
                    idx.broken.insert(i);
                    // Keep the key known so that references to it are not reported too.
                }
                if schema.kind == SchemaKind::SingleType
                    && (!idx.docs[schema.id.index()].is_empty()
                        || idx.table_had_rows[schema.id.index()])
                {
                    problems.push(
                        Some(&label),
                        &p,
                        format!(
                            "`{}` is a single type: it holds one document, and the {} already has it",
                            schema.uid,
                            if idx.table_had_rows[schema.id.index()] { "database" } else { "dataset" }
                        ),
                    );
                    idx.broken.insert(i);
                }
                entry.first_row = next[schema.id.index()];
                next[schema.id.index()] += i64::from(entry.rows());
                if idx.docs[schema.id.index()].insert(key.into(), entry).is_some() {
                    problems.push(
                        Some(&label),
                        &path_key(&p, "key"),
                        format!("another `{}` document has the same key", schema.uid),
                    );
                    idx.broken.insert(i);
                }
            }
        }
        Ok(())
    })?;
    if !format_seen {
        problems.push(
            None,
            "$",
            format!("missing `format` (\"{DATASET_FORMAT}\")"),
        );
    }
    // The default locale: the dataset's, else the database's setting.
    let default_code = match idx.declared.iter().find(|l| l.default) {
        Some(l) => Some(l.code.clone()),
        None => Some(default_locale(w)?.unwrap_or_else(|| "en".to_string())),
    };
    if let Some(code) = &default_code {
        idx.default_locale = idx.locale(code);
    }
    // Locales used by documents must be declared in the dataset or exist in the database.
    let mut in_db: HashSet<String> = HashSet::new();
    if let Some(ls) = model.by_uid("plugin::i18n.locale") {
        w.query_each(&statements::all(&ls.layout.table, "code"), &mut |r| {
            if let Some(c) = r.opt_text(0)? {
                in_db.insert(c);
            }
            Ok(())
        })?;
    }
    if in_db.is_empty()
        && let Some(code) = &default_code
    {
        // Strapi creates the default locale at boot when there is none; so does the import.
        in_db.insert(code.clone());
        idx.create_default = Some(code.clone());
    }
    let declared: HashSet<&str> = idx.declared.iter().map(|l| l.code.as_str()).collect();
    let mut used: Vec<(&String, &String)> = used_locales.iter().collect();
    used.sort_by_key(|(code, _)| idx.locale_index.get(code.as_str()).copied());
    for (code, at) in used {
        if !declared.contains(code.as_str()) && !in_db.contains(code) {
            problems.push(
                None,
                at,
                format!("locale `{code}` is not declared in `locales` and not in the database"),
            );
        }
    }
    Ok(idx)
}

fn read_locales(idx: &mut Index, v: &Value, problems: &mut Problems) {
    let Value::Array(items) = v else {
        problems.push(
            None,
            "$.locales",
            format!("expected an array of locales, got {}", json_type(v)),
        );
        return;
    };
    let mut defaults = 0;
    for (i, l) in items.iter().enumerate() {
        let p = path_index("$.locales", i);
        let Value::Object(m) = l else {
            problems.push(
                None,
                &p,
                format!("expected a locale object, got {}", json_type(l)),
            );
            continue;
        };
        let mut ok = true;
        for k in m.keys() {
            if !["code", "name", "default", "documentId"].contains(&k.as_str())
                && !TIMESTAMP_KEYS.contains(&k.as_str())
            {
                problems.push(
                    None,
                    &path_key(&p, k),
                    format!("unknown locale key `{k}` (expected: code, name, default)"),
                );
                ok = false;
            }
        }
        let code = match m.get("code") {
            Some(Value::String(c))
                if !c.is_empty()
                    && c.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
            {
                c.clone()
            }
            other => {
                problems.push(
                    None,
                    &path_key(&p, "code"),
                    format!(
                        "expected a locale code such as `en` or `pt-BR`, got {}",
                        other.map_or("nothing".to_string(), |v| v.to_string())
                    ),
                );
                continue;
            }
        };
        let name = match m.get("name") {
            None | Some(Value::Null) => format!("{code} ({code})"),
            Some(Value::String(n)) => n.clone(),
            Some(other) => {
                problems.push(
                    None,
                    &path_key(&p, "name"),
                    format!("expected a string, got {}", json_type(other)),
                );
                continue;
            }
        };
        let default = match m.get("default") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                problems.push(
                    None,
                    &path_key(&p, "default"),
                    format!("expected true or false, got {}", json_type(other)),
                );
                false
            }
        };
        if default {
            defaults += 1;
            if defaults > 1 {
                problems.push(
                    None,
                    &path_key(&p, "default"),
                    "only one locale can be the default",
                );
            }
        }
        let document_id = match m.get("documentId") {
            None => None,
            Some(d) => match check_document_id(d) {
                Ok(d) => Some(d.to_string()),
                Err(e) => {
                    problems.push(None, &path_key(&p, "documentId"), e);
                    None
                }
            },
        };
        let mut timestamp = None;
        for t in TIMESTAMP_KEYS {
            if let Some(v) = m.get(t) {
                match parse_timestamp(v) {
                    Ok(ms) => timestamp = Some(ms),
                    Err(e) => problems.push(None, &path_key(&p, t), e),
                }
            }
        }
        if idx.declared.iter().any(|d| d.code == code) {
            problems.push(
                None,
                &path_key(&p, "code"),
                format!("locale `{code}` is declared twice"),
            );
            continue;
        }
        if idx.locale(&code).is_none() {
            problems.push(
                None,
                &p,
                format!("more than {MAX_LOCALES} locales are used"),
            );
            continue;
        }
        if ok {
            idx.declared.push(DeclaredLocale {
                code,
                name,
                default,
                document_id,
                timestamp,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn rows_are_numbered_draft_then_published_per_locale() {
        // en: draft + published, fr: draft only, de: draft + published.
        let e = DocEntry {
            first_row: 10,
            draft: 0b111,
            published: 0b101,
        };
        assert_eq!(e.row(0, false), Some(10));
        assert_eq!(e.row(0, true), Some(11));
        assert_eq!(e.row(1, false), Some(12));
        assert_eq!(e.row(1, true), None);
        assert_eq!(e.row(2, false), Some(13));
        assert_eq!(e.row(2, true), Some(14));
        assert_eq!(e.rows(), 5);
        // A non-D&P localized document: one row per locale.
        let n = DocEntry {
            first_row: 1,
            draft: 0,
            published: 0b110,
        };
        assert_eq!(n.row(1, true), Some(1));
        assert_eq!(n.row(2, true), Some(2));
        assert!(!n.has_locale(0));
    }
}
