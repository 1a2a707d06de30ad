//! Typed populate: which relations, media, components and dynamic zones to return, with
//! their own `fields`, `filters`, `sort`, nested `populate` and `count`.
//!
//! A derived type `Article` has `ArticlePopulate`, with one constant per attribute field
//! (`ArticlePopulate::Author`, `ArticlePopulate::Blocks`, and `ArticlePopulate::Localizations`
//! on localized types):
//!
//! * relations, media and components are a [`PopulateField`]: options are set with
//!   [`fields`](PopulateField::fields), [`filter`](PopulateField::filter),
//!   [`sort`](PopulateField::sort), nested [`populate`](PopulateField::populate) and, on
//!   relations, [`count`](PopulateField::count);
//! * dynamic zones are a [`PopulateZone`]: every component type by default, or only those
//!   named with [`on::<Component>(…)`](PopulateZone::on), each with its own options;
//! * scalar fields are a [`NotPopulatable`], which [`TypedQuery::populate`] refuses at
//!   compile time with a message naming the field.
//!
//! [`TypedQuery::populate`]: super::TypedQuery::populate

use std::fmt;
use std::marker::PhantomData;

use super::filter::{Filter, Marker, SchemaRef, Sort, attr_target, resolve_attr};
use super::{SelectField, Typed};
use crate::query::{
    FieldRef, Populate, PopulateEntry, PopulateKey, PopulateKind, PopulateOptions, SortKey,
};
use crate::schema::{AttributeKind, SchemaId};

/// Something [`TypedQuery::populate`](super::TypedQuery::populate) (or a nested
/// `populate`) accepts on entries of `P`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be populated on `{P}`",
    label = "not one of `{P}`'s populate constants",
    note = "populate takes the constants of the type's own `…Populate` (e.g. `ArticlePopulate::Author`)"
)]
pub trait PopulateArg<P> {
    /// The populate entry, on `parent` (the schema of `P`).
    fn populate_entry(self, parent: SchemaRef) -> PopulateEntry;
}

/// Never implemented: only relations, media, components and dynamic zones are populated.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a scalar field and cannot be populated",
    label = "not a relation, media, component or dynamic zone",
    note = "scalar fields are always in the response; choose which ones with `fields`, and populate relations, media, components and dynamic zones"
)]
pub trait Populatable {}

/// Relations, which `populate[x][count]=true` applies to (not `localizations`: Strapi
/// populates those whatever `count` says, `oracle/found-by-fuzzing.json`).
#[diagnostic::on_unimplemented(
    message = "`count` does not apply to `{Self}`",
    label = "`{Self}` is not a relation",
    note = "`count` returns the number of related entries of a relation; media, components and dynamic zones are always returned in full"
)]
pub trait Countable: Marker {}

/// The components of a dynamic zone `Z` (its generated enum): `#[derive(DynamicZone)]`
/// implements it for the type of each variant.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component of the dynamic zone `{Z}`",
    label = "not one of the zone's components",
    note = "`on::<C>()` names one of the variants of the zone's enum"
)]
pub trait InZone<Z> {}

/// The target type of a relation whose Rust type is not `One<T>`/`Many<T>` (a polymorphic
/// relation): it can be populated without options.
#[derive(Debug)]
pub enum Untyped {}

/// Options of a populated relation, media, component or zone fragment.
struct Opts<T> {
    fields: Option<Vec<FieldRef>>,
    filter: Filter<T>,
    sort: Vec<SortKey>,
    populate: Vec<PopulateEntry>,
}

impl<T> Clone for Opts<T> {
    fn clone(&self) -> Self {
        Opts {
            fields: self.fields.clone(),
            filter: self.filter.clone(),
            sort: self.sort.clone(),
            populate: self.populate.clone(),
        }
    }
}

impl<T> fmt::Debug for Opts<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Opts")
            .field("fields", &self.fields)
            .field("filter", &self.filter)
            .field("sort", &self.sort)
            .field("populate", &self.populate)
            .finish()
    }
}

impl<T> Opts<T> {
    const fn new() -> Self {
        Opts {
            fields: None,
            filter: Filter::empty(),
            sort: Vec::new(),
            populate: Vec::new(),
        }
    }

    fn into_options(self) -> PopulateOptions {
        PopulateOptions {
            fields: self.fields,
            filters: self.filter.into_conjunction(),
            sort: self.sort,
            populate: Populate(self.populate),
        }
    }
}

