//! Typed filters and sort keys: paths from a root type through relations, media and
//! components to a field, and the operators each kind of field allows.
//!
//! A derived type `Article` has a path builder `ArticlePath<R>` with one method per field
//! (`R` is the root type the path starts from). `article::filter()` and `article::sort()`
//! return `ArticlePath<Article>`:
//!
//! * a scalar field gives a [`Scalar`], whose operators depend on the field's kind and
//!   return a [`Filter<R>`](Filter), and whose [`asc`](Scalar::asc)/[`desc`](Scalar::desc)
//!   return a [`Sort<R>`](Sort);
//! * a relation, media or component field gives a [`Rel`], which dereferences to the target
//!   type's path (`article::filter().author().name()`) and has
//!   [`null`](Rel::null)/[`not_null`](Rel::not_null) and [`matches`](Rel::matches)
//!   (several conditions on the same related row);
//! * `localizations` (on localized types) gives a [`Localizations`], whose
//!   [`matches`](Localizations::matches) filters on the other locales of the document;
//! * a dynamic zone gives a [`Zone`], which can be populated but neither filtered nor
//!   sorted on.
//!
//! | kind of field | operators |
//! |---|---|
//! | string, text, richtext, email, uid, enumeration, `documentId`, `locale` | `eq` `ne` `eqi` `nei` `contains` `not_contains` `containsi` `not_containsi` `starts_with` `starts_withi` `ends_with` `ends_withi` `in_` `not_in` |
//! | integer, biginteger, float, decimal, date, time, datetime, timestamp, `id`, `createdAt`, `updatedAt`, `publishedAt` | `eq` `ne` `lt` `lte` `gt` `gte` `between` `in_` `not_in` |
//! | boolean | `eq` `ne` |
//! | json, blocks | — |
//! | every field, relation, media and component | `null` `not_null` |
//!
//! Values are typed by the field: an integer field takes Rust integers, a float or decimal
//! field numbers, a biginteger field integers or [`BigInt`], a boolean field
//! `bool`, date/time/datetime fields their [`Date`]/[`Time`]/
//! [`DateTime`] newtypes or text, an enumeration its generated enum (see
//! [`FilterValue`] for the full list). Pattern operators (`contains`, `eqi`, …) take text.
//!
//! Filters combine with [`Filter::and`], [`Filter::or`], [`Filter::not`], [`Filter::all`]
//! and [`Filter::any`]. Each combinator makes one `$and`/`$or`/`$not` condition, so every
//! filter is exactly what `parse_query` returns for its printed form.
//!
//! Misuse does not compile, and the compiler says which field and which rule:
//!
//! ```text
//! error[E0277]: `$contains` and the other text operators do not apply to `article::views`
//! error[E0277]: `&str` is not a valid value for `article::views`
//! error[E0277]: `article::blocks` is not a scalar field, so it cannot be a sort key
//! ```

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use super::Typed;
use super::value::{BigInt, Date, DateTime, Decimal, Time};
use crate::query::values;
use crate::query::{Condition, Conjunction, Direction, FieldRef, Op, Operand, SortKey, Value};
use crate::schema::{AttrId, AttributeKind, Model, Schema, SchemaId};

// ------------------------------------------------------------------------------ schema refs

/// A schema of a model: what a typed struct stands for at run time.
#[derive(Debug, Clone, Copy)]
pub struct SchemaRef {
    /// The model.
    pub model: &'static Model,
    /// The schema's id in it.
    pub id: SchemaId,
}

impl SchemaRef {
    /// The schema with this uid in `model` (the first schema if there is none, which only
    /// happens when generated code and its embedded schema files disagree).
    pub fn of(model: &'static Model, uid: &str) -> SchemaRef {
        SchemaRef {
            model,
            id: model.by_uid(uid).map(|s| s.id).unwrap_or_default(),
        }
    }

    /// The schema.
    pub fn schema(self) -> &'static Schema {
        self.model.schema(self.id)
    }
}

// ---------------------------------------------------------------------------------- markers

/// A field of a derived type that queries can name. The derives generate one marker type
/// per field (`article::title`, `article::created_at`), so that compile errors name it.
pub trait Marker: 'static {
    /// The name in queries (`title`, `createdAt`).
    const NAME: &'static str;
    /// The attribute's index in its schema (`u32::MAX` for system fields).
    const INDEX: u32;
}

/// A scalar field (or a system field) and the kind of its values.
pub trait ScalarMarker: Marker {
    /// One of the types of [`kind`].
    type Kind;
}

