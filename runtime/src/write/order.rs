//! The order of a validation's errors as Strapi reports them: yup 0.32 validating with
//! `abortEarly: false` ([`in_yup_order`]).
//!
//! yup runs every check as a promise, so its errors come in the order the checks
//! *finish*, sorted again at each object by key. This module counts when each check
//! finishes, in rounds of promise jobs ("ticks"), from the rules Strapi's
//! `entity-validator` builds for each attribute (`validators.js`, `index.js`):
//! - a field's type check (and an enumeration's or `__component`'s list of values) takes
//!   one tick; its other tests (`required`, `min`, `max`, `integer`, `unique`, a
//!   pattern) one more, run together. A string always has a test: its default `max(255)`;
//!   integers (`integer()`), floats and decimals (finite), bigintegers and uids (their
//!   `unique`) too;
//! - an object (a component, a zone item) or a list runs its own checks before its
//!   fields or items;
//! - a `unique` test of a value queries the database, so it finishes after every check
//!   that does not ([`LATE`]).

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::error::FieldError;
use super::yup::dotted;
use crate::schema::{Attribute, AttributeKind, Model, ScalarType, Schema, SchemaId};

/// When a check that queries the database finishes: after all others.
const LATE: u64 = 1 << 20;

/// The ticks a non-empty `blocks` list takes to pass: the list, a paragraph node, its
/// `children` list and a text node with its tested `text` (`blocks-validator.js`).
const BLOCKS: u64 = 7;

/// The data a validation checked, which decides when the checks that pass finish (a
/// list's items are reported in the order they finish).
#[derive(Debug, Clone, Copy)]
pub struct Validated<'a> {
    /// The request's `data`.
    pub data: &'a Map<String, Value>,
    /// Checked as a draft (Strapi's `isDraft`): minimums, patterns, email and uid
    /// patterns and `required` are not tested.
    pub draft: bool,
}

/// Sorts the failures of one validation of `schema`'s data as yup reports them.
///
/// At each object (the document, a component) yup sorts its fields' errors by the first
/// of the object's keys, in schema order, that the error's path text *contains*
/// (`sortByKeyOrder`: `parts` sorts with `part` when `part` comes first). At a tie they
/// stay in the order they finished in: yup runs a field's type check one step before
/// its other tests, and a component's fields only after its own checks, so a type
/// error finishes first and a deeper one later ([`field_time`]); fields that finish
/// together keep yup's run order, last key first. A list's items are not sorted: each
/// item's errors come when its last check finishes, failing or passing (so an item whose
/// fields all fail their type checks comes before one that waits for a `min` test), items
/// that finish together in list order. Without the data ([`Validated`]), items stay in
/// list order. An attribute's own error follows those of its items. A failure with no
/// path (the relation checks' `Invalid relations`) leaves the list as it is.
pub fn in_yup_order(
    model: &Model,
    schema: &Schema,
    failures: &mut [FieldError],
    validated: Option<Validated<'_>>,
) {
    if failures.len() < 2 || failures.iter().any(|f| f.path.is_empty()) {
        return;
    }
    let timing = validated.map(|validated| Timing::new(model, failures, validated));
    let mut keys: Vec<(Vec<SortPart>, usize)> = failures
        .iter()
        .enumerate()
        .map(|(i, f)| (yup_sort_key(model, schema, f, timing.as_ref()), i))
        .collect();
    let fields = field_times(&keys, failures);
    let items = timing.as_ref().map(|t| t.item_times(&keys, failures));
    for (key, i) in &mut keys {
        for part in key.iter_mut() {
            match part {
                SortPart::Field { depth, time, .. } => {
                    *time = fields[&(*depth, &failures[*i].path[..=*depth])];
                }
                SortPart::Item { depth, time, .. } => {
                    *time = items
                        .as_ref()
                        .map_or(0, |t| t[&failures[*i].path[..=*depth]]);
                }
                SortPart::Own => {}
            }
        }
    }
    keys.sort();
    let sorted: Vec<FieldError> = keys.iter().map(|(_, i)| failures[*i].clone()).collect();
    failures.clone_from_slice(&sorted);
}

