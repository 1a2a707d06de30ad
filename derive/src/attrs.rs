//! Parsing of the `#[strata(...)]` attributes into plain data, with errors that point at
//! the offending key.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Lit, LitStr, Path};

/// The scalar type names Strapi's schemas use.
pub const SCALAR_TYPES: &[&str] = &[
    "string",
    "text",
    "richtext",
    "blocks",
    "email",
    "password",
    "uid",
    "enumeration",
    "integer",
    "biginteger",
    "float",
    "decimal",
    "boolean",
    "date",
    "time",
    "datetime",
    "timestamp",
    "json",
];

/// The relation kinds Strapi's schemas use.
pub const RELATION_KINDS: &[&str] = &[
    "oneToOne",
    "oneToMany",
    "manyToOne",
    "manyToMany",
    "morphToOne",
    "morphToMany",
    "morphOne",
    "morphMany",
];

/// Struct-level keys.
pub struct TypeAttrs {
    pub uid: Option<String>,
    pub kind: Option<(String, Span)>,
    pub singular: Option<String>,
    pub plural: Option<String>,
    pub collection: Option<String>,
    pub draft_and_publish: bool,
    pub localized: bool,
    pub model: Option<Path>,
    pub krate: Option<Path>,
    pub private_attrs: Vec<AttrSpec>,
}

/// What an attribute holds.
#[derive(Clone)]
pub enum AttrKind {
    Scalar(String),
    Relation {
        kind: String,
        target: Option<String>,
        inversed_by: Option<String>,
        mapped_by: Option<String>,
    },
    Media {
        multiple: bool,
    },
    Component {
        uid: String,
        repeatable: bool,
    },
    Zone(Vec<String>),
}

/// One attribute: a field's `#[strata(attr = …)]` or a `private_attr(...)`.
#[derive(Clone)]
pub struct AttrSpec {
    pub name: String,
    pub span: Span,
    pub position: Option<(u32, Span)>,
    pub kind: AttrKind,
    pub private: bool,
    pub required: bool,
    pub unique: bool,
    pub localized: Option<bool>,
    pub default: Option<String>,
    pub min: Option<String>,
    pub max: Option<String>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub regex: Option<String>,
    pub custom_field: Option<String>,
    pub enum_values: Vec<String>,
    pub target_field: Option<String>,
    pub allowed_types: Vec<String>,
}

/// What a field's `#[strata(...)]` says.
pub enum FieldAttrs {
    /// No `#[strata]` attribute.
    None,
    /// `#[strata(system)]`.
    System,
    /// An attribute.
    Attr(Box<AttrSpec>),
}

fn string(meta: &ParseNestedMeta) -> syn::Result<String> {
    let lit: LitStr = meta.value()?.parse()?;
    Ok(lit.value())
}

/// A number written as a string or a number literal, as text.
fn number_text(meta: &ParseNestedMeta) -> syn::Result<String> {
    let lit: Lit = meta.value()?.parse()?;
    match lit {
        Lit::Str(s) => Ok(s.value()),
        Lit::Int(i) => Ok(i.base10_digits().to_string()),
        Lit::Float(f) => Ok(f.base10_digits().to_string()),
        other => Err(syn::Error::new(
            other.span(),
            "expected a number, as a string (\"1.5\") or a literal (3)",
        )),
    }
}

fn unsigned(meta: &ParseNestedMeta) -> syn::Result<u64> {
    let lit: Lit = meta.value()?.parse()?;
    match lit {
        Lit::Int(i) => i.base10_parse(),
        Lit::Str(s) => s
            .value()
            .trim()
            .parse()
            .map_err(|_| syn::Error::new(s.span(), "expected a non-negative integer")),
        other => Err(syn::Error::new(
            other.span(),
            "expected a non-negative integer",
        )),
    }
}

fn boolean(meta: &ParseNestedMeta) -> syn::Result<bool> {
    let lit: syn::LitBool = meta.value()?.parse()?;
    Ok(lit.value)
}

/// `key = "a,b,c"`.
fn string_list(meta: &ParseNestedMeta) -> syn::Result<Vec<String>> {
    Ok(split_list(&string(meta)?))
}

fn split_list(s: &str) -> Vec<String> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    s.split(',').map(|p| p.trim().to_string()).collect()
}

