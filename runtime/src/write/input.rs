//! A write's `data` object → the values to store, checked as Strapi 5.54 checks them.
//!
//! Two passes, in Strapi's order:
//! 1. **Keys** ([`check_keys`]): the first key that the content API does not take is a 400
//!    `Invalid key <k>`: an unknown key (`path` is the parent's, null at the top), a
//!    system field (`createdAt`, `createdBy`, … with `path` = the key; `id` and
//!    `documentId` without `path`), a relation whose target the caller may not `find`,
//!    or an unknown key inside a component or a relation object (`Invalid key bogus at
//!    seo`). `publishedAt` and `locale` are taken and ignored.
//! 2. **Values** ([`parse`]): each attribute against its type and rules, with yup's
//!    messages (`printValue` ported), every failure reported. Strapi validates twice
//!    (`entity-validator`, `isDraft`): a draft gets the type checks, enumerations and
//!    maximums ([`Phase::Draft`]); a published version (or a type without draft and
//!    publish) also the minimums, `regex`, the email and uid patterns, `required` and
//!    `unique` ([`Phase::Publish`], [`publish_failures`] on the draft being published).
//!    So a draft may hold what its publish will refuse (`ext-required-draft`), and a bad
//!    email next to a bad number in a draft is not reported (`val-several-errors`).
//!    Dates and times are checked after yup, by the entity manager, with a bare message
//!    and no `errors` list. Rich-text blocks are checked node by node ([`super::blocks`]).
//!
//! Relation, media and component values are parsed into operations
//! ([`RelationInput`], [`MediaInput`], [`ComponentInput`]) that `document.rs` applies.

use serde_json::{Map, Value};

use super::error::{FieldError, WriteError};
use super::order::{Validated, in_yup_order};
use super::yup::{Cast, dotted, js_cast_number, number_text, type_error};
use crate::query::Permissions;
use crate::query::values::{js_json_text, js_truthy};
use crate::schema::{AttrId, Attribute, AttributeKind, Model, ScalarType, Schema, SchemaId};
use crate::store::seam::StoredValue;

/// What a write's `data` asks, attribute by attribute (in schema order).
#[derive(Debug, Default)]
pub struct Input {
    /// Scalar attributes given (NULL clears).
    pub scalars: Vec<(AttrId, StoredValue)>,
    /// Media attributes given: the files, in order (empty clears).
    pub media: Vec<(AttrId, MediaInput)>,
    /// Media attributes given the relation syntax's `connect` or `disconnect` (no `set`):
    /// an update attaches and detaches those files only; a creation ignores them.
    pub media_changes: Vec<(AttrId, MediaChange)>,
    /// Component and dynamic-zone attributes given: the instances, in order (empty
    /// clears).
    pub components: Vec<(AttrId, Vec<ComponentInput>)>,
    /// Relation attributes given.
    pub relations: Vec<(AttrId, RelationInput)>,
    /// Attributes given that their condition hides (`conditions.visible`,
    /// [`super::condition`]), or every attribute given inside a hidden component: stored
    /// as their types store them, and checked for no rule, `unique` included.
    pub unchecked: Vec<AttrId>,
}

impl Input {
    /// Whether it names a file, a relation target or a component item: something whose
    /// targets a write looks up.
    pub fn has_parts(&self) -> bool {
        !self.media.is_empty()
            || !self.media_changes.is_empty()
            || !self.relations.is_empty()
            || self.components.iter().any(|(_, items)| !items.is_empty())
    }

    /// Whether attribute `id` was given.
    pub fn has(&self, id: AttrId) -> bool {
        self.scalars.iter().any(|(a, _)| *a == id)
            || self.media.iter().any(|(a, _)| *a == id)
            || self.media_changes.iter().any(|(a, _)| *a == id)
            || self.components.iter().any(|(a, _)| *a == id)
            || self.relations.iter().any(|(a, _)| *a == id)
    }
}

/// The files of a media attribute, in order, each named as a relation entry names its
/// target ([`TargetKey`]).
pub type MediaInput = Vec<TargetKey>;

/// A media attribute's `{"connect": [...], "disconnect": [...]}`.
#[derive(Debug, Clone, Default)]
pub struct MediaChange {
    /// Files to attach after the row's others.
    pub connect: Vec<TargetKey>,
    /// Files to detach.
    pub disconnect: Vec<TargetKey>,
}

/// One component instance of a write.
#[derive(Debug)]
pub struct ComponentInput {
    /// The component.
    pub schema: SchemaId,
    /// The `id` given (any value, `null` too), as JavaScript's `String(id)`: Strapi's
    /// `pickStringifiedId`. On an update it must name a component the attribute holds
    /// (compared as text: `"7"` and `7` name row 7, `null`, `""` or `"abc"` none), which
    /// is then updated in place ([`ComponentInput::names`]); a creation ignores it.
    pub id: Option<String>,
    /// Its values.
    pub input: Input,
}

impl ComponentInput {
    /// The row the item names, once its id's text has matched a row the attribute holds
    /// (`DocumentWrite::delete_old_components`).
    pub fn row(&self) -> Option<i64> {
        self.id.as_deref().and_then(|t| t.parse().ok())
    }
}

/// An entry of a relation value.
#[derive(Debug, Clone, PartialEq)]
pub struct RelationRef {
    /// Which entry.
    pub key: TargetKey,
    /// `locale` of a longhand entry.
    pub locale: Option<String>,
    /// `status` of a longhand entry.
    pub status: Option<String>,
    /// `position` of a longhand entry.
    pub position: Option<Position>,
    /// That `position` object as given, which Strapi's position errors print.
    pub position_given: Option<Map<String, Value>>,
}

/// How a relation entry or a media value names its target (a file is a media's target:
/// Strapi reads both with one `mapRelation`).
#[derive(Debug, Clone, PartialEq)]
pub enum TargetKey {
    /// A row id.
    Id(i64),
    /// A documentId.
    DocumentId(String),
    /// A row id that no row can have, as it was given: a string that JavaScript's
    /// `parseInt` reads as a number but an integer column does not (`"12abc"`), or a
    /// number that is not an integer. Strapi takes it as an id, and it names nothing.
    NoRow(String),
}

/// Where `connect` puts an entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Position {
    /// `{"start": true}`.
    Start,
    /// `{"end": true}`.
    End,
    /// `{"before": <documentId or id>}`.
    Before(TargetKey),
    /// `{"after": <documentId or id>}`.
    After(TargetKey),
}

/// A relation attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum RelationInput {
    /// The whole list (`set`, the shorthand, `null`).
    Set {
        /// The entries the relation holds after the write.
        entries: Vec<RelationRef>,
        /// The `disconnect`, then `connect` entries given beside a `set`: Strapi's
        /// transform resolves their documentIds (one that names nothing is its 400),
        /// then its entity manager ignores them.
        beside: Vec<RelationRef>,
    },
    /// `connect` and `disconnect`.
    Change {
        /// Entries to link (appended, or at their position).
        connect: Vec<RelationRef>,
        /// Entries to unlink.
        disconnect: Vec<RelationRef>,
    },
}

impl RelationInput {
    /// Whether a creation links anything from it (`null`, `[]` and a `connect` of nothing
    /// link nothing; a `disconnect` has nothing to undo in a new row).
    pub fn links_any(&self) -> bool {
        match self {
            RelationInput::Set { entries, .. } => !entries.is_empty(),
            RelationInput::Change { connect, .. } => !connect.is_empty(),
        }
    }
}

/// What the caller may read, for the key check.
pub struct KeyRules<'a> {
    /// The model.
    pub model: &'a Model,
    /// The caller's `find` grants: a relation to a type it may not find is an unknown key.
    pub readable: &'a Permissions,
}

const TIMESTAMP_KEYS: [&str; 4] = ["createdAt", "updatedAt", "createdBy", "updatedBy"];
const IGNORED_KEYS: [&str; 2] = ["publishedAt", "locale"];

/// Pass 1: the first key the content API does not take, as Strapi's `Invalid key`.
pub fn check_keys(
    rules: &KeyRules<'_>,
    schema: &Schema,
    data: &Map<String, Value>,
) -> Result<(), WriteError> {
    check_object_keys(rules, schema, data, None, Within::Root)
}

/// Which object [`check_object_keys`] checks: the entry, a component's item, or a
/// dynamic zone's item.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Within {
    Root,
    Component,
    Zone,
}

fn check_object_keys(
    rules: &KeyRules<'_>,
    schema: &Schema,
    data: &Map<String, Value>,
    path: Option<&str>,
    within: Within,
) -> Result<(), WriteError> {
    let top = within == Within::Root;
    // Strapi's traversal checks a key that names no attribute against the attribute
    // last walked into in this object (its `parent`, which starts as the one holding the
    // object): `__component` is taken while that is the zone, so only before the item's
    // first relation, media or component given a value. `id` and `documentId` are taken
    // under any of them.
    let mut in_zone = within == Within::Zone;
    for (key, value) in data {
        if top && (key == "id" || key == "documentId") {
            return Err(WriteError::invalid_key(key, None));
        }
        if !top && (key == "id" || key == "documentId") {
            continue;
        }
        if !top && key == "__component" {
            if in_zone {
                continue;
            }
            return Err(WriteError::invalid_key(key, Some(path)));
        }
        if top && TIMESTAMP_KEYS.contains(&key.as_str()) {
            return Err(WriteError::invalid_key(key, Some(Some(key))));
        }
        if top && IGNORED_KEYS.contains(&key.as_str()) {
            continue;
        }
        let Some(attr) = schema.attribute(key) else {
            return Err(WriteError::invalid_key(key, Some(path)));
        };
        let here = match path {
            Some(p) => format!("{p}.{key}"),
            None => key.clone(),
        };
        check_value_keys(rules, attr, value, &here)?;
        if !value.is_null() && !matches!(attr.kind, AttributeKind::Scalar(_)) {
            in_zone = false;
        }
    }
    Ok(())
}