/// The kinds of scalar fields: they decide which operators and which Rust values a field
/// takes (see [`FilterValue`]).
pub mod kind {
    use std::marker::PhantomData;

    /// string, text, richtext, email, uid, `documentId`, `locale`.
    #[derive(Debug)]
    pub enum Text {}
    /// An enumeration, whose values are the generated enum `E`.
    #[derive(Debug)]
    pub struct Enumeration<E>(PhantomData<E>, Never);
    /// integer and `id`.
    #[derive(Debug)]
    pub enum Integer {}
    /// biginteger.
    #[derive(Debug)]
    pub enum BigInteger {}
    /// float.
    #[derive(Debug)]
    pub enum Float {}
    /// decimal.
    #[derive(Debug)]
    pub enum Decimal {}
    /// boolean.
    #[derive(Debug)]
    pub enum Boolean {}
    /// date.
    #[derive(Debug)]
    pub enum Date {}
    /// time.
    #[derive(Debug)]
    pub enum Time {}
    /// datetime, timestamp, `createdAt`, `updatedAt`, `publishedAt`.
    #[derive(Debug)]
    pub enum DateTime {}
    /// json and blocks.
    #[derive(Debug)]
    pub enum Json {}

    /// Keeps [`Enumeration`] uninhabited.
    #[derive(Debug)]
    pub enum Never {}
}

// ------------------------------------------------------------------- capabilities (rules)

/// Fields `$eq` and `$ne` apply to: every scalar but json and blocks.
#[diagnostic::on_unimplemented(
    message = "`$eq` and `$ne` do not apply to `{Self}`",
    label = "`{Self}` holds JSON",
    note = "json and blocks fields can only be tested with `null()` / `not_null()`"
)]
pub trait Equality: ScalarMarker {}

/// Fields `$in` and `$notIn` apply to: every scalar but booleans, json and blocks.
#[diagnostic::on_unimplemented(
    message = "`$in` and `$notIn` do not apply to `{Self}`",
    label = "no lists of values for this field",
    note = "boolean fields take `eq`/`ne`; json and blocks fields only `null()` / `not_null()`"
)]
pub trait Membership: ScalarMarker {}

/// Text fields: `$eqi`, `$nei`, `$contains`, `$startsWith`, `$endsWith` and their kin.
#[diagnostic::on_unimplemented(
    message = "`$contains` and the other text operators do not apply to `{Self}`",
    label = "`{Self}` is not a text field",
    note = "`eqi`, `nei`, `contains`, `not_contains`, `containsi`, `not_containsi`, `starts_with(i)` and `ends_with(i)` apply to string, text, richtext, email, uid and enumeration fields (and `documentId`, `locale`)"
)]
pub trait TextMatch: ScalarMarker {}

/// Ordered fields: `$lt`, `$lte`, `$gt`, `$gte`, `$between`.
#[diagnostic::on_unimplemented(
    message = "`$lt`, `$lte`, `$gt`, `$gte` and `$between` do not apply to `{Self}`",
    label = "`{Self}` is not a number, date or time",
    note = "the order operators apply to integer, biginteger, float, decimal, date, time, datetime and timestamp fields (and `id`, `createdAt`, `updatedAt`, `publishedAt`)"
)]
pub trait Ordered: ScalarMarker {}

/// Never implemented: a sort key ends at a scalar field, not at a relation, media or
/// component.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a relation, media or component, so it cannot be a sort key",
    label = "sort keys end at a scalar field",
    note = "sort by one of its scalar fields, like `article::sort().author().name().asc()`"
)]
pub trait Sortable {}

/// Never implemented: dynamic zones cannot be sorted on.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a dynamic zone, which cannot be sorted on",
    label = "dynamic zones cannot be sorted on",
    note = "sort keys end at a scalar field, possibly through relations, media and components (`article::sort().author().name().asc()`); dynamic zones can neither be sorted on nor sorted through"
)]
pub trait ZoneSort {}

/// Never implemented: filters cannot name a dynamic zone.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a dynamic zone, which filters cannot name",
    label = "dynamic zones cannot be filtered",
    note = "filter on scalar fields, relations, media and components; populate the zone with `on::<Component>(…)` to narrow what it returns"
)]
pub trait ZoneFilter {}

// ---------------------------------------------------------------------------------- values