fn path_of(meta: &ParseNestedMeta) -> String {
    meta.path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_else(|| "?".into())
}

impl AttrSpec {
    fn empty(span: Span) -> Self {
        AttrSpec {
            name: String::new(),
            span,
            position: None,
            kind: AttrKind::Scalar(String::new()),
            private: false,
            required: false,
            unique: false,
            localized: None,
            default: None,
            min: None,
            max: None,
            min_length: None,
            max_length: None,
            regex: None,
            custom_field: None,
            enum_values: Vec::new(),
            target_field: None,
            allowed_types: Vec::new(),
        }
    }
}

/// Collects the keys of one attribute, then checks them as a whole.
struct AttrBuilder {
    spec: AttrSpec,
    name: Option<String>,
    ty: Option<(String, Span)>,
    relation: Option<(String, Span)>,
    target: Option<String>,
    inversed_by: Option<String>,
    mapped_by: Option<String>,
    media: Option<Span>,
    multiple: Option<Span>,
    component: Option<(String, Span)>,
    repeatable: Option<Span>,
    zone: Option<(Vec<String>, Span)>,
    enum_values: Option<Span>,
}

impl AttrBuilder {
    fn new(span: Span) -> Self {
        AttrBuilder {
            spec: AttrSpec::empty(span),
            name: None,
            ty: None,
            relation: None,
            target: None,
            inversed_by: None,
            mapped_by: None,
            media: None,
            multiple: None,
            component: None,
            repeatable: None,
            zone: None,
            enum_values: None,
        }
    }