/// The keys inside one attribute's value, at `here` (its attribute path).
fn check_value_keys(
    rules: &KeyRules<'_>,
    attr: &Attribute,
    value: &Value,
    here: &str,
) -> Result<(), WriteError> {
    match &attr.kind {
        AttributeKind::Relation(r) => {
            let target = r.target.filter(|t| rules.readable.can_find(*t));
            let Some(target) = target else {
                return Err(WriteError::invalid_key(&attr.name, Some(Some(here))));
            };
            check_target_keys(rules, rules.model.schema(target), value, here)?;
        }
        AttributeKind::Media(_) => {
            if let Some(file) = rules.model.upload_file() {
                check_target_keys(rules, file, value, here)?;
            }
        }
        AttributeKind::Component(c) => {
            let cs = rules.model.schema(c.component);
            // Strapi's `path.attribute`, which names no item: `faq`, not `faq[1]`.
            for item in items(value) {
                if let Value::Object(o) = item {
                    check_object_keys(rules, cs, o, Some(here), Within::Component)?;
                }
            }
        }
        AttributeKind::DynamicZone(_) => {
            // Each item against the component its `__component` names, listed in the
            // zone or not (`getModel(entry.__component)`), at the zone's path.
            for item in items(value) {
                if let Value::Object(o) = item
                    && let Some(cs) = o
                        .get("__component")
                        .and_then(Value::as_str)
                        .and_then(|uid| rules.model.by_uid(uid))
                {
                    check_object_keys(rules, cs, o, Some(here), Within::Zone)?;
                }
            }
        }
        AttributeKind::Scalar(_) => {}
    }
    Ok(())
}

/// Keys Strapi takes in an entry of a relation's or a media's target besides the
/// target's own attributes: its id fields, the relation operations (whose values it does
/// not walk), and the attributes every content type has (`locale` and `localizations`,
/// which i18n adds to every type, the timestamps and creator fields). The creator fields
/// and `localizations` are not walked further here.
const TARGET_KEYS: [&str; 13] = [
    "id",
    "documentId",
    "connect",
    "disconnect",
    "set",
    "options",
    "locale",
    "localizations",
    "createdAt",
    "updatedAt",
    "publishedAt",
    "createdBy",
    "updatedBy",
];

/// A relation's or a media's value, as Strapi's `throwUnrecognizedFields` walks it
/// (`traverseEntity` with the target's schema): the value, or each item of a list, is an
/// entry of the target, so each of its keys is one of [`TARGET_KEYS`] or an attribute of
/// the target, whose value is walked as the target's own are. An unknown key is reported
/// at the relation's path: `{"documentId": …, "status": "draft"}` given directly is
/// refused (the target has no `status`); the entries inside `connect`, `set` or
/// `disconnect` are not walked.
fn check_target_keys(
    rules: &KeyRules<'_>,
    target: &Schema,
    value: &Value,
    here: &str,
) -> Result<(), WriteError> {
    for item in items(value) {
        let Value::Object(o) = item else {
            continue;
        };
        for (key, v) in o {
            if TARGET_KEYS.contains(&key.as_str()) {
                continue;
            }
            match target.attribute(key) {
                Some(attr) => check_value_keys(rules, attr, v, &format!("{here}.{key}"))?,
                None => return Err(WriteError::invalid_key(key, Some(Some(here)))),
            }
        }
    }
    Ok(())
}

fn items(v: &Value) -> Vec<&Value> {
    match v {
        Value::Array(a) => a.iter().collect(),
        Value::Null => Vec::new(),
        other => vec![other],
    }
}

/// A failed rule.
type Failure = FieldError;

/// What pass 2 collects.
#[derive(Default)]
struct Collected {
    failures: Vec<Failure>,
    /// The first date or time failure (reported only when yup found nothing).
    date: Option<String>,
    /// Where `date` was found, in the order Strapi's entity manager meets its values
    /// ([`Collected::date_fail`]).
    date_at: Vec<(u8, usize, usize)>,
    /// The place of the object being parsed: per level, the component attribute's index
    /// and the item's ([`Collected::date_fail`]).
    at: Vec<(u8, usize, usize)>,
    /// The data as relation errors show it.
    shown: Option<Value>,
    /// The validation the values go through.
    phase: Option<Phase>,
    /// The message of Strapi's relations check, which runs on the whole data once and
    /// stops at the first zone item it cannot read (`buildRelationsStore`).
    relations: Option<&'static str>,
    /// Whether the values make a new row (yup's `notNil` for a required attribute: an
    /// absent one must be defined) rather than update one (`notNull`: absent keeps it).
    creation: bool,
    /// How many hidden components (`conditions.visible`) the object being parsed is
    /// inside: Strapi validates nothing in them ([`parse_object`]).
    hidden_depth: usize,
    /// The failures of hidden values that their type cannot hold ([`unchecked_scalar`]):
    /// Strapi's validation passes them and its database layer then fails (a 500), so
    /// they are reported only when nothing else failed.
    unstorable: Vec<Failure>,
}

impl Collected {
    /// Records a failure of the value being parsed: one of yup's, or, inside a hidden
    /// attribute, one of [`Collected::unstorable`].
    fn fail(&mut self, f: Failure) {
        if self.hidden_depth > 0 {
            self.unstorable.push(f);
        } else {
            self.failures.push(f);
        }
    }

    fn fail_all(&mut self, f: Vec<Failure>) {
        for one in f {
            self.fail(one);
        }
    }

    /// Records how `attr`'s value failed to convert.
    fn failed(&mut self, fail: Fail, attr: &Attribute) {
        match fail {
            Fail::Rule(f) => self.fail(*f),
            Fail::Rules(f) => self.fail_all(f),
            Fail::Date(m) => self.date_fail(m, attr.id.index()),
            Fail::Unstorable(f) => self.unstorable.push(*f),
        }
    }

    fn phase(&self) -> Phase {
        self.phase.unwrap_or(Phase::Draft)
    }

    /// Records a date or time failure of the attribute `attr` of the object being parsed,
    /// if Strapi meets it first. Its entity manager throws the first it meets: it makes an
    /// entry's components before its row, each component's own before the component's
    /// row (attributes in schema order, items in list order), and converts a row's values
    /// in schema order; so at each object, a failure inside one of its components comes
    /// before one of its own values.
    fn date_fail(&mut self, message: String, attr: usize) {
        let mut at = self.at.clone();
        at.push((1, attr, 0));
        if self.date.is_none() || at < self.date_at {
            self.date = Some(message);
            self.date_at = at;
        }
    }

    /// Parses the item `item` of the component attribute `attr` (`f` does), with the
    /// failures found there placed under it ([`Collected::date_fail`]).
    fn within<T>(&mut self, attr: usize, item: usize, f: impl FnOnce(&mut Self) -> T) -> T {
        self.at.push((0, attr, item));
        let out = f(self);
        self.at.pop();
        out
    }

    /// Records the relations check's failure, if it is the first.
    fn relations_fail(&mut self, message: Option<&'static str>) {
        if self.relations.is_none() {
            self.relations = message;
        }
    }

    /// The fewest and most items of a repeatable component or a dynamic zone (a
    /// published version's rules, [`count_failure`]).
    /// The list is cast for the error's value ([`cast_list`]) only when it fails.
    fn check_count(&mut self, model: &Model, attr: &Attribute, path: &[String], v: &Value) {
        if self.phase() != Phase::Publish {
            return;
        }
        let len = v.as_array().map_or(0, Vec::len);
        if let Some(mut f) = count_failure(attr, path, len, &Value::Null) {
            f.value = Some(cast_list(model, attr, v, self.creation));
            self.failures.push(f);
        }
    }
}

/// A published version's rule on the number of items of a repeatable component or a
/// dynamic zone (Strapi's `addMinMax`): `min` when the attribute is required or the list
/// is not empty, `max` always. `shown` is the list as the error shows it.
pub fn count_failure(
    attr: &Attribute,
    path: &[String],
    len: usize,
    shown: &Value,
) -> Option<FieldError> {
    let (min, max) = match &attr.kind {
        AttributeKind::Component(c) if c.repeatable => (c.min, c.max),
        AttributeKind::DynamicZone(z) => (z.min, z.max),
        _ => return None,
    };
    let len = len as u64;
    let message = match (min, max) {
        (Some(min), _) if (attr.required || len > 0) && len < min => {
            format!("{} field must have at least {min} items", dotted(path))
        }
        (_, Some(max)) if len > max => {
            format!(
                "{} field must have less than or equal to {max} items",
                dotted(path)
            )
        }
        _ => return None,
    };
    Some(FieldError {
        path: path.to_vec(),
        message,
        value: Some(shown.clone()),
    })
}

/// A repeatable component's or a zone's list as yup shows it in a `min`/`max` error: the
/// value after the list's cast, which casts each item with its component's object schema
/// ([`cast_item`]; Strapi's `preventCast` keeps the list's own transform from undoing
/// that, as it runs first). A value that is not a list is shown as given.
fn cast_list(model: &Model, attr: &Attribute, v: &Value, creation: bool) -> Value {
    let Value::Array(items) = v else {
        return v.clone();
    };
    let cast = |item: &Value| -> Value {
        let Value::Object(o) = item else {
            return item.clone();
        };
        match &attr.kind {
            AttributeKind::Component(c) => {
                cast_item(model, Some(model.schema(c.component)), o, creation)
            }
            _ => {
                // A zone item's schema: `__component` (a string) and, when it names a
                // component, that component's fields.
                let schema = o
                    .get("__component")
                    .and_then(Value::as_str)
                    .and_then(|uid| model.by_uid(uid))
                    .filter(|s| s.kind == crate::schema::SchemaKind::Component);
                let mut cast = cast_item(model, schema, o, creation);
                if let (Value::Object(out), Some(uid)) = (&mut cast, o.get("__component")) {
                    let text = super::yup::string_cast(uid);
                    out.insert(
                        "__component".into(),
                        text.map_or_else(|| uid.clone(), Value::String),
                    );
                }
                cast
            }
        }
    };
    Value::Array(items.iter().map(cast).collect())
}