/// A Rust value for a field of kind `K` (the marker `F` is the field, for error messages).
///
/// | kind | values |
/// |---|---|
/// | [`kind::Text`] | `&str`, `String`, `&String`, `char` |
/// | [`kind::Enumeration<E>`] | `E` (the generated enum; its serde name is sent) |
/// | [`kind::Integer`] | `i8`…`i64`, `u8`…`u64`, `isize`, `usize` |
/// | [`kind::BigInteger`] | the integers, `i128`, `u128`, [`BigInt`] |
/// | [`kind::Float`], [`kind::Decimal`] | the integers, `f32`, `f64`, [`Decimal`] |
/// | [`kind::Boolean`] | `bool` |
/// | [`kind::Date`] | [`Date`], `&str` (`YYYY-MM-DD`) |
/// | [`kind::Time`] | [`Time`], `&str` (`HH:mm:ss.SSS`) |
/// | [`kind::DateTime`] | [`DateTime`], `&str` (ISO 8601), `i64` (epoch milliseconds), [`std::time::SystemTime`] |
///
/// A value is coerced exactly as the HTTP parser coerces its printed form (dates and times
/// are normalised; a text that is not a valid date is sent as it is, and the server answers
/// 400 for it). A NaN float is sent as `NaN`, which matches nothing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid value for `{F}`",
    label = "`{F}` is a field of kind `{K}`",
    note = "a filter value has the Rust type of the field (see `strata::typed::FilterValue` for what each kind of field accepts)"
)]
pub trait FilterValue<K, F> {
    /// The value as the parser would coerce it.
    fn into_value(self) -> Value;
}

/// A text operand of the pattern operators (`contains`, `eqi`, …) of field `F`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not text: the text operators of `{F}` take a string",
    label = "expected `&str`, `String` or `char`"
)]
pub trait TextValue<F> {
    /// The text.
    fn into_text(self) -> String;
}

impl<F: TextMatch> TextValue<F> for &str {
    fn into_text(self) -> String {
        self.to_string()
    }
}
impl<F: TextMatch> TextValue<F> for String {
    fn into_text(self) -> String {
        self
    }
}
impl<F: TextMatch> TextValue<F> for &String {
    fn into_text(self) -> String {
        self.clone()
    }
}
impl<F: TextMatch> TextValue<F> for char {
    fn into_text(self) -> String {
        self.to_string()
    }
}

impl<F> FilterValue<kind::Text, F> for &str {
    fn into_value(self) -> Value {
        Value::Text(self.to_string())
    }
}
impl<F> FilterValue<kind::Text, F> for String {
    fn into_value(self) -> Value {
        Value::Text(self)
    }
}
impl<F> FilterValue<kind::Text, F> for &String {
    fn into_value(self) -> Value {
        Value::Text(self.clone())
    }
}
impl<F> FilterValue<kind::Text, F> for char {
    fn into_value(self) -> Value {
        Value::Text(self.to_string())
    }
}

impl<E: serde::Serialize, F> FilterValue<kind::Enumeration<E>, F> for E {
    fn into_value(self) -> Value {
        Value::Text(match serde_json::to_value(&self) {
            Ok(serde_json::Value::String(s)) => s,
            Ok(other) => other.to_string(),
            Err(_) => String::new(),
        })
    }
}

macro_rules! number_values {
    ($kind:ty: $($t:ty),*) => {$(
        impl<F> FilterValue<$kind, F> for $t {
            fn into_value(self) -> Value {
                #[allow(clippy::cast_lossless, clippy::cast_precision_loss)]
                Value::Number(self as f64)
            }
        }
    )*};
}
number_values!(kind::Integer: i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);
number_values!(kind::Float: i8, i16, i32, i64, u8, u16, u32, u64, isize, usize, f32, f64);
number_values!(kind::Decimal: i8, i16, i32, i64, u8, u16, u32, u64, isize, usize, f32, f64);

fn decimal_value(d: &Decimal) -> Value {
    Value::Number(d.0.as_f64().unwrap_or(f64::NAN))
}
impl<F> FilterValue<kind::Float, F> for Decimal {
    fn into_value(self) -> Value {
        decimal_value(&self)
    }
}
impl<F> FilterValue<kind::Decimal, F> for Decimal {
    fn into_value(self) -> Value {
        decimal_value(&self)
    }
}

macro_rules! bigint_values {
    ($($t:ty),*) => {$(
        impl<F> FilterValue<kind::BigInteger, F> for $t {
            fn into_value(self) -> Value {
                Value::BigInt(self.to_string())
            }
        }
    )*};
}
bigint_values!(
    i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, isize, usize
);
impl<F> FilterValue<kind::BigInteger, F> for BigInt {
    fn into_value(self) -> Value {
        Value::BigInt(values::big_int(self.0.trim()).unwrap_or(self.0))
    }
}