/// A field's errors finish when the last of its parts does: by (depth, path to the
/// field), the latest of its failures' times.
fn field_times<'f>(
    keys: &[(Vec<SortPart>, usize)],
    failures: &'f [FieldError],
) -> HashMap<(usize, &'f [String]), u64> {
    let mut finished: HashMap<(usize, &[String]), u64> = HashMap::new();
    for (key, i) in keys {
        for part in key {
            if let SortPart::Field { depth, time, .. } = part {
                let slot = finished
                    .entry((*depth, &failures[*i].path[..=*depth]))
                    .or_default();
                *slot = (*slot).max(*time);
            }
        }
    }
    finished
}

/// When yup finishes checking the parts of the validated data, failing and passing, in
/// ticks from a part's start (its levels cost what [`pass_time`] counts: a list's or a
/// list item's own checks two ticks, a single component's one, or two when required; a
/// zone item's `__component` two).
///
/// Built once per validation: the failures are indexed by every prefix of their paths, and
/// a field's time is kept once computed, so sorting many failures of a long list stays
/// linear in the data (a list of 5,000 failing items, `write_hostile`).
struct Timing<'a> {
    model: &'a Model,
    validated: Validated<'a>,
    /// The failures at and below each path that has any.
    places: HashMap<&'a [String], Place>,
    /// The fields' times computed so far ([`Self::field`]), by path.
    fields_known: RefCell<HashMap<Vec<String>, u64>>,
}

/// The failures at and below one path ([`Timing::places`]).
#[derive(Debug, Default, Clone, Copy)]
struct Place {
    /// When the failures of the path itself finish (0: it has none).
    own: u64,
    /// When the latest failure strictly below it finishes, from the path's start, two
    /// ticks a level (0: none).
    below: u64,
}

impl<'a> Timing<'a> {
    fn new(model: &'a Model, failures: &'a [FieldError], validated: Validated<'a>) -> Self {
        let mut places: HashMap<&[String], Place> = HashMap::new();
        let mut repeated = RepeatedInList::new(validated.data);
        for f in failures {
            let own = own_time_in(&mut repeated, f);
            let at = places.entry(&f.path[..]).or_default();
            at.own = at.own.max(own);
            for depth in 1..f.path.len() {
                let above = places.entry(&f.path[..depth]).or_default();
                above.below = above.below.max(field_time_with(f, depth - 1, own));
            }
        }
        Timing {
            model,
            validated,
            places,
            fields_known: RefCell::default(),
        }
    }

    /// [`Self::attribute`] of the field at `path`, computed once.
    fn field(&self, attr: &Attribute, path: &[String]) -> u64 {
        if let Some(known) = self.fields_known.borrow().get(path) {
            return *known;
        }
        let value = value_at(self.validated.data, path);
        let time = self.attribute(attr, value, &mut path.to_vec());
        self.fields_known.borrow_mut().insert(path.to_vec(), time);
        time
    }