/// An item as yup's object schema of `schema` casts it (yup 0.32's `object._cast`): each
/// attribute the item holds cast as its validator casts it (scalars by [`cast_changes`],
/// lists of components and zones by [`cast_list`], single components in turn, relations
/// and media as given); on a creation, an attribute it lacks takes its default (Strapi's
/// `addDefault`: a list that is not required `[]`, else the schema's `default`); keys
/// that are no attribute stay as given.
fn cast_item(
    model: &Model,
    schema: Option<&Schema>,
    o: &Map<String, Value>,
    creation: bool,
) -> Value {
    let mut out = Map::new();
    for attr in schema.map_or(&[][..], |s| &s.attributes[..]) {
        let cast = match o.get(&attr.name) {
            Some(v) => Some(match &attr.kind {
                AttributeKind::Scalar(ty) => {
                    super::yup::cast_changes(ty, v).unwrap_or_else(|| v.clone())
                }
                AttributeKind::Component(c) if !c.repeatable => match v {
                    Value::Object(inner) => {
                        cast_item(model, Some(model.schema(c.component)), inner, creation)
                    }
                    other => other.clone(),
                },
                AttributeKind::Component(_) | AttributeKind::DynamicZone(_) => {
                    cast_list(model, attr, v, creation)
                }
                AttributeKind::Relation(_) | AttributeKind::Media(_) => v.clone(),
            }),
            None if creation => match &attr.kind {
                AttributeKind::Component(c) if c.repeatable && !attr.required => {
                    Some(Value::Array(Vec::new()))
                }
                AttributeKind::DynamicZone(_) if !attr.required => Some(Value::Array(Vec::new())),
                _ => attr.default.clone(),
            },
            None => None,
        };
        if let Some(cast) = cast {
            out.insert(attr.name.clone(), cast);
        }
    }
    for (key, v) in o {
        if !out.contains_key(key) {
            out.insert(key.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// yup's failure for a required single component that is null in a published version
/// (or any write of a type without draft and publish).
pub fn null_component(path: &[String]) -> FieldError {
    type_failure(path, "object", &Value::Null)
}

/// What yup's `notNil` says of a required attribute absent from a creation's data
/// (`None` when it may be absent): a repeatable component or a dynamic zone in any
/// phase (Strapi marks every list required and gives the optional ones a default `[]`),
/// a scalar without a default or a single component in [`Phase::Publish`].
fn absent_failure(attr: &Attribute, path: &[String], phase: Phase) -> Option<FieldError> {
    if !attr.required {
        return None;
    }
    let checked = match &attr.kind {
        AttributeKind::Component(c) if c.repeatable => true,
        AttributeKind::DynamicZone(_) => true,
        AttributeKind::Component(_) => phase == Phase::Publish,
        AttributeKind::Scalar(_) => phase == Phase::Publish && attr.default.is_none(),
        AttributeKind::Media(_) | AttributeKind::Relation(_) => false,
    };
    checked.then(|| FieldError {
        message: format!("{} must be defined.", dotted(path)),
        path: path.to_vec(),
        value: None,
    })
}

/// Pass 2 of a write's data: what it is checked against.
#[derive(Debug, Clone, Copy)]
pub struct DataParse<'a> {
    /// The content model.
    pub model: &'a Model,
    /// The type written.
    pub schema: &'a Schema,
    /// The request's `data`.
    pub data: &'a Map<String, Value>,
    /// The data as Strapi's relation errors show it (see `shown_data`).
    pub shown: &'a Value,
    /// [`Phase::Draft`] for a draft-and-publish type (its published version is checked
    /// when it publishes, [`publish_failures`]), [`Phase::Publish`] otherwise.
    pub phase: Phase,
    /// Whether the values make a new document (required attributes must then be given,
    /// [`absent_failure`]) or update one.
    pub creation: bool,
}

/// A data that pass 2 refused: Strapi's 400, with what could still be read of it.
/// Strapi looks up the documentIds before it validates, and its relations check runs
/// beside yup's other tests, so the targets of `input` still decide the answer
/// (`write::refusal`).
#[derive(Debug)]
pub struct Refused {
    /// yup's errors of the fields, in yup's order (empty when only a date failed).
    pub failures: Vec<FieldError>,
    /// The relations check's `Invalid relations`: a test of the data itself, whose
    /// error follows those of its fields. No count of missing rows joins it.
    pub relations: Option<FieldError>,
    /// The entity manager's bare date message, which Strapi gives only after its
    /// validation passed.
    pub date: Option<String>,
    /// Whether a date that failed is inside a component (not the entry's own).
    pub date_in_component: bool,
    /// The values read, failed ones left out.
    pub input: Input,
}

impl Refused {
    /// Whether yup refused the data (else only a date failed).
    pub fn by_yup(&self) -> bool {
        !self.failures.is_empty() || self.relations.is_some()
    }

    /// Whether only a date of the entry's own failed: Strapi's validation passed, its
    /// document service made the components, and its entity manager then refused the
    /// entry's row (`processData`) before inserting it.
    pub fn by_entry_date(&self) -> bool {
        self.date.is_some() && !self.date_in_component && !self.by_yup()
    }

    /// Strapi's 400: yup's errors, the relations check's last; else the date message.
    pub fn error(&self) -> WriteError {
        match (&self.date, self.by_yup()) {
            (Some(message), false) => WriteError::bare(message.clone()),
            _ => {
                let mut all = self.failures.clone();
                all.extend(self.relations.clone());
                WriteError::fields(all)
            }
        }
    }
}

impl DataParse<'_> {
    /// The values of the data, or Strapi's 400.
    pub fn parse(&self) -> Result<Input, WriteError> {
        self.parse_or_refuse().map_err(|r| r.error())
    }

    /// [`Self::parse`], keeping what was read when it refuses ([`Refused`]).
    pub fn parse_or_refuse(&self) -> Result<Input, Box<Refused>> {
        let DataParse {
            model,
            schema,
            data,
            shown,
            phase,
            creation,
        } = *self;
        let mut c = Collected {
            shown: Some(shown.clone()),
            phase: Some(phase),
            creation,
            ..Collected::default()
        };
        let input = parse_object(model, schema, data, &[], &mut c);
        if c.failures.is_empty() && c.relations.is_none() && c.date.is_none() {
            if c.unstorable.is_empty() {
                return Ok(input);
            }
            c.failures = std::mem::take(&mut c.unstorable);
        }
        let validated = Validated {
            data,
            draft: phase == Phase::Draft,
        };
        in_yup_order(model, schema, &mut c.failures, Some(validated));
        let relations = c.relations.map(|message| FieldError {
            path: Vec::new(),
            message: message.into(),
            value: c.shown.clone(),
        });
        Err(Box::new(Refused {
            failures: c.failures,
            relations,
            date: c.date,
            // Placed under a component item: inside a component.
            date_in_component: c.date_at.len() > 1,
            input,
        }))
    }
}

fn parse_object(
    model: &Model,
    schema: &Schema,
    data: &Map<String, Value>,
    path: &[String],
    c: &mut Collected,
) -> Input {
    let mut input = Input::default();
    for attr in &schema.attributes {
        let mut here = path.to_vec();
        here.push(attr.name.clone());
        // Strapi checks nothing of an attribute its condition hides on this data, nor of
        // anything inside a hidden component.
        let hidden = c.hidden_depth > 0 || super::condition::hidden(attr, data);
        let Some(v) = data.get(&attr.name) else {
            if c.creation
                && !hidden
                && let Some(f) = absent_failure(attr, &here, c.phase())
            {
                c.failures.push(f);
            }
            continue;
        };
        // A hidden value is only converted to its type; the items of a hidden component
        // are hidden throughout.
        if hidden {
            input.unchecked.push(attr.id);
        }
        c.hidden_depth += usize::from(hidden);
        parse_value(model, attr, v, here, &mut input, c);
        c.hidden_depth -= usize::from(hidden);
    }
    input
}

/// One attribute's value `v`, at `here`, into `input` (its failures into `c`), checked
/// as Strapi checks it, or only converted to its type inside a hidden attribute
/// ([`Collected::hidden_depth`]).
fn parse_value(
    model: &Model,
    attr: &Attribute,
    v: &Value,
    here: Vec<String>,
    input: &mut Input,
    c: &mut Collected,
) {
    let hidden = c.hidden_depth > 0;
    match &attr.kind {
        AttributeKind::Scalar(ty) if hidden => match unchecked_scalar(attr, ty, v, &here) {
            Ok(value) => input.scalars.push((attr.id, value)),
            Err(fail) => c.failed(fail, attr),
        },
        AttributeKind::Scalar(ty)
            if v.is_null() && attr.required && c.phase() == Phase::Publish =>
        {
            c.fail(required_null(&here, ty, c.creation));
        }
        AttributeKind::Scalar(ty) => match scalar(attr, ty, v, &here, c.phase()) {
            Ok(value) => input.scalars.push((attr.id, value)),
            Err(fail) => c.failed(fail, attr),
        },
        AttributeKind::Media(_) if is_media_connect(v) => {
            let files = |key: &str| {
                v.get(key)
                    .map(|l| items(l).into_iter().filter_map(file_ref).collect())
                    .unwrap_or_default()
            };
            let change = MediaChange {
                connect: files("connect"),
                disconnect: files("disconnect"),
            };
            input.media_changes.push((attr.id, change));
        }
        AttributeKind::Media(_) => input.media.push((attr.id, media(v))),
        AttributeKind::Relation(r) => {
            let kept = match r.kind.is_to_many() {
                true => std::borrow::Cow::Borrowed(v),
                false => std::borrow::Cow::Owned(last_of_to_one(v)),
            };
            if names_unreadable_entry(&kept) {
                c.relations_fail(Some(INVALID_RELATIONS));
            }
            if let Some(r) = relation(v) {
                input.relations.push((attr.id, r));
            }
        }
        AttributeKind::Component(cf) => {
            let cs = model.schema(cf.component);
            let list = if cf.repeatable {
                match v {
                    Value::Array(a) => a.iter().collect(),
                    other => {
                        c.fail(type_failure(&here, "array", other));
                        return;
                    }
                }
            } else {
                match v {
                    Value::Object(_) => vec![v],
                    Value::Null if attr.required && c.phase() == Phase::Publish && !hidden => {
                        c.fail(null_component(&here));
                        return;
                    }
                    Value::Null => Vec::new(),
                    other => {
                        c.fail(type_failure(&here, "object", other));
                        return;
                    }
                }
            };
            let mut out = Vec::new();
            for (i, item) in list.into_iter().enumerate() {
                let mut p = here.clone();
                if cf.repeatable {
                    p.push(i.to_string());
                }
                match item {
                    Value::Object(o) => {
                        out.push(c.within(attr.id.index(), i, |c| component(model, cs, o, &p, c)))
                    }
                    // yup casts a list's item that is not an object to null.
                    Value::Null => c.fail(type_failure(&p, "object", item)),
                    other => c.fail(cast_to_null_failure(&p, "object", other)),
                }
            }
            if cf.repeatable && !hidden {
                c.check_count(model, attr, &here, v);
            }
            input.components.push((attr.id, out));
        }
        AttributeKind::DynamicZone(_) => {
            let list: Vec<&Value> = match v {
                Value::Array(a) => a.iter().collect(),
                other => {
                    c.fail(type_failure(&here, "array", other));
                    // The relations check takes the value as a list of one item.
                    if !other.is_null() {
                        c.relations_fail(zone_item_relations(other));
                    }
                    return;
                }
            };
            let mut out = Vec::new();
            for (i, item) in list.into_iter().enumerate() {
                let mut p = here.clone();
                p.push(i.to_string());
                let Value::Object(o) = item else {
                    // yup casts a zone item that is not an object to null, and the
                    // relations check then fails on it.
                    c.fail(match item {
                        Value::Null => type_failure(&p, "object", item),
                        other => cast_to_null_failure(&p, "object", other),
                    });
                    c.relations_fail(Some(INVALID_RELATIONS));
                    continue;
                };
                let uid = o.get("__component").and_then(Value::as_str);
                match uid.and_then(|u| model.by_uid(u)) {
                    Some(cs) if cs.kind == crate::schema::SchemaKind::Component => {
                        out.push(c.within(attr.id.index(), i, |c| component(model, cs, o, &p, c)));
                    }
                    _ => {
                        let mut cp = p.clone();
                        cp.push("__component".into());
                        let (message, value) = match uid {
                            None => (format!("{} is a required field", dotted(&cp)), None),
                            Some(u) => (
                                format!(
                                    "{} must be one of the following values: {}",
                                    dotted(&cp),
                                    every_component(model)
                                ),
                                Some(Value::String(u.to_string())),
                            ),
                        };
                        c.fail(FieldError {
                            path: cp,
                            message,
                            value,
                        });
                        c.relations_fail(zone_item_relations(item));
                    }
                }
            }
            if !hidden {
                c.check_count(model, attr, &here, v);
            }
            input.components.push((attr.id, out));
        }
    }
}

/// Every component of the project, as Strapi lists them in a zone's `oneOf` message: in
/// the order its registry ends up in, which follows an asynchronous walk of
/// `components/`. Within a category it is last first (`shared.social-link, …,
/// shared.faq-item`); the order of the categories was seen to change from one boot of
/// the same project to the next, so they are taken last first too.
fn every_component(model: &Model) -> String {
    let mut uids: Vec<&str> = model.components().map(|s| s.uid.as_str()).collect();
    uids.sort_unstable_by(|a, b| b.cmp(a));
    uids.join(", ")
}

fn component(
    model: &Model,
    schema: &Schema,
    o: &Map<String, Value>,
    path: &[String],
    c: &mut Collected,
) -> ComponentInput {
    ComponentInput {
        schema: schema.id,
        id: o.get("id").map(super::yup::js_string),
        input: parse_object(model, schema, o, path, c),
    }
}

enum Fail {
    Rule(Box<Failure>),
    /// Several failures of one value (an enumeration given a list; blocks).
    Rules(Vec<Failure>),
    Date(String),
    /// A value yup passes that its column cannot hold (a number past 64 bits): Strapi's
    /// database layer then stores a rounded double (SQLite) or fails (a 500), so strata
    /// reports it only when nothing else failed ([`Collected::unstorable`]).
    Unstorable(Box<Failure>),
}

fn type_failure(path: &[String], ty: &str, v: &Value) -> Failure {
    type_error(path, ty, v, Cast::Kept)
}

const INVALID_RELATIONS: &str = "Invalid relations";

/// What Strapi's relations check says of a zone item that names no known component
/// (`None`: it names one): an item without a component (or a falsy one) cannot be
/// read; another name fails as `Invalid relations`.
fn zone_item_relations(item: &Value) -> Option<&'static str> {
    let component = match item {
        Value::Object(o) => o.get("__component"),
        _ => None,
    };
    match component {
        None | Some(Value::Null | Value::Bool(false)) => {
            Some("Cannot build relations store from dynamiczone, component identifier is undefined")
        }
        Some(Value::String(s)) if s.is_empty() => {
            Some("Cannot build relations store from dynamiczone, component identifier is undefined")
        }
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => {
            Some("Cannot build relations store from dynamiczone, component identifier is undefined")
        }
        Some(_) => Some(INVALID_RELATIONS),
    }
}

/// yup's type error for a value it cast to null: `… was: `null` (cast from the value …).`
fn cast_to_null_failure(path: &[String], ty: &str, v: &Value) -> Failure {
    type_error(path, ty, v, Cast::Null)
}

fn cast_failure(path: &[String], v: &Value) -> Fail {
    Fail::Rule(Box::new(type_error(path, "number", v, Cast::NaN)))
}

fn rule(path: &[String], message: String, v: &Value) -> Fail {
    Fail::Rule(Box::new(FieldError {
        path: path.to_vec(),
        message: format!("{} {message}", dotted(path)),
        value: Some(v.clone()),
    }))
}

/// `fail` as a value yup passes that its column cannot hold ([`Fail::Unstorable`]).
fn unstorable(fail: Fail) -> Fail {
    match fail {
        Fail::Rule(f) => Fail::Unstorable(f),
        other => other,
    }
}

/// The length of a string as JavaScript counts it (UTF-16 code units).
fn js_length(s: &str) -> u64 {
    s.encode_utf16().count() as u64
}

/// Which of Strapi's validations a value goes through: a draft's (`isDraft`: types,
/// enumerations, maximums) or a published version's (also minimums, `regex`, email and
/// uid patterns, `required`, `unique`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The draft of a draft-and-publish type.
    Draft,
    /// A published version, or a type without draft and publish.
    Publish,
}