impl<T: Typed> Opts<T> {
    fn fields(&mut self, fields: impl IntoIterator<Item = T::Field>) {
        let schema = T::schema_ref().schema();
        self.fields = Some(select_field_refs(
            fields.into_iter().map(|f| f.field_ref(schema)),
        ));
    }

    fn filter(&mut self, filter: Filter<T>) {
        let current = std::mem::take(&mut self.filter);
        self.filter = current.and(filter);
    }

    fn populate(&mut self, arg: impl PopulateArg<T>) {
        insert_entry(&mut self.populate, arg.populate_entry(T::schema_ref()));
    }
}

/// Adds `entry` to a populate list kept in canonical order (by attribute position,
/// `localizations` last); an entry for the same attribute is replaced.
pub(crate) fn insert_entry(entries: &mut Vec<PopulateEntry>, entry: PopulateEntry) {
    match entries.binary_search_by(|e| e.key.cmp(&entry.key)) {
        Ok(i) => entries[i] = entry,
        Err(i) => entries.insert(i, entry),
    }
}

// ----------------------------------------------------------------------------------- fields

/// A populated relation, media or component `F` of `P`, leading to entries of `T`.
pub struct PopulateField<P, F, T> {
    opts: Opts<T>,
    count: bool,
    _p: PhantomData<fn() -> (P, F)>,
}

impl<P, F, T> Clone for PopulateField<P, F, T> {
    fn clone(&self) -> Self {
        PopulateField {
            opts: self.opts.clone(),
            count: self.count,
            _p: PhantomData,
        }
    }
}

impl<P, F, T> fmt::Debug for PopulateField<P, F, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PopulateField")
            .field("opts", &self.opts)
            .field("count", &self.count)
            .finish()
    }
}

impl<P, F, T> PopulateField<P, F, T> {
    /// Populated with no options (the generated constants).
    pub const fn new() -> Self {
        PopulateField {
            opts: Opts::new(),
            count: false,
            _p: PhantomData,
        }
    }
}

impl<P, F, T> Default for PopulateField<P, F, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P, F: Marker, T: Typed> PopulateField<P, F, T> {
    /// `fields`: only these scalar fields of the related entries (plus `id` and `documentId`).
    pub fn fields(mut self, fields: impl IntoIterator<Item = T::Field>) -> Self {
        self.opts.fields(fields);
        self
    }

    /// `filters`: only related entries that match (calling it again ANDs).
    pub fn filter(mut self, filter: Filter<T>) -> Self {
        self.opts.filter(filter);
        self
    }

    /// `sort`: one more sort key of the related entries.
    pub fn sort(mut self, key: Sort<T>) -> Self {
        self.opts.sort.push(key.into_key());
        self
    }

    /// Nested `populate` on the related entries (`AuthorPopulate::Avatar`).
    pub fn populate(mut self, arg: impl PopulateArg<T>) -> Self {
        self.opts.populate(arg);
        self
    }
}

impl<P, F, T> PopulateField<P, F, T> {
    /// `count`: `{"count": N}` instead of the related entries (filters still apply; other
    /// options are ignored, as by Strapi). Relations only.
    pub fn count(mut self) -> Self
    where
        F: Countable,
    {
        self.count = true;
        self
    }
}

impl<P, F: Marker, T> PopulateArg<P> for PopulateField<P, F, T> {
    fn populate_entry(self, parent: SchemaRef) -> PopulateEntry {
        let schema = parent.schema();
        let (key, target) = if F::NAME == "localizations" && schema.attribute(F::NAME).is_none() {
            (PopulateKey::Localizations, parent.id)
        } else {
            let attr = resolve_attr(schema, F::NAME, F::INDEX);
            let target = attr_target(parent.model, schema, attr).unwrap_or_default();
            (PopulateKey::Attr(attr), target)
        };
        let kind = if self.count {
            PopulateKind::Count {
                target,
                filters: self.opts.filter.into_conjunction(),
            }
        } else {
            PopulateKind::Rows {
                target,
                options: self.opts.into_options(),
            }
        };
        PopulateEntry { key, kind }
    }
}

// ------------------------------------------------------------------------------------ zones

/// A populated dynamic zone `F` of `P`, whose generated enum is `Z`.
pub struct PopulateZone<P, F, Z> {
    on: Vec<(SchemaId, PopulateOptions)>,
    _p: PhantomData<Phantom3<P, F, Z>>,
}

/// The type parameters of [`PopulateZone`], for variance and auto traits only.
type Phantom3<P, F, Z> = fn() -> (P, F, Z);