impl<F> FilterValue<kind::Boolean, F> for bool {
    fn into_value(self) -> Value {
        Value::Bool(self)
    }
}

fn date_value(s: &str) -> Value {
    Value::Date(values::date(s).unwrap_or_else(|| s.to_string()))
}
impl<F> FilterValue<kind::Date, F> for Date {
    fn into_value(self) -> Value {
        date_value(&self.0)
    }
}
impl<F> FilterValue<kind::Date, F> for &str {
    fn into_value(self) -> Value {
        date_value(self)
    }
}

fn time_value(s: &str) -> Value {
    Value::Time(values::time(s).unwrap_or_else(|| s.to_string()))
}
impl<F> FilterValue<kind::Time, F> for Time {
    fn into_value(self) -> Value {
        time_value(&self.0)
    }
}
impl<F> FilterValue<kind::Time, F> for &str {
    fn into_value(self) -> Value {
        time_value(self)
    }
}

fn datetime_value(s: &str) -> Value {
    match values::datetime(s) {
        Some(ms) => Value::DateTime(ms),
        None => Value::Text(s.to_string()),
    }
}
impl<F> FilterValue<kind::DateTime, F> for DateTime {
    fn into_value(self) -> Value {
        datetime_value(&self.0)
    }
}
impl<F> FilterValue<kind::DateTime, F> for &str {
    fn into_value(self) -> Value {
        datetime_value(self)
    }
}
impl<F> FilterValue<kind::DateTime, F> for i64 {
    fn into_value(self) -> Value {
        Value::DateTime(self)
    }
}
impl<F> FilterValue<kind::DateTime, F> for std::time::SystemTime {
    fn into_value(self) -> Value {
        let ms = match self.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            Err(e) => i64::try_from(e.duration().as_millis()).map_or(i64::MIN, |m| -m),
        };
        Value::DateTime(ms)
    }
}

// ----------------------------------------------------------------------------------- cursor

/// Where a path is: the relations, media and components followed from the root, and the
/// schema reached.
#[derive(Debug, Clone)]
pub struct Cursor {
    model: &'static Model,
    schema: SchemaId,
    steps: Vec<(AttrId, SchemaId)>,
}

impl Cursor {
    /// At the root schema.
    pub fn root(at: SchemaRef) -> Cursor {
        Cursor {
            model: at.model,
            schema: at.id,
            steps: Vec::new(),
        }
    }

    /// The schema reached.
    pub fn schema(&self) -> &'static Schema {
        self.model.schema(self.schema)
    }

    /// The schema reached, as a [`SchemaRef`].
    pub fn schema_ref(&self) -> SchemaRef {
        SchemaRef {
            model: self.model,
            id: self.schema,
        }
    }

    /// The steps followed from the root.
    pub fn steps(&self) -> &[(AttrId, SchemaId)] {
        &self.steps
    }

    fn follow(&self, attr: AttrId, target: SchemaId) -> Cursor {
        let mut steps = self.steps.clone();
        steps.push((attr, target));
        Cursor {
            model: self.model,
            schema: target,
            steps,
        }
    }
}

/// A path builder type (the derives generate `ArticlePath<R>`).
pub trait PathNode {
    /// The path at `cursor`.
    fn from_cursor(cursor: Cursor) -> Self;
}

/// The attribute `name` of `schema`: `index` when it names it, else a lookup by name. The
/// derives give both, so a struct whose positions are off still names the right attribute.
pub fn resolve_attr(schema: &Schema, name: &str, index: u32) -> AttrId {
    match schema.attributes.get(index as usize) {
        Some(a) if a.name == name => a.id,
        _ => schema.attribute_id(name).unwrap_or(AttrId(index)),
    }
}

/// The column `name` names on `schema` (system fields by their query names).
pub fn resolve_field(schema: &Schema, name: &str, index: u32) -> FieldRef {
    match name {
        "id" => FieldRef::Id,
        "documentId" => FieldRef::DocumentId,
        "createdAt" => FieldRef::CreatedAt,
        "updatedAt" => FieldRef::UpdatedAt,
        "publishedAt" => FieldRef::PublishedAt,
        "locale" => FieldRef::Locale,
        _ => FieldRef::Attr(resolve_attr(schema, name, index)),
    }
}