impl Phase {
    /// The phase a write's data is checked in: a draft-and-publish type's data makes a
    /// draft (its published version is checked when it publishes), another's is stored
    /// as given.
    pub fn of_data(schema: &Schema) -> Phase {
        if schema.draft_and_publish {
            Phase::Draft
        } else {
            Phase::Publish
        }
    }
}

fn check_range(
    attr: &crate::schema::Attribute,
    x: f64,
    path: &[String],
    v: &Value,
    phase: Phase,
) -> Result<(), Fail> {
    let c = &attr.constraints;
    if let Some(min) = &c.min
        && phase == Phase::Publish
        && min.as_f64().is_some_and(|m| x < m)
    {
        return Err(rule(
            path,
            format!("must be greater than or equal to {}", number_text(min)),
            v,
        ));
    }
    if let Some(max) = &c.max
        && max.as_f64().is_some_and(|m| x > m)
    {
        return Err(rule(
            path,
            format!("must be less than or equal to {}", number_text(max)),
            v,
        ));
    }
    Ok(())
}

/// The longest text a `string` attribute takes when its schema sets no `maxLength`
/// (Strapi's `varchar(255)`).
const STRING_MAX_LENGTH: u64 = 255;

fn check_text(
    attr: &crate::schema::Attribute,
    ty: &ScalarType,
    s: &str,
    path: &[String],
    v: &Value,
    phase: Phase,
) -> Result<(), Fail> {
    let c = &attr.constraints;
    let n = js_length(s);
    if let Some(min) = c.min_length
        && phase == Phase::Publish
        && n < min
    {
        return Err(rule(path, format!("must be at least {min} characters"), v));
    }
    let max = match ty {
        ScalarType::String => Some(c.max_length.unwrap_or(STRING_MAX_LENGTH)),
        _ => c.max_length,
    };
    if let Some(max) = max
        && n > max
    {
        return Err(rule(path, format!("must be at most {max} characters"), v));
    }
    if let Some(re) = &c.regex
        && phase == Phase::Publish
        && (!s.is_empty() || attr.required)
        && let Ok(compiled) = regex::Regex::new(re)
        && !compiled.is_match(s)
    {
        return Err(rule(
            path,
            format!("must match the following: \"/{}/\"", js_regex_source(re)),
            v,
        ));
    }
    Ok(())
}

/// A pattern as JavaScript's `String(new RegExp(pattern))` writes it between its slashes
/// (V8's `EscapeRegExpSource`), which yup's `matches` message shows: a `/` outside a
/// character class escaped, line terminators written as escapes.
fn js_regex_source(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let (mut escaped, mut in_class) = (false, false);
    for c in pattern.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            _ if escaped => {
                out.push(c);
                escaped = false;
                continue;
            }
            '\\' => {
                out.push(c);
                escaped = true;
                continue;
            }
            '[' => {
                in_class = true;
                out.push(c);
            }
            ']' => {
                in_class = false;
                out.push(c);
            }
            '/' if !in_class => out.push_str("\\/"),
            _ => out.push(c),
        }
        escaped = false;
    }
    out
}

/// Whether `s` passes yup's `email()` test ([`yup_email_pattern`]).
fn is_email(s: &str) -> bool {
    static EMAIL: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(&yup_email_pattern()).ok());
    EMAIL.as_ref().is_some_and(|re| re.is_match(s))
}