    /// When each list item with failures finishes, by its path (`["parts", "2"]`): its
    /// last check, failing or passing ([`Self::item`]).
    fn item_times(
        &self,
        keys: &[(Vec<SortPart>, usize)],
        failures: &'a [FieldError],
    ) -> HashMap<&'a [String], u64> {
        let mut times = HashMap::new();
        for (key, i) in keys {
            let f = &failures[*i];
            for part in key {
                if let SortPart::Item {
                    depth, component, ..
                } = *part
                {
                    let prefix = &f.path[..=depth];
                    times.entry(prefix).or_insert_with(|| {
                        let item = value_at(self.validated.data, prefix);
                        self.item(component, item, &mut prefix.to_vec())
                    });
                }
            }
        }
        times
    }

    /// When the checks of `attr`'s `value`, at `path`, finish, from the attribute's start:
    /// what passes when it passes ([`pass_time`]), a failure when its check fails, a
    /// component or list when the last of its parts does.
    fn attribute(&self, attr: &Attribute, value: Option<&Value>, path: &mut Vec<String>) -> u64 {
        let Some(place) = self.places.get(path.as_slice()).copied() else {
            return pass_time(self.model, attr, value, self.validated.draft);
        };
        let own = place.own;
        let parts = match (&attr.kind, value) {
            (AttributeKind::Component(c), Some(Value::Object(o))) if !c.repeatable => {
                let required = attr.required && !self.validated.draft;
                1 + u64::from(required) + self.fields(self.model.schema(c.component), o, path)
            }
            (AttributeKind::Component(c), Some(Value::Array(items))) if c.repeatable => {
                2 + self.items(Some(c.component), items, path)
            }
            (AttributeKind::DynamicZone(_), Some(Value::Array(items))) => {
                2 + self.items(None, items, path)
            }
            // A relation's or a media's list: the failures below it, two ticks a level.
            _ => place.below,
        };
        own.max(parts)
    }

    /// The latest of a list's items, at `path`.
    fn items(&self, component: Option<SchemaId>, items: &[Value], path: &mut Vec<String>) -> u64 {
        let mut latest = 0;
        for (index, item) in items.iter().enumerate() {
            path.push(index.to_string());
            latest = latest.max(self.item(component, Some(item), path));
            path.pop();
        }
        latest
    }

    /// When an item of a list, at `path`, finishes: its own checks (two ticks: its type,
    /// then `notNull`), then its fields. A zone's item names its component, whose
    /// `__component` is a tested field (two ticks); one naming none, or an unknown one,
    /// is checked for that field only. An item that is not an object fails its type
    /// check at tick one.
    fn item(
        &self,
        component: Option<SchemaId>,
        item: Option<&Value>,
        path: &mut Vec<String>,
    ) -> u64 {
        let own = self.own_failures(path);
        let Some(Value::Object(o)) = item else {
            return own;
        };
        let fields = match component {
            Some(id) => self.fields(self.model.schema(id), o, path),
            None => {
                path.push("__component".to_owned());
                // Its type and `oneOf` at tick one (a failure stops there), `required`
                // at two.
                let named = match self.own_failures(path) {
                    0 => 2,
                    failed => failed,
                };
                path.pop();
                match named_component(self.model, item) {
                    Some(s) => named.max(self.fields(s, o, path)),
                    None => named,
                }
            }
        };
        own.max(2 + fields)
    }

    /// The latest of an object's fields, at `path`.
    fn fields(&self, schema: &Schema, o: &Map<String, Value>, path: &mut Vec<String>) -> u64 {
        let mut latest = 0;
        for attr in &schema.attributes {
            path.push(attr.name.clone());
            latest = latest.max(self.attribute(attr, o.get(&attr.name), path));
            path.pop();
        }
        latest
    }

    /// When the failures of the part at `path` itself (not of its parts) finish; 0 when
    /// it has none.
    fn own_failures(&self, path: &[String]) -> u64 {
        self.places.get(path).map_or(0, |p| p.own)
    }
}

/// When a failure's own check finishes ([`own_time`]); a `unique` test of a value that
/// another item of its list repeats (in `data`) finishes without querying.
fn own_time_in<'a>(repeated: &mut RepeatedInList<'a>, f: &'a FieldError) -> u64 {
    match f.message == NOT_UNIQUE && repeated.holds(f) {
        true => REPEATED,
        false => own_time(f),
    }
}

/// The component a zone item's `__component` names, if the model has it.
fn named_component<'m>(model: &'m Model, item: Option<&Value>) -> Option<&'m Schema> {
    item?
        .get("__component")
        .and_then(Value::as_str)
        .and_then(|uid| model.by_uid(uid))
}