/// The schema a relation, media or component attribute leads to.
pub(crate) fn attr_target(model: &Model, schema: &Schema, attr: AttrId) -> Option<SchemaId> {
    match schema.attributes.get(attr.index()).map(|a| &a.kind) {
        Some(AttributeKind::Relation(r)) => r.target,
        Some(AttributeKind::Component(c)) => Some(c.component),
        Some(AttributeKind::Media(_)) => model.upload_file().map(|f| f.id),
        _ => None,
    }
}

/// Wraps `cond` (on the schema at the end of `steps`) into the related-row conditions of
/// the steps, innermost last.
fn wrap(steps: &[(AttrId, SchemaId)], cond: Condition) -> Condition {
    steps
        .iter()
        .rev()
        .fold(cond, |inner, &(attr, target)| Condition::Related {
            attr,
            target,
            filter: Conjunction(vec![inner]),
        })
}

// ----------------------------------------------------------------------------------- filter

/// A filter on entries of `R`: what `filters` holds, built with typed paths.
///
/// An empty filter (from `in_` with no values, or combinators of empty filters) adds no
/// condition, as `filters[title][$in]` with no values does over HTTP.
pub struct Filter<R> {
    conds: Vec<Condition>,
    _root: PhantomData<fn() -> R>,
}

impl<R> Clone for Filter<R> {
    fn clone(&self) -> Self {
        Filter::from_conditions(self.conds.clone())
    }
}

impl<R> PartialEq for Filter<R> {
    fn eq(&self, other: &Self) -> bool {
        self.conds == other.conds
    }
}

impl<R> fmt::Debug for Filter<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Filter").field(&self.conds).finish()
    }
}

impl<R> Default for Filter<R> {
    fn default() -> Self {
        Filter::from_conditions(Vec::new())
    }
}

impl<R> Filter<R> {
    /// The empty filter (no condition), usable in constants.
    pub const fn empty() -> Self {
        Filter {
            conds: Vec::new(),
            _root: PhantomData,
        }
    }

    pub(crate) fn from_conditions(conds: Vec<Condition>) -> Self {
        Filter {
            conds,
            _root: PhantomData,
        }
    }

    fn one(cond: Condition) -> Self {
        Filter::from_conditions(vec![cond])
    }

    /// True when the filter has no condition.
    pub fn is_empty(&self) -> bool {
        self.conds.is_empty()
    }

    /// The filter as a conjunction (`None` when empty).
    pub fn to_conjunction(&self) -> Option<Conjunction> {
        (!self.conds.is_empty()).then(|| Conjunction(self.conds.clone()))
    }

    /// The filter as a conjunction (`None` when empty).
    pub fn into_conjunction(self) -> Option<Conjunction> {
        (!self.conds.is_empty()).then_some(Conjunction(self.conds))
    }

    /// Both hold (`$and`). `a.and(b).and(c)` is one `$and` of three.
    pub fn and(self, other: Filter<R>) -> Filter<R> {
        Filter::all([self, other])
    }

    /// At least one holds (`$or`). `a.or(b).or(c)` is one `$or` of three.
    pub fn or(self, other: Filter<R>) -> Filter<R> {
        Filter::any([self, other])
    }

    /// Does not hold (`$not`).
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Filter<R> {
        match self.into_conjunction() {
            Some(c) => Filter::one(Condition::Not(c)),
            None => Filter::default(),
        }
    }

    /// Every filter holds (`$and`); empty filters are left out, and a single one is
    /// returned as it is.
    pub fn all(filters: impl IntoIterator<Item = Filter<R>>) -> Filter<R> {
        Filter::combine(filters, true)
    }

    /// At least one filter holds (`$or`); empty filters are left out, and a single one is
    /// returned as it is.
    pub fn any(filters: impl IntoIterator<Item = Filter<R>>) -> Filter<R> {
        Filter::combine(filters, false)
    }

    fn combine(filters: impl IntoIterator<Item = Filter<R>>, and: bool) -> Filter<R> {
        let mut parts: Vec<Conjunction> = Vec::new();
        for f in filters {
            let Some(c) = f.into_conjunction() else {
                continue;
            };
            // A previous combination of the same kind is flattened into this one.
            match c.0.as_slice() {
                [Condition::And(inner)] if and => parts.extend(inner.iter().cloned()),
                [Condition::Or(inner)] if !and => parts.extend(inner.iter().cloned()),
                _ => parts.push(c),
            }
        }
        match parts.len() {
            0 => Filter::default(),
            1 => Filter::from_conditions(parts.remove(0).0),
            _ if and => Filter::one(Condition::And(parts)),
            _ => Filter::one(Condition::Or(parts)),
        }
    }
}

impl<R> std::ops::Not for Filter<R> {
    type Output = Filter<R>;