/// yup 0.32.9's `rEmail` (the `email()` test Strapi's validators use), case-insensitive:
/// a dot-atom or quoted local part, then a domain of at least two labels whose last
/// starts and ends with a letter. JavaScript's `\d` is ASCII, and its `\uXXXX` ranges
/// are the same characters here (an astral character is in none of them).
fn yup_email_pattern() -> String {
    let u = r"\x{A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}";
    let atom = format!(r"[a-z0-9!#$%&'*+\-/=?^_`{{|}}~{u}]");
    let dot_atom = format!(r"{atom}+(?:\.{atom}+)*");
    let space = r"(?:(?:[\x20\x09]*\x0d\x0a)?[\x20\x09]+)";
    let text = format!(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f\x21\x23-\x5b\x5d-\x7e{u}]");
    let pair = format!(r"\\[\x01-\x09\x0b\x0c\x0d-\x7f{u}]");
    let quoted = format!(r#""(?:{space}?(?:{text}|{pair}))*{space}?""#);
    let label = format!(r"[a-z0-9{u}](?:[a-z0-9\-._~{u}]*[a-z0-9{u}])?");
    let last = format!(r"[a-z{u}](?:[a-z0-9\-._~{u}]*[a-z{u}])?");
    format!(r"(?i)^(?:{dot_atom}|{quoted})@(?:{label}\.)+{last}$")
}

fn scalar(
    attr: &crate::schema::Attribute,
    ty: &ScalarType,
    v: &Value,
    path: &[String],
    phase: Phase,
) -> Result<StoredValue, Fail> {
    if v.is_null() {
        return Ok(StoredValue::Null);
    }
    match ty {
        ScalarType::String
        | ScalarType::Text
        | ScalarType::RichText
        | ScalarType::Email
        | ScalarType::Password
        | ScalarType::Uid { .. } => {
            let Value::String(s) = v else {
                return Err(Fail::Rule(Box::new(type_failure(path, "string", v))));
            };
            check_text(attr, ty, s, path, v, phase)?;
            let publish = phase == Phase::Publish;
            match ty {
                ScalarType::Email if publish && !s.is_empty() && !is_email(s) => {
                    Err(rule(path, "must be a valid email".into(), v))
                }
                ScalarType::Email if publish && s.is_empty() => {
                    Err(rule(path, "cannot be empty".into(), v))
                }
                ScalarType::Uid { .. } if publish && !ScalarType::is_uid_text(s) => Err(rule(
                    path,
                    format!(
                        "must match the following: \"/{}/\"",
                        ScalarType::UID_PATTERN
                    ),
                    v,
                )),
                ScalarType::Password => {
                    let hashed =
                        crate::store::import::writer::hash_password(s).map_err(Fail::Date)?;
                    Ok(StoredValue::Text(hashed))
                }
                _ => Ok(StoredValue::Text(s.clone())),
            }
        }
        ScalarType::Integer => {
            let x = js_cast_number(v).ok_or_else(|| cast_failure(path, v))?;
            // yup's tests see the cast number, and their errors show it (`"5.5"` as 5.5).
            let cast = super::yup::cast_changes(ty, v);
            let shown = cast.as_ref().unwrap_or(v);
            if x.fract() != 0.0 {
                return Err(rule(path, "must be an integer".into(), shown));
            }
            check_range(attr, x, path, shown, phase)?;
            // Past a 64-bit integer the value cannot be stored as given (Strapi stores a
            // float on SQLite and fails with a 500 elsewhere): a 400, never a clamp.
            if !(I64_LOWEST..I64_PAST_HIGHEST).contains(&x) {
                let message = format!("must be between {} and {}", i64::MIN, i64::MAX);
                return Err(unstorable(rule(path, message, shown)));
            }
            Ok(StoredValue::Integer(x as i64))
        }
        ScalarType::Float | ScalarType::Decimal => {
            let x = js_cast_number(v).ok_or_else(|| cast_failure(path, v))?;
            let cast = super::yup::cast_changes(ty, v);
            check_range(attr, x, path, cast.as_ref().unwrap_or(v), phase)?;
            Ok(StoredValue::Real(x))
        }
        ScalarType::BigInteger => {
            // Strapi's `toBigIntegerString`: an integral number's text, or a string of
            // digits (trimmed, an optional sign). The error shows the number's text.
            let (text, shown) = match v {
                Value::Number(n) if n.as_f64().is_some_and(|x| x.fract() == 0.0) => {
                    let t = number_text(n);
                    (Some(t.clone()), Value::String(t))
                }
                Value::String(s) => (Some(s.trim().to_string()), v.clone()),
                _ => (None, v.clone()),
            };
            let digits = text.as_deref().filter(|t| {
                let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            });
            let invalid = || rule(path, "must be a valid integer".into(), &shown);
            let Some(digits) = digits else {
                return Err(invalid());
            };
            // Digits past 64 bits pass Strapi's `toBigIntegerString`.
            match digits.strip_prefix('+').unwrap_or(digits).parse::<i64>() {
                Ok(n) => Ok(StoredValue::Integer(n)),
                Err(_) => Err(unstorable(invalid())),
            }
        }
        ScalarType::Boolean => {
            let text = match v {
                Value::Bool(b) => return Ok(StoredValue::Integer(i64::from(*b))),
                Value::Number(n) => number_text(n),
                Value::String(s) => s.to_ascii_lowercase(),
                _ => String::new(),
            };
            match text.as_str() {
                "true" | "1" => Ok(StoredValue::Integer(1)),
                "false" | "0" => Ok(StoredValue::Integer(0)),
                _ => Err(Fail::Rule(Box::new(type_failure(path, "boolean", v)))),
            }
        }
        ScalarType::Date => date(v).map_err(Fail::Date),
        ScalarType::DateTime | ScalarType::Timestamp => datetime(v).map_err(Fail::Date),
        ScalarType::Time => time(v).map_err(Fail::Date),
        // A JSON string is stored as its text, not as JSON (Strapi hands it to the driver
        // as is: SQLite keeps it, PostgreSQL and MySQL refuse it as JSON), and a bare
        // boolean as the driver binds it (`StoredValue::JsonBoolean`). Anything else is
        // stored as JavaScript writes back what it parsed (`1.0` as `1`).
        ScalarType::Json => Ok(match v {
            Value::String(s) => StoredValue::Text(s.clone()),
            Value::Bool(b) => StoredValue::JsonBoolean(*b),
            other => StoredValue::Text(js_json_text(other)),
        }),
        ScalarType::Enumeration { values } => enumeration(values, v, path),
        // yup casts what is not a list (nor a string holding one) to null: stored as
        // NULL, or refused when the attribute is required in a published version.
        ScalarType::Blocks => match super::blocks::cast_array(v) {
            Some(nodes) => {
                let failures = super::blocks::failures(&nodes, path);
                if !failures.is_empty() {
                    return Err(Fail::Rules(failures));
                }
                Ok(StoredValue::Text(js_json_text(&Value::Array(nodes))))
            }
            None if attr.required && phase == Phase::Publish => {
                Err(Fail::Rule(Box::new(cast_to_null_failure(path, "array", v))))
            }
            None => Ok(StoredValue::Null),
        },
    }
}

/// The value of a scalar attribute that its condition hides (`conditions.visible`).
/// Strapi's validator checks nothing of it, and its database layer converts it
/// (`@strapi/database`'s fields' `toDB`), so it is stored as that conversion stores it:
/// the text types take any value as lodash's `toString` writes it (`-1` as `"-1"`, an
/// object as `"[object Object]"`), a boolean takes `"t"`/`"f"`, `0`/`1` and else
/// JavaScript's truthiness, JSON and blocks take any JSON. Numbers, big integers, dates
/// and times convert as they do when shown; what they cannot hold (a text that is not a
/// number, a fraction for an integer) is refused with the type's error, where Strapi's
/// conversion fails with a 500 or stores the fraction.
fn unchecked_scalar(
    attr: &Attribute,
    ty: &ScalarType,
    v: &Value,
    path: &[String],
) -> Result<StoredValue, Fail> {
    if v.is_null() {
        return Ok(StoredValue::Null);
    }
    match ty {
        ScalarType::String
        | ScalarType::Text
        | ScalarType::RichText
        | ScalarType::Email
        | ScalarType::Uid { .. }
        | ScalarType::Enumeration { .. } => Ok(StoredValue::Text(lodash_to_string(v))),
        ScalarType::Password => {
            let text = Value::String(lodash_to_string(v));
            scalar(attr, ty, &text, path, Phase::Draft)
        }
        ScalarType::Boolean => Ok(StoredValue::Integer(i64::from(database_boolean(v)))),
        ScalarType::Blocks => scalar(attr, &ScalarType::Json, v, path, Phase::Draft),
        _ => {
            let bare = Attribute {
                required: false,
                constraints: crate::schema::Constraints::default(),
                ..attr.clone()
            };
            scalar(&bare, ty, v, path, Phase::Draft)
        }
    }
}

/// lodash's `toString` (Strapi's text fields' `toDB`): a list's items joined with `,`
/// (null items as `null`), an object `[object Object]`, `-0` as `"-0"`.
fn lodash_to_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.as_f64() == Some(0.0) && n.to_string().starts_with('-') => {
            "-0".into()
        }
        Value::Number(n) => number_text(n),
        Value::Array(items) => {
            let texts: Vec<String> = items.iter().map(lodash_to_string).collect();
            texts.join(",")
        }
        Value::Object(_) => "[object Object]".into(),
    }
}