impl<P, F, Z> Clone for PopulateZone<P, F, Z> {
    fn clone(&self) -> Self {
        PopulateZone {
            on: self.on.clone(),
            _p: PhantomData,
        }
    }
}

impl<P, F, Z> fmt::Debug for PopulateZone<P, F, Z> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PopulateZone")
            .field("on", &self.on)
            .finish()
    }
}

impl<P, F, Z> PopulateZone<P, F, Z> {
    /// Every component type (the generated constants).
    pub const fn new() -> Self {
        PopulateZone {
            on: Vec::new(),
            _p: PhantomData,
        }
    }

    /// `on[<uid of C>]`: components of type `C`, with the options `f` sets. Once one `on`
    /// is given, components of types not named are left out of the response.
    pub fn on<C>(mut self, f: impl FnOnce(Fragment<C>) -> Fragment<C>) -> Self
    where
        C: Typed + InZone<Z>,
    {
        let id = C::schema_ref().id;
        let options = f(Fragment::new()).opts.into_options();
        match self.on.iter_mut().find(|(c, _)| *c == id) {
            Some(slot) => slot.1 = options,
            None => self.on.push((id, options)),
        }
        self
    }
}

impl<P, F, Z> Default for PopulateZone<P, F, Z> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P, F: Marker, Z> PopulateArg<P> for PopulateZone<P, F, Z> {
    fn populate_entry(self, parent: SchemaRef) -> PopulateEntry {
        let schema = parent.schema();
        let attr = resolve_attr(schema, F::NAME, F::INDEX);
        let mut list = if self.on.is_empty() {
            match schema.attributes.get(attr.index()).map(|a| &a.kind) {
                Some(AttributeKind::DynamicZone(z)) => z
                    .components
                    .iter()
                    .map(|c| (*c, PopulateOptions::default()))
                    .collect(),
                _ => Vec::new(),
            }
        } else {
            self.on
        };
        list.sort_by_key(|(c, _)| *c);
        PopulateEntry {
            key: PopulateKey::Attr(attr),
            kind: PopulateKind::Zone(list),
        }
    }
}

/// The options of one component type of a populated dynamic zone (`on::<C>(|f| f…)`).
pub struct Fragment<C> {
    opts: Opts<C>,
}

impl<C> fmt::Debug for Fragment<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fragment")
            .field("opts", &self.opts)
            .finish()
    }
}

impl<C> Fragment<C> {
    fn new() -> Self {
        Fragment { opts: Opts::new() }
    }
}

impl<C: Typed> Fragment<C> {
    /// `fields` of these components.
    pub fn fields(mut self, fields: impl IntoIterator<Item = C::Field>) -> Self {
        self.opts.fields(fields);
        self
    }

    /// `filters` on these components (calling it again ANDs).
    pub fn filter(mut self, filter: Filter<C>) -> Self {
        self.opts.filter(filter);
        self
    }

    /// One more `sort` key of these components.
    pub fn sort(mut self, key: Sort<C>) -> Self {
        self.opts.sort.push(key.into_key());
        self
    }

    /// Nested `populate` inside these components.
    pub fn populate(mut self, arg: impl PopulateArg<C>) -> Self {
        self.opts.populate(arg);
        self
    }
}

// ---------------------------------------------------------------------------------- scalars

/// A scalar field in a `…Populate` namespace: populating it does not compile (it exists so
/// that the error names the field and the rule).
pub struct NotPopulatable<P, F> {
    _p: PhantomData<fn() -> (P, F)>,
}

impl<P, F> NotPopulatable<P, F> {
    /// The generated constant.
    pub const fn new() -> Self {
        NotPopulatable { _p: PhantomData }
    }
}

impl<P, F> Default for NotPopulatable<P, F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P, F> fmt::Debug for NotPopulatable<P, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NotPopulatable")
    }
}

impl<P, F: Marker + Populatable> PopulateArg<P> for NotPopulatable<P, F> {
    fn populate_entry(self, parent: SchemaRef) -> PopulateEntry {
        // Unreachable: `Populatable` has no implementations.
        PopulateEntry {
            key: PopulateKey::Localizations,
            kind: PopulateKind::Rows {
                target: parent.id,
                options: PopulateOptions::default(),
            },
        }
    }
}

/// `fields` in canonical form: no `id`/`documentId` (always selected), no duplicates.
pub(crate) fn select_field_refs(fields: impl IntoIterator<Item = FieldRef>) -> Vec<FieldRef> {
    let mut out: Vec<FieldRef> = Vec::new();
    for f in fields {
        if !matches!(f, FieldRef::Id | FieldRef::DocumentId) && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}