    /// Reads one key; `Ok(false)` when the key is not an attribute key.
    fn key(&mut self, meta: &ParseNestedMeta) -> syn::Result<bool> {
        let key = path_of(meta);
        let span = meta
            .path
            .segments
            .first()
            .map_or(self.spec.span, |s| s.ident.span());
        match key.as_str() {
            "attr" => self.name = Some(string(meta)?),
            "position" => {
                let n = unsigned(meta)?;
                let n = u32::try_from(n).map_err(|_| meta.error("position is too large"))?;
                self.spec.position = Some((n, span));
            }
            "ty" => {
                let t = string(meta)?;
                if !SCALAR_TYPES.contains(&t.as_str()) {
                    return Err(meta.error(format!(
                        "unknown scalar type `{t}`; expected one of {}",
                        SCALAR_TYPES.join(", ")
                    )));
                }
                self.ty = Some((t, span));
            }
            "relation" => {
                let r = string(meta)?;
                if !RELATION_KINDS.contains(&r.as_str()) {
                    return Err(meta.error(format!(
                        "unknown relation `{r}`; expected one of {}",
                        RELATION_KINDS.join(", ")
                    )));
                }
                self.relation = Some((r, span));
            }
            "target" => self.target = Some(string(meta)?),
            "inversed_by" => self.inversed_by = Some(string(meta)?),
            "mapped_by" => self.mapped_by = Some(string(meta)?),
            "media" => self.media = Some(span),
            "multiple" => self.multiple = Some(span),
            "component" => self.component = Some((string(meta)?, span)),
            "repeatable" => self.repeatable = Some(span),
            "dynamic_zone" => self.zone = Some((split_list(&string(meta)?), span)),
            "private" => self.spec.private = true,
            "required" => self.spec.required = true,
            "unique" => self.spec.unique = true,
            "localized" => self.spec.localized = Some(boolean(meta)?),
            "default" => {
                let text = string(meta)?;
                if serde_json_like(&text).is_none() {
                    return Err(meta.error(format!(
                        "`default` must be JSON text, like \"false\", \"3\" or \"\\\"news\\\"\" (got `{text}`)"
                    )));
                }
                self.spec.default = Some(text);
            }
            "min" => self.spec.min = Some(number_text(meta)?),
            "max" => self.spec.max = Some(number_text(meta)?),
            "min_length" => self.spec.min_length = Some(unsigned(meta)?),
            "max_length" => self.spec.max_length = Some(unsigned(meta)?),
            "regex" => self.spec.regex = Some(string(meta)?),
            "custom_field" => self.spec.custom_field = Some(string(meta)?),
            "enum_values" => {
                self.spec.enum_values = if meta.input.peek(syn::Token![=]) {
                    string_list(meta)?
                } else {
                    let mut values = Vec::new();
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let lits = content
                        .parse_terminated(<LitStr as syn::parse::Parse>::parse, syn::Token![,])?;
                    for l in lits {
                        values.push(l.value());
                    }
                    values
                };
                self.enum_values = Some(span);
            }
            "target_field" => self.spec.target_field = Some(string(meta)?),
            "allowed_types" => self.spec.allowed_types = string_list(meta)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn finish(self, span: Span) -> syn::Result<AttrSpec> {
        let mut spec = self.spec;
        let Some(name) = self.name else {
            return Err(syn::Error::new(
                span,
                "missing `attr = \"<name>\"`: the attribute's name in the schema",
            ));
        };
        spec.name = name;
        let kinds = [
            self.ty.as_ref().map(|t| t.1),
            self.relation.as_ref().map(|r| r.1),
            self.media,
            self.component.as_ref().map(|c| c.1),
            self.zone.as_ref().map(|z| z.1),
        ];
        let given: Vec<Span> = kinds.iter().flatten().copied().collect();
        if given.is_empty() {
            return Err(syn::Error::new(
                span,
                format!(
                    "`{}` needs its kind: `ty = \"…\"`, `relation = \"…\"`, `media`, `component = \"…\"` or `dynamic_zone = \"…\"`",
                    spec.name
                ),
            ));
        }
        if given.len() > 1 {
            return Err(syn::Error::new(
                given[1],
                format!(
                    "`{}` has two kinds: give only one of `ty`, `relation`, `media`, `component` and `dynamic_zone`",
                    spec.name
                ),
            ));
        }
        let only = |flag: Option<Span>, key: &str, kind: &str| -> syn::Result<()> {
            match flag {
                Some(s) => Err(syn::Error::new(
                    s,
                    format!("`{key}` only applies to {kind} attributes"),
                )),
                None => Ok(()),
            }
        };
        if self.media.is_none() {
            only(self.multiple, "multiple", "media")?;
        }
        if self.component.is_none() {
            only(self.repeatable, "repeatable", "component")?;
        }
        if !matches!(&self.ty, Some((t, _)) if t == "enumeration") {
            only(self.enum_values, "enum_values", "enumeration")?;
        }
        spec.kind = if let Some((t, _)) = self.ty {
            AttrKind::Scalar(t)
        } else if let Some((kind, rspan)) = self.relation {
            if self.inversed_by.is_some() && self.mapped_by.is_some() {
                return Err(syn::Error::new(
                    rspan,
                    "a relation has `inversed_by` or `mapped_by`, not both",
                ));
            }
            if self.target.is_none() && !kind.starts_with("morphTo") {
                return Err(syn::Error::new(
                    rspan,
                    format!("a `{kind}` relation needs `target = \"<uid>\"`"),
                ));
            }
            AttrKind::Relation {
                kind,
                target: self.target,
                inversed_by: self.inversed_by,
                mapped_by: self.mapped_by,
            }
        } else if self.media.is_some() {
            AttrKind::Media {
                multiple: self.multiple.is_some(),
            }
        } else if let Some((uid, _)) = self.component {
            AttrKind::Component {
                uid,
                repeatable: self.repeatable.is_some(),
            }
        } else if let Some((uids, _)) = self.zone {
            AttrKind::Zone(uids)
        } else {
            return Err(syn::Error::new(span, "no attribute kind"));
        };
        Ok(spec)
    }
}

/// A light JSON check for `default` (full parsing happens at run time).
fn serde_json_like(text: &str) -> Option<()> {
    let t = text.trim();
    let ok = matches!(t, "true" | "false" | "null")
        || t.starts_with('"') && t.ends_with('"') && t.len() >= 2
        || t.starts_with('[') && t.ends_with(']')
        || t.starts_with('{') && t.ends_with('}')
        || t.parse::<f64>().is_ok();
    ok.then_some(())
}

/// Reads the struct-level `#[strata(...)]` attributes.
pub fn type_attrs(attrs: &[Attribute], component: bool) -> syn::Result<TypeAttrs> {
    let mut out = TypeAttrs {
        uid: None,
        kind: None,
        singular: None,
        plural: None,
        collection: None,
        draft_and_publish: false,
        localized: false,
        model: None,
        krate: None,
        private_attrs: Vec::new(),
    };
    for attr in attrs.iter().filter(|a| a.path().is_ident("strata")) {
        attr.parse_nested_meta(|meta| {
            let key = path_of(&meta);
            let content_only = |out: &TypeAttrs| -> syn::Result<()> {
                let _ = out;
                if component {
                    Err(meta.error(format!(
                        "`{key}` applies to content types, not components (a component has `uid`, `collection`, `model`, `private_attr` and `crate`)"
                    )))
                } else {
                    Ok(())
                }
            };
            match key.as_str() {
                "uid" => out.uid = Some(string(&meta)?),
                "kind" => {
                    content_only(&out)?;
                    let span = meta.path.segments[0].ident.span();
                    let k = string(&meta)?;
                    if k != "collectionType" && k != "singleType" {
                        return Err(meta.error(format!(
                            "unknown kind `{k}`; expected \"collectionType\" or \"singleType\""
                        )));
                    }
                    out.kind = Some((k, span));
                }
                "singular" => {
                    content_only(&out)?;
                    out.singular = Some(string(&meta)?);
                }
                "plural" => {
                    content_only(&out)?;
                    out.plural = Some(string(&meta)?);
                }
                "collection" => out.collection = Some(string(&meta)?),
                "draft_and_publish" => {
                    content_only(&out)?;
                    out.draft_and_publish = true;
                }
                "localized" => {
                    content_only(&out)?;
                    out.localized = true;
                }
                "model" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    out.model = Some(lit.parse()?);
                }
                "crate" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    out.krate = Some(lit.parse()?);
                }
                "private_attr" => {
                    let span = meta.path.segments[0].ident.span();
                    let mut b = AttrBuilder::new(span);
                    meta.parse_nested_meta(|inner| {
                        if b.key(&inner)? {
                            Ok(())
                        } else {
                            Err(inner.error(format!(
                                "unknown key `{}` in `private_attr`",
                                path_of(&inner)
                            )))
                        }
                    })?;
                    let mut spec = b.finish(span)?;
                    if spec.position.is_none() {
                        return Err(syn::Error::new(
                            span,
                            format!(
                                "private attribute `{}` needs `position = N`: its index among all the schema's attributes",
                                spec.name
                            ),
                        ));
                    }
                    spec.private = true;
                    out.private_attrs.push(spec);
                }
                other => {
                    return Err(meta.error(format!(
                        "unknown key `{other}`; expected one of uid, kind, singular, plural, collection, draft_and_publish, localized, model, private_attr, crate"
                    )));
                }
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// Reads a field's `#[strata(...)]` attributes.
pub fn field_attrs(attrs: &[Attribute], field_span: Span) -> syn::Result<FieldAttrs> {
    let mut system = false;
    let mut builder: Option<AttrBuilder> = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("strata")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("system") {
                system = true;
                return Ok(());
            }
            let b = builder.get_or_insert_with(|| AttrBuilder::new(field_span));
            if b.key(&meta)? {
                Ok(())
            } else {
                Err(meta.error(format!(
                    "unknown key `{}` on a field; expected `system` or attribute keys (attr, position, ty, relation, target, inversed_by, mapped_by, media, multiple, component, repeatable, dynamic_zone, required, unique, localized, default, min, max, min_length, max_length, regex, enum_values, target_field, custom_field, allowed_types)",
                    path_of(&meta)
                )))
            }
        })?;
    }
    match (system, builder) {
        (true, Some(_)) => Err(syn::Error::new(
            field_span,
            "a field is either `#[strata(system)]` or an attribute, not both",
        )),
        (true, None) => Ok(FieldAttrs::System),
        (false, None) => Ok(FieldAttrs::None),
        (false, Some(b)) => {
            let spec = b.finish(field_span)?;
            if spec.private {
                return Err(syn::Error::new(
                    field_span,
                    format!(
                        "private attributes are not fields (they never leave the server): describe `{}` with a struct-level `#[strata(private_attr(attr = \"{}\", position = N, …))]`",
                        spec.name, spec.name
                    ),
                ));
            }
            Ok(FieldAttrs::Attr(Box::new(spec)))
        }
    }
}