    /// `!f` is [`f.not()`](Filter::not).
    fn not(self) -> Filter<R> {
        Filter::not(self)
    }
}

impl<R> std::ops::BitAnd for Filter<R> {
    type Output = Filter<R>;

    /// `a & b` is [`a.and(b)`](Filter::and).
    fn bitand(self, other: Filter<R>) -> Filter<R> {
        self.and(other)
    }
}

impl<R> std::ops::BitOr for Filter<R> {
    type Output = Filter<R>;

    /// `a | b` is [`a.or(b)`](Filter::or).
    fn bitor(self, other: Filter<R>) -> Filter<R> {
        self.or(other)
    }
}

// ----------------------------------------------------------------------------------- scalar

/// A scalar (or system) field `F` reached from the root `R`: its operators make a
/// [`Filter<R>`](Filter), [`asc`](Scalar::asc)/[`desc`](Scalar::desc) a [`Sort<R>`](Sort).
pub struct Scalar<R, F> {
    steps: Vec<(AttrId, SchemaId)>,
    field: FieldRef,
    _p: PhantomData<fn() -> (R, F)>,
}

impl<R, F> fmt::Debug for Scalar<R, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scalar")
            .field("steps", &self.steps)
            .field("field", &self.field)
            .finish()
    }
}

impl<R, F: ScalarMarker> Scalar<R, F> {
    /// The field `F` at `cursor` (generated path methods call this).
    pub fn at(cursor: &Cursor) -> Self {
        Scalar {
            steps: cursor.steps.clone(),
            field: resolve_field(cursor.schema(), F::NAME, F::INDEX),
            _p: PhantomData,
        }
    }

    fn filter(self, op: Op, operand: Operand) -> Filter<R> {
        let cond = Condition::Field {
            field: self.field,
            op,
            operand,
        };
        Filter::one(wrap(&self.steps, cond))
    }

    fn text(self, op: Op, v: impl TextValue<F>) -> Filter<R> {
        self.filter(op, Operand::One(Value::Text(v.into_text())))
    }

    /// `$eq`: equal.
    pub fn eq<V: FilterValue<F::Kind, F>>(self, v: V) -> Filter<R>
    where
        F: Equality,
    {
        self.filter(Op::Eq, Operand::One(v.into_value()))
    }

    /// `$ne`: not equal.
    pub fn ne<V: FilterValue<F::Kind, F>>(self, v: V) -> Filter<R>
    where
        F: Equality,
    {
        self.filter(Op::Ne, Operand::One(v.into_value()))
    }

    /// `$in`: one of the values (no values: no condition).
    pub fn in_<V: FilterValue<F::Kind, F>>(self, values: impl IntoIterator<Item = V>) -> Filter<R>
    where
        F: Membership,
    {
        let list: Vec<Value> = values.into_iter().map(FilterValue::into_value).collect();
        if list.is_empty() {
            return Filter::default();
        }
        self.filter(Op::In, Operand::List(list))
    }

    /// `$notIn`: none of the values (no values: no condition).
    pub fn not_in<V: FilterValue<F::Kind, F>>(
        self,
        values: impl IntoIterator<Item = V>,
    ) -> Filter<R>
    where
        F: Membership,
    {
        let list: Vec<Value> = values.into_iter().map(FilterValue::into_value).collect();
        if list.is_empty() {
            return Filter::default();
        }
        self.filter(Op::NotIn, Operand::List(list))
    }

    /// `$lt`: less than.
    pub fn lt<V: FilterValue<F::Kind, F>>(self, v: V) -> Filter<R>
    where
        F: Ordered,
    {
        self.filter(Op::Lt, Operand::One(v.into_value()))
    }

    /// `$lte`: less than or equal.
    pub fn lte<V: FilterValue<F::Kind, F>>(self, v: V) -> Filter<R>
    where
        F: Ordered,
    {
        self.filter(Op::Lte, Operand::One(v.into_value()))
    }

    /// `$gt`: greater than.
    pub fn gt<V: FilterValue<F::Kind, F>>(self, v: V) -> Filter<R>
    where
        F: Ordered,
    {
        self.filter(Op::Gt, Operand::One(v.into_value()))
    }

    /// `$gte`: greater than or equal.
    pub fn gte<V: FilterValue<F::Kind, F>>(self, v: V) -> Filter<R>
    where
        F: Ordered,
    {
        self.filter(Op::Gte, Operand::One(v.into_value()))
    }