/// The value at `path` in `data` (object keys and list indexes).
fn value_at<'v>(data: &'v Map<String, Value>, path: &[String]) -> Option<&'v Value> {
    let (first, rest) = path.split_first()?;
    let mut here = data.get(first)?;
    for step in rest {
        here = match here {
            Value::Object(o) => o.get(step)?,
            Value::Array(a) => a.get(step.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(here)
}

/// When the checks of an attribute whose `value` passes them finish, in ticks from the
/// attribute's start.
fn pass_time(model: &Model, attr: &Attribute, value: Option<&Value>, draft: bool) -> u64 {
    let required = attr.required && !draft;
    match &attr.kind {
        AttributeKind::Scalar(ty) => scalar_pass_time(attr, ty, value, draft),
        // `mixed()`, and a list of `mixed()` items for a relation given as a list.
        AttributeKind::Media(_) => 1,
        AttributeKind::Relation(_) => match value {
            Some(Value::Array(items)) if !items.is_empty() => 2,
            _ => 1,
        },
        AttributeKind::Component(c) if c.repeatable => {
            let items = list_items(value).map(|item| match item {
                Value::Object(o) => {
                    2 + fields_pass_time(model, model.schema(c.component), o, draft)
                }
                _ => 1,
            });
            2 + items.max().unwrap_or(0)
        }
        AttributeKind::Component(c) => {
            let own = 1 + u64::from(required);
            match value {
                Some(Value::Object(o)) => {
                    own + fields_pass_time(model, model.schema(c.component), o, draft)
                }
                _ => own,
            }
        }
        AttributeKind::DynamicZone(_) => {
            let items =
                list_items(value).map(|item| match (item, named_component(model, Some(item))) {
                    (Value::Object(o), Some(cs)) => {
                        2 + fields_pass_time(model, cs, o, draft).max(2)
                    }
                    (Value::Object(_), None) => 2 + 2,
                    _ => 1,
                });
            2 + items.max().unwrap_or(0)
        }
    }
}

fn list_items(value: Option<&Value>) -> impl Iterator<Item = &Value> {
    value.and_then(Value::as_array).into_iter().flatten()
}

/// When the last field of an object finishes, every field passing.
fn fields_pass_time(model: &Model, schema: &Schema, o: &Map<String, Value>, draft: bool) -> u64 {
    schema
        .attributes
        .iter()
        .map(|a| pass_time(model, a, o.get(&a.name), draft))
        .max()
        .unwrap_or(0)
}

/// A scalar's checks: its type (one tick), then its tests if it has any (Strapi's
/// `Validators` and `addRequiredValidation`).
fn scalar_pass_time(attr: &Attribute, ty: &ScalarType, value: Option<&Value>, draft: bool) -> u64 {
    let unique = attr.unique || matches!(ty, ScalarType::Uid { .. });
    let blank =
        matches!(value, None | Some(Value::Null)) || value.and_then(Value::as_str) == Some("");
    // A draft's `unique` test returns before it queries anything.
    if unique && !blank && !draft {
        return LATE;
    }
    if let (ScalarType::Blocks, Some(Value::Array(nodes))) = (ty, value)
        && !nodes.is_empty()
    {
        return BLOCKS;
    }
    let c = &attr.constraints;
    let string_tests =
        c.max_length.is_some() || (!draft && (c.min_length.is_some() || c.regex.is_some()));
    let tested = match ty {
        ScalarType::String
        | ScalarType::Integer
        | ScalarType::BigInteger
        | ScalarType::Float
        | ScalarType::Decimal
        | ScalarType::Uid { .. } => true,
        ScalarType::Text | ScalarType::RichText | ScalarType::Password => string_tests,
        ScalarType::Email => string_tests || !draft,
        ScalarType::Enumeration { .. }
        | ScalarType::Boolean
        | ScalarType::Blocks
        | ScalarType::Date
        | ScalarType::Time
        | ScalarType::DateTime
        | ScalarType::Timestamp
        | ScalarType::Json => false,
    };
    1 + u64::from(tested || unique || (attr.required && !draft))
}

/// One level of a failure's place in yup's order ([`in_yup_order`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum SortPart {
    /// A field of an object: the first key its path contains, when it finished, and
    /// its place in yup's run order (last attribute first). `depth` is its index in
    /// the path.
    Field {
        first: usize,
        time: u64,
        run: std::cmp::Reverse<usize>,
        depth: usize,
    },
    /// An item of a list: when it finished (0 without the data), its index, the place
    /// of the index in the path, and its component (`None` in a zone: the item names
    /// it).
    Item {
        time: u64,
        index: u64,
        depth: usize,
        component: Option<SchemaId>,
    },
    /// The failure is the field's own error: after those of its parts.
    Own,
}

/// Strapi's message for a value that is not unique.
const NOT_UNIQUE: &str = "This attribute must be unique";

/// When a `unique` test of a value repeated in its list fails: the type check's tick,
/// then three, the test (an `async` function) returning the promise of another `async`
/// function, which its own promise adopts (two jobs) before yup's `then` runs.
const REPEATED: u64 = 4;

/// When a failure's own check finishes: a type check or a `oneOf` at the first tick (yup
/// 0.32 runs the type, whitelist and blacklist checks first, its `initialTests`), other
/// tests (`required` among them) at the second, a `unique` test that queried the database
/// last. So a zone item naming an unknown component finishes before one naming none.
fn own_time(f: &FieldError) -> u64 {
    if f.message.contains(" type, but the final value was: ")
        || f.message.contains(" must be one of the following values: ")
    {
        1
    } else if f.message == NOT_UNIQUE {
        LATE
    } else {
        2
    }
}

/// Which `unique` failures in a list's items are values another item of the list holds
/// too, which Strapi finds without querying the database (`validateUniqueFieldWithinComponent`
/// compares the items of the top-level list at the same path; a zone's, those of the same
/// component). Each list and path is counted once, however many of its items fail.
struct RepeatedInList<'a> {
    data: &'a Map<String, Value>,
    /// By list and path in an item: how many items hold each (component, value).
    counts: HashMap<(&'a str, &'a [String]), HashMap<String, usize>>,
}