/// Strapi's boolean field's `toDB`: `"true"`, `"t"`, `"1"` and `1` are true, `"false"`,
/// `"f"`, `"0"` and `0` false, anything else JavaScript's truthiness.
fn database_boolean(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => match s.as_str() {
            "true" | "t" | "1" => true,
            "false" | "f" | "0" => false,
            other => !other.is_empty(),
        },
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::Null => false,
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// An enumeration's value, as yup's non-strict `string().oneOf(...)` takes it: a number or
/// a boolean is cast to its text first; a list or an object fails both the type and the
/// list of values.
fn enumeration(values: &[String], v: &Value, path: &[String]) -> Result<StoredValue, Fail> {
    let text = match v {
        Value::String(s) => Some(s.clone()),
        other => super::yup::string_cast(other),
    };
    if let Some(t) = text.as_ref().filter(|t| values.contains(t)) {
        return Ok(StoredValue::Text(t.clone()));
    }
    let not_one = FieldError {
        path: path.to_vec(),
        message: format!(
            "{} must be one of the following values: {}, ",
            dotted(path),
            values.join(", ")
        ),
        value: Some(text.map_or_else(|| v.clone(), Value::String)),
    };
    match v {
        Value::Array(_) | Value::Object(_) => {
            Err(Fail::Rules(vec![type_failure(path, "string", v), not_one]))
        }
        _ => Err(Fail::Rule(Box::new(not_one))),
    }
}

/// The rules a published version adds to a draft's ([`Phase::Publish`]), for the stored
/// values of a draft about to be published (`values` in schema order, every scalar
/// attribute with a column): `required`, then the minimums, `regex`, email and uid
/// patterns, of the attributes their conditions show on `data` (these values as
/// conditions read them, `condition::stored_data`). `unique` needs the database and is
/// the caller's.
/// `prefix` is where `schema`'s values sit in the document: empty for the document's own,
/// `["tree", "levels", "0"]` for a component's.
pub fn publish_failures(
    schema: &Schema,
    values: &[(AttrId, StoredValue)],
    data: &Map<String, Value>,
    prefix: &[String],
) -> Vec<FieldError> {
    let mut out = Vec::new();
    for (id, stored) in values {
        let Some(attr) = schema.attributes.get(id.index()) else {
            continue;
        };
        let AttributeKind::Scalar(ty) = &attr.kind else {
            continue;
        };
        if super::condition::hidden(attr, data) {
            continue;
        }
        let mut at = prefix.to_vec();
        at.push(attr.name.clone());
        let path = at.as_slice();
        let v = match stored {
            StoredValue::Null => {
                if attr.required {
                    out.push(required_null(path, ty, true));
                }
                continue;
            }
            StoredValue::Text(t) => Value::String(t.clone()),
            // A stored biginteger is checked as its exact text: as a JavaScript number
            // (what Strapi's read hands its validator) the largest ones round past 2^63,
            // which a value given in a request may not be.
            StoredValue::Integer(i) if matches!(ty, ScalarType::BigInteger) => {
                Value::String(i.to_string())
            }
            StoredValue::Integer(i) => Value::from(*i),
            StoredValue::Real(f) => Value::from(*f),
            // Dates, times and bytes have no rule of the published version.
            StoredValue::Timestamp(_) | StoredValue::Blob(_) | StoredValue::JsonBoolean(_) => {
                continue;
            }
        };
        let checked = match ty {
            // Stored text of these types is taken back as it is (a bcrypt hash, JSON).
            ScalarType::Password | ScalarType::Json | ScalarType::Blocks | ScalarType::Boolean => {
                continue;
            }
            _ => scalar(attr, ty, &v, path, Phase::Publish),
        };
        match checked {
            Err(Fail::Rule(f) | Fail::Unstorable(f)) => out.push(*f),
            Err(Fail::Rules(f)) => out.extend(f),
            Ok(_) | Err(Fail::Date(_)) => {}
        }
    }
    out
}

/// yup's failure for a required attribute that is null in a published version (or any
/// write of a type without draft and publish). Numbers are cast first (`NaN`); the
/// string types and blocks fail their type; the others fail yup's `notNil` on a
/// creation (`must be defined.`) and `notNull` on an update (`cannot be null.`).
/// `path` is the attribute's place in the document (`["pairs", "0", "key"]`).
pub fn required_null(path: &[String], ty: &ScalarType, creation: bool) -> FieldError {
    let name = dotted(path);
    let message = match ty {
        ScalarType::Integer | ScalarType::Float | ScalarType::Decimal => {
            format!("{name} must be a `number` type, but the final value was: `NaN`.")
        }
        ScalarType::Blocks => {
            format!("{name} must be a `array` type, but the final value was: `null`.")
        }
        ScalarType::BigInteger
        | ScalarType::Boolean
        | ScalarType::Json
        | ScalarType::Date
        | ScalarType::DateTime
        | ScalarType::Time
        | ScalarType::Timestamp => match creation {
            true => format!("{name} must be defined."),
            false => format!("{name} cannot be null."),
        },
        _ => format!("{name} must be a `string` type, but the final value was: `null`."),
    };
    FieldError {
        path: path.to_vec(),
        message,
        value: Some(Value::Null),
    }
}

/// A schema default as the value to store (`None` when it does not fit the type).
pub fn default_value(attr: &crate::schema::Attribute, default: &Value) -> Option<StoredValue> {
    let AttributeKind::Scalar(ty) = &attr.kind else {
        return None;
    };
    scalar(
        attr,
        ty,
        default,
        std::slice::from_ref(&attr.name),
        Phase::Draft,
    )
    .ok()
}

use crate::store::import::values::{parse_date, parse_datetime};

/// The entity manager's `parseDate`: a date, or the date of a date-time.
/// Strapi's `parseDate`: the `yyyy-MM-dd` a string starts with (what follows is dropped,
/// with a deprecation warning in Strapi), which must be a day of the calendar.
fn date(v: &Value) -> Result<StoredValue, String> {
    const MESSAGE: &str = "Invalid format, expected yyyy-MM-dd";
    let Value::String(s) = v else {
        return Err(MESSAGE.into());
    };
    let prefix = s.get(..10).filter(|p| {
        let b = p.as_bytes();
        let two = |i: usize| b[i].is_ascii_digit() && b[i + 1].is_ascii_digit();
        let (month, day) = (&p[5..7], &p[8..10]);
        b[..4].iter().all(u8::is_ascii_digit)
            && b[4] == b'-'
            && b[7] == b'-'
            && two(5)
            && two(8)
            && ("01"..="12").contains(&month)
            && ("01"..="31").contains(&day)
    });
    let Some(prefix) = prefix else {
        return Err(MESSAGE.into());
    };
    match parse_date(prefix) {
        Some(_) => Ok(StoredValue::Text(prefix.to_string())),
        None => Err("Invalid date".into()),
    }
}

/// The smallest 64-bit integer as a double, and the first double past the largest.
const I64_LOWEST: f64 = -9_223_372_036_854_775_808.0;
const I64_PAST_HIGHEST: f64 = 9_223_372_036_854_775_808.0;

/// The largest distance from the epoch, in milliseconds, of a JavaScript `Date`: past it
/// `new Date(ms)` is an invalid date.
const JS_DATE_MAX_MS: i64 = 8_640_000_000_000_000;

/// `parseDateTimeOrTimestamp`: epoch milliseconds (a number or its text), or ISO 8601;
/// a time a JavaScript `Date` cannot hold is invalid.
fn datetime(v: &Value) -> Result<StoredValue, String> {
    const MESSAGE: &str = "Invalid format, expected a timestamp or an ISO date";
    let ms = match v {
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.abs() <= JS_DATE_MAX_MS as f64)
            .map(|f| f as i64),
        Value::String(s) => match s.parse::<i64>() {
            Ok(ms) => Some(ms),
            Err(_) => parse_datetime(s),
        },
        _ => None,
    };
    ms.filter(|ms| (-JS_DATE_MAX_MS..=JS_DATE_MAX_MS).contains(ms))
        .map(StoredValue::Timestamp)
        .ok_or_else(|| MESSAGE.into())
}

/// `parseTime`: `HH:mm:ss` with up to three fraction digits, stored as `HH:mm:ss.SSS`.
fn time(v: &Value) -> Result<StoredValue, String> {
    const MESSAGE: &str = "Invalid time format, expected HH:mm:ss.SSS";
    let s = match v {
        Value::String(s) => s,
        Value::Number(_) => return Err("Expected a string, got a number".into()),
        Value::Bool(_) => return Err("Expected a string, got a boolean".into()),
        _ => return Err("Expected a string, got a object".into()),
    };
    let (hms, frac) = match s.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (s.as_str(), None),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    let two = |p: &str, max: u32| {
        p.len() == 2
            && p.bytes().all(|b| b.is_ascii_digit())
            && p.parse::<u32>().is_ok_and(|n| n <= max)
    };
    let ok = parts.len() == 3
        && two(parts[0], 23)
        && two(parts[1], 59)
        && two(parts[2], 59)
        && frac.is_none_or(|f| (1..=3).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()));
    if !ok {
        return Err(MESSAGE.into());
    }
    let ms = format!("{:0<3}", frac.unwrap_or(""));
    Ok(StoredValue::Text(format!("{hms}.{ms}")))
}

/// How a media value's item names its file: as a relation entry names its target
/// ([`relation_key`], [`relation_ref`]), Strapi's one `mapRelation` reading both.
fn file_ref(v: &Value) -> Option<TargetKey> {
    match v {
        Value::Object(_) => relation_ref(v).map(|entry| entry.key),
        _ => relation_key(v),
    }
}

/// Whether a media value uses the relation syntax's `connect` or `disconnect` (and no
/// `set`).
fn is_media_connect(v: &Value) -> bool {
    matches!(v, Value::Object(o) if !o.contains_key("set")
        && !o.contains_key("id")
        && !o.contains_key("documentId")
        && (o.contains_key("connect") || o.contains_key("disconnect")))
}

/// A media value: an id, a list of ids or `{id}` objects, or the relation syntax's
/// `{"set": [...]}` (what Strapi turns a plain value into).
fn media(v: &Value) -> MediaInput {
    let v = match v {
        Value::Object(o) if !o.contains_key("id") && !o.contains_key("documentId") => {
            o.get("set").unwrap_or(&Value::Null)
        }
        other => other,
    };
    items(v).into_iter().filter_map(file_ref).collect()
}

/// How a shorthand value names a relation entry, as Strapi's `mapRelation` reads it
/// (`transform/relations/utils/map-relation.js`): a number, or a string that JavaScript's
/// `parseInt(value, 10)` reads as one (`isNumeric`), is a row id; any other string is a
/// documentId. The documentIds Strapi makes (cuid2) start with a letter, so they never
/// read as numbers.
fn relation_key(v: &Value) -> Option<TargetKey> {
    match v {
        Value::Number(_) => row_id_key(v),
        Value::String(s) if crate::write::yup::js_parse_int_reads(s) => row_id_key(v),
        Value::String(s) => Some(TargetKey::DocumentId(s.clone())),
        _ => None,
    }
}

/// A value given as a row id (a shorthand number, or a longhand's `id`), as an integer
/// column compares with it: an integer, or a string holding one (spaces around it
/// aside). Any other string or number names no row; other JSON names nothing at all.
pub(crate) fn row_id_key(v: &Value) -> Option<TargetKey> {
    let text = match v {
        Value::Number(n) => match n.as_i64().or_else(|| js_integer(n)) {
            Some(id) => return Some(TargetKey::Id(id)),
            None => n.to_string(),
        },
        Value::String(s) => match s.trim().parse::<i64>() {
            Ok(id) => return Some(TargetKey::Id(id)),
            Err(_) => s.clone(),
        },
        _ => return None,
    };
    Some(TargetKey::NoRow(text))
}

/// A JSON number written as a float that JavaScript reads as an integer (`6.0`, `1e2`),
/// within the range of a row id.
fn js_integer(n: &serde_json::Number) -> Option<i64> {
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0).then_some(f as i64)
}

/// A position's `before` or `after`: Strapi looks a string up as a documentId, whatever
/// it holds.
fn anchor_key(v: &Value) -> Option<TargetKey> {
    match v {
        Value::Number(n) => n.as_i64().map(TargetKey::Id),
        Value::String(s) => Some(TargetKey::DocumentId(s.clone())),
        _ => None,
    }
}

fn relation_ref(v: &Value) -> Option<RelationRef> {
    match v {
        Value::Object(o) => {
            // A truthy `documentId` wins over `id`, as in Strapi's transform.
            let document_id = match o.get("documentId") {
                Some(Value::String(d)) if !d.is_empty() => Some(TargetKey::DocumentId(d.clone())),
                Some(Value::Number(n)) => Some(TargetKey::DocumentId(n.to_string())),
                _ => None,
            };
            let key = document_id.or_else(|| o.get("id").and_then(row_id_key))?;
            let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
            let position = o.get("position").and_then(|p| {
                let p = p.as_object()?;
                if let Some(k) = p.get("before").and_then(anchor_key) {
                    Some(Position::Before(k))
                } else if let Some(k) = p.get("after").and_then(anchor_key) {
                    Some(Position::After(k))
                } else if p.get("start").and_then(Value::as_bool) == Some(true) {
                    Some(Position::Start)
                } else if p.get("end").and_then(Value::as_bool) == Some(true) {
                    Some(Position::End)
                } else {
                    None
                }
            });
            Some(RelationRef {
                key,
                locale: text("locale"),
                status: text("status"),
                position,
                position_given: o.get("position").and_then(Value::as_object).cloned(),
            })
        }
        other => relation_key(other).map(|key| RelationRef {
            key,
            locale: None,
            status: None,
            position: None,
            position_given: None,
        }),
    }
}

fn relation_list(v: &Value) -> Vec<RelationRef> {
    items(v).into_iter().filter_map(relation_ref).collect()
}

/// The entries of a relation change that a write looks up: a `set` (or shorthand) of a
/// to-one keeps its last entry (`xto-one.js`), a change its `connect` (disconnecting what
/// does not exist is no error).
pub(crate) fn written_entries(to_many: bool, change: &RelationInput) -> &[RelationRef] {
    match change {
        RelationInput::Set { entries, .. } if to_many => entries,
        RelationInput::Set { entries, .. } => entries
            .get(entries.len().saturating_sub(1)..)
            .unwrap_or(entries),
        RelationInput::Change { connect, .. } => connect,
    }
}