    /// `$between`: within the bounds, both included.
    pub fn between<V: FilterValue<F::Kind, F>>(self, low: V, high: V) -> Filter<R>
    where
        F: Ordered,
    {
        self.filter(
            Op::Between,
            Operand::Range(low.into_value(), high.into_value()),
        )
    }

    /// `$eqi`: equal, ignoring case.
    #[doc(alias = "eq_i")]
    pub fn eqi(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::Eqi, v)
    }

    /// `$nei`: not equal, ignoring case.
    #[doc(alias = "ne_i")]
    pub fn nei(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::Nei, v)
    }

    /// `$contains`: contains the text.
    pub fn contains(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::Contains, v)
    }

    /// `$notContains`: does not contain the text.
    pub fn not_contains(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::NotContains, v)
    }

    /// `$containsi`: contains the text, ignoring case.
    #[doc(alias = "contains_i")]
    pub fn containsi(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::Containsi, v)
    }

    /// `$notContainsi`: does not contain the text, ignoring case.
    #[doc(alias = "not_contains_i")]
    pub fn not_containsi(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::NotContainsi, v)
    }

    /// `$startsWith`.
    pub fn starts_with(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::StartsWith, v)
    }

    /// `$startsWithi`: starts with the text, ignoring case.
    #[doc(alias = "starts_with_i")]
    pub fn starts_withi(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::StartsWithi, v)
    }

    /// `$endsWith`.
    pub fn ends_with(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::EndsWith, v)
    }

    /// `$endsWithi`: ends with the text, ignoring case.
    #[doc(alias = "ends_with_i")]
    pub fn ends_withi(self, v: impl TextValue<F>) -> Filter<R> {
        self.text(Op::EndsWithi, v)
    }

    /// `$null`: the field is null.
    pub fn null(self) -> Filter<R> {
        self.filter(Op::Null, Operand::Flag(true))
    }

    /// `$notNull`: the field is not null.
    pub fn not_null(self) -> Filter<R> {
        self.filter(Op::Null, Operand::Flag(false))
    }

    /// Sort ascending by this field.
    pub fn asc(self) -> Sort<R> {
        Sort::new(self.steps, self.field, Direction::Asc)
    }

    /// Sort descending by this field.
    pub fn desc(self) -> Sort<R> {
        Sort::new(self.steps, self.field, Direction::Desc)
    }
}

// -------------------------------------------------------------------------------- relations

/// A relation, media or component field `F` reached from the root `R`, leading to `T`.
/// It dereferences to `T`'s path, so `article::filter().author().name()` continues there.
pub struct Rel<R, F, T: Typed> {
    outer: Vec<(AttrId, SchemaId)>,
    attr: AttrId,
    target: SchemaId,
    inner: T::Path<R>,
    _p: PhantomData<fn() -> F>,
}

impl<R, F: Marker, T: Typed> Rel<R, F, T> {
    /// The field `F` at `cursor` (generated path methods call this).
    pub fn at(cursor: &Cursor) -> Self {
        let schema = cursor.schema();
        let attr = resolve_attr(schema, F::NAME, F::INDEX);
        let target = attr_target(cursor.model, schema, attr).unwrap_or(T::schema_ref().id);
        Rel {
            outer: cursor.steps.clone(),
            attr,
            target,
            inner: T::Path::<R>::from_cursor(cursor.follow(attr, target)),
            _p: PhantomData,
        }
    }

    /// `$null`: there is no related entry (or no component).
    pub fn null(self) -> Filter<R> {
        Filter::one(wrap(
            &self.outer,
            Condition::RelatedNull {
                attr: self.attr,
                is_null: true,
            },
        ))
    }

    /// `$notNull`: there is a related entry (or a component).
    pub fn not_null(self) -> Filter<R> {
        Filter::one(wrap(
            &self.outer,
            Condition::RelatedNull {
                attr: self.attr,
                is_null: false,
            },
        ))
    }

    /// Some related entry matches the whole filter built by `f` (conditions on the same
    /// related row, unlike `and` of two paths, which may match different rows).
    ///
    /// `article::filter().tags().matches(|t| t.name().eq("rust").and(t.id().gt(3)))`
    pub fn matches(self, f: impl FnOnce(T::Path<T>) -> Filter<T>) -> Filter<R> {
        let root = Cursor {
            model: T::schema_ref().model,
            schema: self.target,
            steps: Vec::new(),
        };
        let inner = f(T::Path::<T>::from_cursor(root));
        let Some(conj) = inner.into_conjunction() else {
            return Filter::default();
        };
        // Directly under a relation, `$not` negates the relation (`$not` of "some row
        // matches"); keep the negation on the row by putting it inside `$and`.
        let conj = if conj.0.iter().any(|c| matches!(c, Condition::Not(_))) {
            Conjunction(vec![Condition::And(vec![conj])])
        } else {
            conj
        };
        Filter::one(wrap(
            &self.outer,
            Condition::Related {
                attr: self.attr,
                target: self.target,
                filter: conj,
            },
        ))
    }