impl<'a> RepeatedInList<'a> {
    fn new(data: &'a Map<String, Value>) -> Self {
        RepeatedInList {
            data,
            counts: HashMap::new(),
        }
    }

    /// Whether `f`, a failure at `[list, index, rest…]`, is a value repeated in its list.
    fn holds(&mut self, f: &'a FieldError) -> bool {
        let [list, index, rest @ ..] = f.path.as_slice() else {
            return false;
        };
        let (Some(Value::Array(items)), Ok(index), false) =
            (self.data.get(list), index.parse::<usize>(), rest.is_empty())
        else {
            return false;
        };
        let Some(item) = items.get(index) else {
            return false;
        };
        let key = |item: &Value| {
            let value = rest.iter().try_fold(item, |v, k| v.get(k));
            format!("{:?}\u{0}{:?}", item.get("__component"), value)
        };
        let counts = self.counts.entry((list, rest)).or_insert_with(|| {
            let mut counts = HashMap::new();
            for other in items {
                *counts.entry(key(other)).or_default() += 1;
            }
            counts
        });
        counts.get(&key(item)).is_some_and(|n| *n > 1)
    }
}

/// When a failure finishes, in yup's steps from the start of the field at `depth`: its
/// type check takes one, its other tests two, and each object or list it sits in two
/// more (their own checks run before their fields').
fn field_time(f: &FieldError, depth: usize) -> u64 {
    field_time_with(f, depth, own_time(f))
}

/// [`field_time`] for a failure whose own check finishes at `own`.
fn field_time_with(f: &FieldError, depth: usize, own: u64) -> u64 {
    let below = (f.path.len() - 1 - depth) as u64;
    2 * below + own
}

/// A failure's place in yup's order: one part per object field and list item of its
/// path. A zone item's component is the one its `__component` names in the validated
/// data; without the data, the first of the zone's components that has the path's next
/// attribute.
fn yup_sort_key(
    model: &Model,
    schema: &Schema,
    f: &FieldError,
    timing: Option<&Timing<'_>>,
) -> Vec<SortPart> {
    let path = &f.path;
    let mut key = Vec::with_capacity(path.len() + 1);
    let mut level = Some(schema);
    let mut i = 0;
    while let (Some(s), Some(name)) = (level, path.get(i)) {
        let Some(attr) = s
            .attribute_id(name)
            .and_then(|id| s.attributes.get(id.index()))
        else {
            break;
        };
        let text = dotted(&path[..=i]);
        let first = s
            .attributes
            .iter()
            .position(|a| text.contains(a.name.as_str()))
            .unwrap_or(attr.id.index());
        let time = match timing {
            Some(t) => t.field(attr, &path[..=i]),
            None => field_time(f, i),
        };
        key.push(SortPart::Field {
            first,
            time,
            run: std::cmp::Reverse(attr.id.index()),
            depth: i,
        });
        i += 1;
        let item = path.get(i).and_then(|p| p.parse::<u64>().ok());
        level = match &attr.kind {
            AttributeKind::Component(c) => {
                if c.repeatable
                    && let Some(index) = item
                {
                    key.push(SortPart::Item {
                        time: 0,
                        index,
                        depth: i,
                        component: Some(c.component),
                    });
                    i += 1;
                }
                Some(model.schema(c.component))
            }
            AttributeKind::DynamicZone(z) => {
                let Some(index) = item else { break };
                key.push(SortPart::Item {
                    time: 0,
                    index,
                    depth: i,
                    component: None,
                });
                i += 1;
                let item = timing.and_then(|t| value_at(t.validated.data, &path[..i]));
                let named = named_component(model, item).filter(|cs| z.components.contains(&cs.id));
                let next = path.get(i);
                named.or_else(|| {
                    z.components
                        .iter()
                        .map(|u| model.schema(*u))
                        .find(|cs| next.is_some_and(|n| cs.attribute_id(n).is_some()))
                })
            }
            _ => None,
        };
    }
    key.push(SortPart::Own);
    key
}