/// A to-one relation's value as Strapi's `normalizeXToOneRelationValue` leaves it: a
/// list, or a `set` list, of several entries keeps the last.
pub(crate) fn last_of_to_one(v: &Value) -> Value {
    let last = |items: &Vec<Value>| Value::Array(items.last().cloned().into_iter().collect());
    match v {
        Value::Array(items) if items.len() > 1 => last(items),
        Value::Object(o) => match o.get("set") {
            Some(Value::Array(items)) if items.len() > 1 => {
                let mut o = o.clone();
                o.insert("set".into(), last(items));
                Value::Object(o)
            }
            _ => v.clone(),
        },
        _ => v.clone(),
    }
}

/// A relation value as Strapi's `mapRelation` hands it on to the entity validator
/// (`transform/relations/utils/map-relation.js`), which shows it in some errors:
/// shorthands and longhand entries wrapped in `{"set": [...]}`, `set`, `connect` and
/// `disconnect` made lists, numbers and numeric strings as `{"id": value}`, and each
/// documentId as `{"id": row}` for the rows `rows` finds.
pub(crate) fn mapped_relation(v: &Value, rows: &mut dyn FnMut(&str) -> Vec<i64>) -> Value {
    let set = |entries: Vec<Value>| serde_json::json!({ "set": entries });
    match v {
        Value::Null => Value::Null,
        Value::Array(_) => set(mapped_entries(v, rows)),
        Value::Object(o) if o.contains_key("id") || o.contains_key("documentId") => {
            set(mapped_entries(v, rows))
        }
        Value::Object(o) => {
            let mut o = o.clone();
            for key in ["set", "disconnect", "connect"] {
                if let Some(list) = o.get(key).filter(|l| js_truthy(l)) {
                    let entries = mapped_entries(list, rows);
                    o.insert(key.into(), Value::Array(entries));
                }
            }
            Value::Object(o)
        }
        Value::String(_) | Value::Number(_) => set(mapped_entries(v, rows)),
        other => other.clone(),
    }
}

/// The entries [`mapped_relation`] makes of one value, flattened, falsy ones left out.
fn mapped_entries(v: &Value, rows: &mut dyn FnMut(&str) -> Vec<i64>) -> Vec<Value> {
    let as_rows = |ids: Vec<i64>| ids.into_iter().map(|id| serde_json::json!({ "id": id }));
    match v {
        Value::Array(items) => items
            .iter()
            .flat_map(|item| mapped_entries(item, rows))
            .filter(js_truthy)
            .collect(),
        Value::Object(o) => match o.get("documentId") {
            Some(Value::String(d)) if !d.is_empty() => as_rows(rows(d)).collect(),
            _ => vec![v.clone()],
        },
        Value::Number(_) => vec![serde_json::json!({ "id": v })],
        Value::String(s) if crate::write::yup::js_parse_int_reads(s) => {
            vec![serde_json::json!({ "id": v })]
        }
        // An empty documentId is handed on as it is.
        Value::String(s) if s.is_empty() => vec![serde_json::json!({ "documentId": "" })],
        Value::String(s) => as_rows(rows(s)).collect(),
        other => vec![other.clone()],
    }
}

/// Whether a relation value holds an entry that Strapi's relations check cannot read an
/// id from (`buildRelationsStore` takes `connect`, else `set`, else the shorthand): an
/// object with neither an `id` nor a documentId (`{"locale": "fr"}`, `{"documentId": ""}`)
/// or an empty string. Its count query then fails, and the check says `Invalid
/// relations`.
fn names_unreadable_entry(v: &Value) -> bool {
    let unreadable = |item: &Value| match item {
        Value::Object(o) => {
            !o.contains_key("id")
                && !matches!(o.get("documentId"), Some(Value::String(d)) if !d.is_empty())
        }
        Value::String(s) => s.is_empty(),
        _ => false,
    };
    match v {
        Value::Array(list) => list.iter().any(unreadable),
        Value::Object(o) if o.contains_key("id") || o.contains_key("documentId") => unreadable(v),
        Value::Object(o) => {
            let list = [o.get("connect"), o.get("set")]
                .into_iter()
                .flatten()
                .find(|l| !l.is_null());
            list.is_some_and(|l| items(l).into_iter().any(unreadable))
        }
        other => unreadable(other),
    }
}