    /// Does not compile: a sort key ends at a scalar field (`.author().name().asc()`).
    pub fn asc(self) -> Sort<R>
    where
        F: Sortable,
    {
        Sort::new(self.outer, FieldRef::Id, Direction::Asc)
    }

    /// Does not compile: a sort key ends at a scalar field (`.author().name().desc()`).
    pub fn desc(self) -> Sort<R>
    where
        F: Sortable,
    {
        Sort::new(self.outer, FieldRef::Id, Direction::Desc)
    }
}

impl<R, F, T: Typed> Deref for Rel<R, F, T> {
    type Target = T::Path<R>;

    fn deref(&self) -> &T::Path<R> {
        &self.inner
    }
}

/// `localizations` of a localized type `T` reached from the root `R`: conditions on the
/// other locales of the same document.
pub struct Localizations<R, T> {
    steps: Vec<(AttrId, SchemaId)>,
    here: SchemaRef,
    _p: PhantomData<fn() -> (R, T)>,
}

impl<R, T: Typed> Localizations<R, T> {
    /// `localizations` at `cursor` (generated path methods call this).
    pub fn at(cursor: &Cursor) -> Self {
        Localizations {
            steps: cursor.steps.clone(),
            here: cursor.schema_ref(),
            _p: PhantomData,
        }
    }

    /// Some other locale of the document matches the filter built by `f`
    /// (`filters[localizations][…]`).
    ///
    /// `article::filter().localizations().matches(|a| a.title().eq("Bonjour"))`
    pub fn matches(self, f: impl FnOnce(T::Path<T>) -> Filter<T>) -> Filter<R> {
        let inner = f(T::Path::<T>::from_cursor(Cursor::root(self.here)));
        match inner.into_conjunction() {
            Some(conj) => Filter::one(wrap(&self.steps, Condition::Localizations(conj))),
            None => Filter::default(),
        }
    }
}

/// A dynamic-zone field `F`: it can be populated, not filtered or sorted on.
pub struct Zone<R, F> {
    _p: PhantomData<fn() -> (R, F)>,
}

impl<R, F: Marker> Zone<R, F> {
    /// The zone `F` at `cursor` (generated path methods call this).
    pub fn at(_cursor: &Cursor) -> Self {
        Zone { _p: PhantomData }
    }

    /// Does not compile: filters cannot name a dynamic zone.
    pub fn null(self) -> Filter<R>
    where
        F: ZoneFilter,
    {
        Filter::default()
    }

    /// Does not compile: filters cannot name a dynamic zone.
    pub fn not_null(self) -> Filter<R>
    where
        F: ZoneFilter,
    {
        Filter::default()
    }

    /// Does not compile: dynamic zones cannot be sorted on.
    pub fn asc(self) -> Sort<R>
    where
        F: ZoneSort,
    {
        Sort::new(Vec::new(), FieldRef::Id, Direction::Asc)
    }

    /// Does not compile: dynamic zones cannot be sorted on.
    pub fn desc(self) -> Sort<R>
    where
        F: ZoneSort,
    {
        Sort::new(Vec::new(), FieldRef::Id, Direction::Desc)
    }
}

// ------------------------------------------------------------------------------------- sort

/// A sort key on entries of `R`: a scalar field, possibly through relations, media and
/// components, and a direction.
pub struct Sort<R> {
    key: SortKey,
    _root: PhantomData<fn() -> R>,
}

impl<R> Clone for Sort<R> {
    fn clone(&self) -> Self {
        Sort {
            key: self.key.clone(),
            _root: PhantomData,
        }
    }
}

impl<R> PartialEq for Sort<R> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl<R> fmt::Debug for Sort<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Sort").field(&self.key).finish()
    }
}

impl<R> Sort<R> {
    fn new(path: Vec<(AttrId, SchemaId)>, field: FieldRef, direction: Direction) -> Self {
        Sort {
            key: SortKey::new(path, field, direction),
            _root: PhantomData,
        }
    }

    /// The sort key.
    pub fn key(&self) -> &SortKey {
        &self.key
    }

    /// Into the sort key.
    pub fn into_key(self) -> SortKey {
        self.key
    }
}