/// A relation value as Strapi's `mapRelation` and entity manager (`toAssocs`) read it: an
/// object without `id` or `documentId` is a `set` when its `set` is truthy in JavaScript
/// (`{"set": null, "connect": [...]}` connects), else a change; anything else is the
/// whole list.
fn relation(v: &Value) -> Option<RelationInput> {
    match v {
        Value::Object(o) if !(o.contains_key("documentId") || o.contains_key("id")) => {
            let list = |key: &str| o.get(key).map(relation_list).unwrap_or_default();
            if let Some(set) = o.get("set").filter(|s| js_truthy(s)) {
                let mut beside = list("disconnect");
                beside.extend(list("connect"));
                return Some(RelationInput::Set {
                    entries: relation_list(set),
                    beside,
                });
            }
            Some(RelationInput::Change {
                connect: list("connect"),
                disconnect: list("disconnect"),
            })
        }
        other => Some(RelationInput::Set {
            entries: relation_list(other),
            beside: Vec::new(),
        }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    /// What pass 2 refuses of `data`, written to `uid` of `model` as a published version.
    fn refused(model: &Model, uid: &str, data: Value, creation: bool) -> Refused {
        let data = data.as_object().unwrap().clone();
        let parse = DataParse {
            model,
            schema: model.by_uid(uid).unwrap(),
            data: &data,
            shown: &Value::Null,
            phase: Phase::Publish,
            creation,
        };
        *parse.parse_or_refuse().err().unwrap()
    }

    #[test]
    fn a_components_date_fails_before_the_entrys_own() {
        // Strapi's entity manager makes the components (nested ones first) before it
        // converts the entry's row, and throws the first date it cannot read.
        let files = [
            (
                "api/event/content-types/event/schema.json",
                r#"{"kind":"collectionType","collectionName":"events",
                "info":{"singularName":"event","pluralName":"events","displayName":"Event"},
                "attributes":{"at":{"type":"datetime"},"day":{"type":"date"},
                "steps":{"type":"component","repeatable":true,"component":"plan.step"}}}"#,
            ),
            (
                "components/plan/step.json",
                r#"{"collectionName":"components_plan_steps","info":{"displayName":"step"},
                "attributes":{"on":{"type":"date"},
                "inner":{"type":"component","repeatable":false,"component":"plan.inner"}}}"#,
            ),
            (
                "components/plan/inner.json",
                r#"{"collectionName":"components_plan_inners","info":{"displayName":"inner"},
                "attributes":{"time":{"type":"time"}}}"#,
            ),
        ];
        let model = crate::schema::load_embedded(&files, &Default::default()).unwrap();
        let date_of = |data: Value| {
            let refused = refused(&model, "api::event.event", data, true);
            (refused.date.unwrap(), refused.date_in_component)
        };
        let (first, in_component) = date_of(json!({
            "at": {}, "day": "2024-13-01",
            "steps": [{"on": "2024-01-01"}, {"on": "x", "inner": {"time": "25:00"}}]
        }));
        assert!(in_component);
        // The second step's inner component, made before the step's own row.
        assert_eq!(first, time(&json!("25:00")).unwrap_err());
        let (first, in_component) = date_of(json!({"day": "x", "at": "y"}));
        assert!(!in_component);
        // The entry's own values in schema order: `at` before `day`.
        assert_eq!(first, datetime(&json!("y")).unwrap_err());
    }

    #[test]
    fn a_lists_count_error_shows_its_items_as_yup_cast_them() {
        // The oracle, on Strapi's `getstarted` example (`address.repeat_req_min`, items of
        // `blog.test-como` whose `name` defaults to "toto"): a POST of `[{}]` fails `min`
        // with the value `[{"name": "toto"}]`. Items are cast by their component's
        // schema: defaults on a creation, numbers and booleans of an enumeration as
        // text, keys that are no attribute kept; strings stay as given.
        let files = [
            (
                "api/form/content-types/form/schema.json",
                r#"{"kind":"collectionType","collectionName":"forms",
                "info":{"singularName":"form","pluralName":"forms","displayName":"Form"},
                "attributes":{"items":{"type":"component","repeatable":true,"component":"f.item","min":3},
                "zone":{"type":"dynamiczone","components":["f.item"],"max":1}}}"#,
            ),
            (
                "components/f/item.json",
                r#"{"collectionName":"components_f_items","info":{"displayName":"item"},
                "attributes":{"name":{"type":"string","default":"toto"},
                "kind":{"type":"enumeration","enum":["1","b"]},
                "more":{"type":"component","repeatable":true,"component":"f.leaf"}}}"#,
            ),
            (
                "components/f/leaf.json",
                r#"{"collectionName":"components_f_leaves","info":{"displayName":"leaf"},
                "attributes":{"on":{"type":"boolean"}}}"#,
            ),
        ];
        let model = crate::schema::load_embedded(&files, &Default::default()).unwrap();
        let shown = |data: Value, creation: bool| -> Vec<Value> {
            let refused = refused(&model, "api::form.form", data, creation);
            refused
                .failures
                .into_iter()
                .map(|f| f.value.unwrap())
                .collect()
        };
        let data = json!({"items": [{}, {"kind": 1, "x": 5, "more": [{"on": "true"}]}],
            "zone": [{"__component": "f.item"}, {"__component": "f.item", "name": "x"}]});
        assert_eq!(
            shown(data.clone(), true),
            [
                json!([{"name": "toto", "more": []},
                    {"name": "toto", "kind": "1", "x": 5, "more": [{"on": true}]}]),
                json!([{"__component": "f.item", "name": "toto", "more": []},
                    {"__component": "f.item", "name": "x", "more": []}]),
            ]
        );
        // An update applies no defaults.
        assert_eq!(
            shown(data, false)[0],
            json!([{}, {"kind": "1", "x": 5, "more": [{"on": true}]}])
        );
    }

    #[test]
    fn emails_are_checked_as_yup_0_32_checks_them() {
        // Each as yup 0.32.9's `string().email()` answers it (asked of the oracle's node).
        let cases = [
            ("a@b", false),
            ("a@b.co", true),
            ("a.b@example.com", true),
            (".a@b.co", false),
            ("a..b@x.co", false),
            ("\"quoted\"@example.com", true),
            ("\"a b\"@x.co", true),
            ("a@b.c0", false),
            ("a@1.com", true),
            ("A@EXAMPLE.COM", true),
            ("é@example.com", true),
            ("a@-b.com", false),
            ("a@b-.com", false),
            ("a@b_c.com", true),
            (" a@example.com", false),
            ("a@example.com ", false),
            ("a@b.co.", false),
            ("a@ex..com", false),
            ("a@é.com", true),
            ("user+tag@x.io", true),
            ("a@b.c", true),
            ("a@b.c-d", true),
            ("a@b.c~d", true),
            ("x@y.z1a", true),
            ("\"a\\\"b\"@x.co", true),
            ("😀@x.co", false),
            ("a@x.😀", false),
        ];
        for (email, valid) in cases {
            assert_eq!(is_email(email), valid, "{email}");
        }
    }

    #[test]
    fn times_take_seconds_and_up_to_three_fraction_digits() {
        assert_eq!(
            time(&json!("10:30:00")).unwrap(),
            StoredValue::Text("10:30:00.000".into())
        );
        assert_eq!(
            time(&json!("10:30:00.5")).unwrap(),
            StoredValue::Text("10:30:00.500".into())
        );
        assert!(time(&json!("10:30")).is_err());
        assert!(time(&json!("25:61:00")).is_err());
    }

    #[test]
    fn date_times_are_those_a_javascript_date_holds() {
        let max = JS_DATE_MAX_MS;
        assert_eq!(datetime(&json!(max)).unwrap(), StoredValue::Timestamp(max));
        assert_eq!(
            datetime(&json!(-max)).unwrap(),
            StoredValue::Timestamp(-max)
        );
        assert!(datetime(&json!(max + 1)).is_err());
        assert!(datetime(&json!(1e20)).is_err());
        assert!(datetime(&json!("100000000000000000")).is_err());
        assert!(datetime(&json!("-9223372036854775808")).is_err());
    }

    #[test]
    fn relation_values_are_handed_on_as_strapis_transform_hands_them() {
        let mut rows = |d: &str| if d == "tag1" { vec![11] } else { Vec::new() };
        let mapped = |v: Value, rows: &mut dyn FnMut(&str) -> Vec<i64>| mapped_relation(&v, rows);
        assert_eq!(
            mapped(json!(["3", 4, "tag1"]), &mut rows),
            json!({"set": [{"id": "3"}, {"id": 4}, {"id": 11}]})
        );
        assert_eq!(
            mapped(json!(""), &mut rows),
            json!({"set": [{"documentId": ""}]})
        );
        assert_eq!(
            mapped(json!({"connect": ["tag1"], "disconnect": 5}), &mut rows),
            json!({"connect": [{"id": 11}], "disconnect": [{"id": 5}]})
        );
        assert_eq!(mapped(json!(null), &mut rows), json!(null));
    }

    #[test]
    fn numeric_strings_name_rows_and_others_documents() {
        assert_eq!(relation_key(&json!("12")), Some(TargetKey::Id(12)));
        assert_eq!(relation_key(&json!(" 12 ")), Some(TargetKey::Id(12)));
        assert_eq!(
            relation_key(&json!("12abc")),
            Some(TargetKey::NoRow("12abc".into()))
        );
        assert_eq!(
            relation_key(&json!(1.5)),
            Some(TargetKey::NoRow("1.5".into()))
        );
        assert_eq!(
            relation_key(&json!("tag000000000000000000001")),
            Some(TargetKey::DocumentId("tag000000000000000000001".into()))
        );
        assert!(names_unreadable_entry(
            &json!({"connect": [{"locale": "en"}]})
        ));
        assert!(names_unreadable_entry(&json!("")));
        assert!(!names_unreadable_entry(
            &json!({"connect": [{"id": 3}], "set": [{}]})
        ));
        assert!(!names_unreadable_entry(&json!([{"documentId": "a"}, "4"])));
    }

    #[test]
    fn files_are_named_as_relation_entries_are() {
        assert_eq!(file_ref(&json!(7)), Some(TargetKey::Id(7)));
        assert_eq!(file_ref(&json!("7")), Some(TargetKey::Id(7)));
        assert_eq!(
            file_ref(&json!("12abc")),
            Some(TargetKey::NoRow("12abc".into()))
        );
        assert_eq!(file_ref(&json!({"id": "3"})), Some(TargetKey::Id(3)));
        // A longhand's documentId is a documentId, whatever it holds.
        assert_eq!(
            file_ref(&json!({"documentId": "5", "id": 3})),
            Some(TargetKey::DocumentId("5".into()))
        );
        assert_eq!(
            media(&json!({"set": ["file000000000000000000001", 2]})),
            vec![
                TargetKey::DocumentId("file000000000000000000001".into()),
                TargetKey::Id(2)
            ]
        );
    }

    #[test]
    fn a_truthy_set_wins_and_keeps_the_others_for_their_check() {
        let doc = |d: &str| TargetKey::DocumentId(d.into());
        let keys = |l: &[RelationRef]| l.iter().map(|e| e.key.clone()).collect::<Vec<_>>();
        let Some(RelationInput::Set { entries, beside }) =
            relation(&json!({"connect": ["c"], "set": ["s"], "disconnect": ["d"]}))
        else {
            panic!("a set");
        };
        assert_eq!(keys(&entries), vec![doc("s")]);
        assert_eq!(keys(&beside), vec![doc("d"), doc("c")]);
        // `toAssocs` reads `data?.set`: an empty list is truthy, null is not.
        assert!(matches!(
            relation(&json!({"set": [], "connect": ["c"]})),
            Some(RelationInput::Set { entries, .. }) if entries.is_empty()
        ));
        let Some(RelationInput::Change { connect, .. }) =
            relation(&json!({"set": null, "connect": ["c"]}))
        else {
            panic!("a change");
        };
        assert_eq!(keys(&connect), vec![doc("c")]);
    }

    #[test]
    fn patterns_are_shown_as_javascript_writes_a_regexp() {
        // `String(new RegExp(p))` in Node 20, between the slashes.
        for (pattern, shown) in [
            ("^https://", r"^https:\/\/"),
            (r"a\/b", r"a\/b"),
            ("[/]x", "[/]x"),
            ("a\nb", r"a\nb"),
            (r"\\/", r"\\\/"),
            ("x/y/z", r"x\/y\/z"),
            ("[^/]+/", r"[^/]+\/"),
        ] {
            assert_eq!(js_regex_source(pattern), shown, "{pattern}");
        }
    }

    #[test]
    fn emails_follow_yups_pattern() {
        assert!(is_email("editor@example.com"));
        assert!(!is_email("not-an-email"));
        assert!(!is_email("x"));
        assert!(!is_email("a@-b.com"));
    }

    /// A model of one collection type `singular` whose only attribute is a zone `blocks`
    /// of `components` (each a uid and its attributes' JSON), listed in that order.
    fn zone_model(singular: &str, components: &[(&str, &str)]) -> Model {
        let members: Vec<&str> = components.iter().map(|(uid, _)| *uid).collect();
        let mut files = vec![(
            format!("api/{singular}/content-types/{singular}/schema.json"),
            format!(
                r#"{{"kind":"collectionType","collectionName":"{singular}s",
                "info":{{"singularName":"{singular}","pluralName":"{singular}s","displayName":"{singular}"}},
                "attributes":{{"blocks":{{"type":"dynamiczone","components":{}}}}}}}"#,
                json!(members)
            ),
        )];
        for (uid, attributes) in components {
            let (category, name) = uid.split_once('.').unwrap();
            files.push((
                format!("components/{category}/{name}.json"),
                format!(
                    r#"{{"collectionName":"components_{category}_{name}s",
                    "info":{{"displayName":"{name}"}},"attributes":{attributes}}}"#
                ),
            ));
        }
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        crate::schema::load_embedded(&files, &Default::default()).unwrap()
    }

    #[test]
    fn a_zone_items_errors_follow_its_own_components_attribute_order() {
        // The oracle, on FoodAdvisor's `page.blocks` (`blocks.faq` lists `title` before
        // `theme`, another of the zone's components `theme` first): yup sorts the item's
        // errors by the keys of the component its `__component` names.
        let model = zone_model(
            "page",
            &[
                (
                    "z.cta",
                    r#"{"theme":{"type":"enumeration","enum":["a","b"]},"title":{"type":"string"}}"#,
                ),
                (
                    "z.faq",
                    r#"{"title":{"type":"string"},"theme":{"type":"enumeration","enum":["a","b"]}}"#,
                ),
            ],
        );
        let paths = |component: &str| -> Vec<String> {
            let data = json!({"blocks": [{"__component": component, "title": true, "theme": [1]}]});
            refused(&model, "api::page.page", data, true)
                .failures
                .into_iter()
                .map(|f| f.path[2].clone())
                .collect()
        };
        assert_eq!(paths("z.faq"), ["title", "theme", "theme"]);
        assert_eq!(paths("z.cta"), ["theme", "theme", "title"]);
    }

    #[test]
    fn a_zone_item_finishes_with_the_passing_parts_of_its_failing_lists() {
        // The shape of a POST the oracle answered on FoodAdvisor's `restaurant.blocks`:
        // the first item fails at tick 3 and its `faq` item passes at 8; the third fails
        // inside `buttons` at 7, but the button's `link` passes only at 9, so yup
        // reports the first item first.
        let model = zone_model(
            "place",
            &[
                (
                    "z.faq",
                    r#"{"title":{"type":"string"},
                    "faq":{"type":"component","repeatable":true,"component":"z.qa"}}"#,
                ),
                (
                    "z.qa",
                    r#"{"question":{"type":"string"},"answer":{"type":"text"}}"#,
                ),
                (
                    "z.cta",
                    r#"{"title":{"type":"string"},
                    "buttons":{"type":"component","repeatable":true,"component":"z.button"}}"#,
                ),
                (
                    "z.button",
                    r#"{"theme":{"type":"enumeration","enum":["a","b"],"required":true},
                    "link":{"type":"component","repeatable":false,"component":"z.link"}}"#,
                ),
                (
                    "z.link",
                    r#"{"href":{"type":"string","required":true},"isExternal":{"type":"boolean"}}"#,
                ),
            ],
        );
        let data = json!({"blocks": [
            {"__component": "z.faq", "title": 1.5, "faq": [{"question": "q", "answer": "a"}]},
            {"__component": "z.cta"},
            {"__component": "z.cta", "buttons": [{"theme": {}, "link": {"href": "h"}}]}
        ]});
        let items: Vec<String> = refused(&model, "api::place.place", data, true)
            .failures
            .into_iter()
            .map(|f| f.path[1].clone())
            .collect();
        assert_eq!(items, ["0", "2", "2"]);
    }
}
