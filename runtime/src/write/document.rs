//! A document write as Strapi 5.54's document service makes it, as row changes in one
//! transaction (see `tests/fixtures/blog/writes/README.md` for what each rule is seen in):
//!
//! * **create**: a draft row (attributes given, schema defaults, `created_at` =
//!   `updated_at` = now), its components, media and links; then, for a
//!   draft-and-publish type asked `published`, a publish. A type without draft and
//!   publish gets one row with `published_at` set.
//! * **update**: the draft of (document, locale) updated in place (`updated_at` = now),
//!   the given components, media and relations replaced; then a publish unless
//!   `?status=draft`. A document that exists in other locales only gets a new
//!   localization (its non-localized attributes copied from another locale). The
//!   non-localized attributes given are copied to the other locales' rows of the
//!   request's status.
//! * **publish**: the old published row of (document, locale) is deleted with everything
//!   hanging off it, and the draft is copied under a new id with `published_at` = now:
//!   its components copied, its media and links copied with each target mapped to its
//!   published version (a target without one is not linked). Order columns follow
//!   Strapi's publish: a link that the old published row had keeps its inverse order, a
//!   first publish keeps the draft's, a new one goes last. Links that other types hold to
//!   the old published row through a one-way relation move to the new row.
//! * **delete**: every row of the document in the locale (or all, for `*`), with its
//!   components, links and media.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::WriteStatus;
use super::copy_order;
use super::error::{FieldError, WriteError};
use super::input::{
    ComponentInput, Input, MediaChange, Position, RelationInput, RelationRef, TargetKey,
    last_of_to_one, mapped_relation, row_id_key, written_entries,
};
use super::order::Validated;
use super::relations;
use super::relations_store::{names_documents_only, relations_store};
use crate::schema::{
    AttrId, Attribute, AttributeKind, ColumnRole, LinkTable, Model, Relation, RelationKind,
    RelationSide, RelationStorage, ScalarType, Schema, SchemaId,
};
use crate::store::decode::Decode;
use crate::store::document_id::DocumentIds;
use crate::store::rows::{
    Attachment, ComponentLink, End, HeldValue, LinkRow, MediaLink, Rows, ShownRows, Timing,
    Touching, Version,
};
use crate::store::seam::{StoredValue, Writer};
use crate::store::{Store, StoreError};

/// Which locales a delete removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocaleScope {
    /// One locale (`None` for a type that is not localized).
    One(Option<String>),
    /// Every locale (`?locale=*`).
    All,
}

/// A new localization's data as Strapi validates it ([`DocumentWrite::new_localization`]).
pub struct CreationData {
    /// The request's data with the non-localized attributes it leaves nil copied in.
    pub data: Map<String, Value>,
    /// That data as its errors show it.
    pub shown: Value,
}

/// One document write inside one transaction.
pub struct DocumentWrite<'a> {
    rows: Rows<'a>,
    model: &'a Model,
    schema: &'a Schema,
    now: i64,
    /// The request's data as some of Strapi's errors show it.
    shown: Option<&'a Value>,
    /// The data of a new localization as Strapi validates it, once it is known that the
    /// update makes one ([`Self::new_localization`]); shown in `shown`'s place.
    creation_shown: RefCell<Option<Value>>,
    /// The default locale (relations from a type that is not localized go to it).
    default_locale: &'a str,
    /// Whether the request's query has `fields` without `locale`: Strapi reads the entry
    /// its publish creates with those fields and matches it to the old versions by
    /// `locale`, so it matches none and restores no order values: the published links
    /// go last in the far end's lists, on a first publish and a republish alike
    /// (`create-response-params#1`, `gen-i18n-lifecycle#15`).
    fields_omit_locale: bool,
    /// The other locales' values from before an i18n sync, kept when the answer shows
    /// `localizations` (`Some`): see [`Self::keeping_shown_localizations`].
    before_sync: Option<RefCell<ShownRows>>,
    /// Relation targets and files already looked up in this write: each is looked up
    /// once when the input is checked ([`Self::resolve_targets`]) and again when its
    /// links are written. Cleared when a publish starts.
    lookups: RefCell<HashMap<Lookup, Option<i64>>>,
    /// The self-relation syncs of this write's publishes, `(draft, new published row)`,
    /// when they wait for the answer to be read (`Some`): see
    /// [`Self::answering_before_self_sync`].
    self_syncs: Option<RefCell<Vec<(i64, i64)>>>,
    /// The far-end orders of the links of this write's publishes that the bidirectional
    /// sync gives back, when they wait for the answer to be read (`Some`): see
    /// [`Self::answering_before_order_sync`].
    order_syncs: Option<RefCell<Vec<OrderSync<'a>>>>,
}

/// A link of a new published row whose order values Strapi's bidirectional sync sets
/// after its publish created the link last at the far end
/// ([`DocumentWrite::answering_before_order_sync`]).
struct OrderSync<'a> {
    table: &'a LinkTable,
    link: i64,
    owner_order: Option<f64>,
    inverse_order: Option<f64>,
}

/// A document's component attributes, each with its items: the component and its scalar
/// values.
type ComponentValues = (AttrId, Vec<(SchemaId, Vec<(AttrId, StoredValue)>)>);

/// The rows of one version (document and locale) of the written type.
#[derive(Debug, Clone, Copy)]
struct Versions {
    /// Its draft row.
    draft: i64,
    /// Its published row, if it has one.
    published: Option<i64>,
}

/// The entry Strapi looks a position's anchor `key` up as: the connected entry with its
/// position's keys over it (`{...relation, ...position, documentId: anchor}`), so the
/// position's `locale` and `status`, else the entry's.
fn anchor_entry(connected: &RelationRef, key: &TargetKey) -> RelationRef {
    let given = |name: &str| {
        let position = connected.position_given.as_ref();
        position
            .and_then(|p| p.get(name))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    RelationRef {
        key: key.clone(),
        locale: given("locale").or_else(|| connected.locale.clone()),
        status: given("status").or_else(|| connected.status.clone()),
        position: None,
        position_given: None,
    }
}

/// What copies of components are for ([`DocumentWrite::copy_instances`]): the state of
/// the row they go to and the locale Strapi transforms them for (i18n's copies to another
/// locale; `None` keeps each target's own, as a publish's copy does).
#[derive(Debug, Clone, Copy)]
struct CopyFor<'l> {
    published: bool,
    locale: Option<&'l str>,
}

/// A row looked up by [`DocumentWrite::target_rows`] or [`DocumentWrite::file_ids`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Lookup {
    /// `version_row(schema, document_id, locale, published)`.
    Version(SchemaId, String, Option<String>, bool),
    /// `row_exists(schema, id)`.
    Row(SchemaId, i64),
}

/// The non-localized attributes of a row, as Strapi's i18n compares and copies them
/// (`copyNonLocalizedAttributes`): scalar values, each media attribute's files, and each
/// component or dynamic-zone attribute's instances. Also what a new localization takes
/// from another locale for what the request does not give (`copyNonLocalizedFields`).
#[derive(Default)]
struct SharedFields {
    scalars: Vec<(AttrId, StoredValue)>,
    media: Vec<(AttrId, Vec<i64>)>,
    components: SharedComponents,
    /// For a new localization's copy ([`Self::for_nil_of`]): the attributes the request
    /// gives as `null`, in its order. Strapi fills them in place, so its transform meets
    /// them before the attributes it adds after the request's keys.
    given_nil: Vec<AttrId>,
}

/// The instances of a row's shared component and dynamic-zone attributes.
#[derive(Default)]
struct SharedComponents {
    /// Each attribute's instances in order: the component and its row.
    instances: Vec<(AttrId, Vec<(SchemaId, i64)>)>,
    /// What Strapi compares of them: their content without ids
    /// ([`DocumentWrite::component_content`]), one list per attribute.
    content: Vec<Value>,
}

/// Two rows share the same values when everything but their components' row ids is
/// equal, as Strapi's `isEqual` of the copies without ids finds.
impl PartialEq for SharedFields {
    fn eq(&self, other: &Self) -> bool {
        self.scalars == other.scalars
            && self.media == other.media
            && self.components.content == other.components.content
    }
}

impl SharedFields {
    /// What a new localization takes of these: the attributes the request leaves nil
    /// (absent or `null`), as `fillNonLocalizedAttributes` fills them.
    fn for_nil_of(mut self, schema: &Schema, given: &Map<String, Value>) -> Self {
        let nil = |a: &AttrId| {
            schema
                .attributes
                .get(a.index())
                .is_none_or(|a| given.get(&a.name).is_none_or(Value::is_null))
        };
        self.scalars.retain(|(a, _)| nil(a));
        self.media.retain(|(a, _)| nil(a));
        self.components.instances.retain(|(a, _)| nil(a));
        self.given_nil = given
            .iter()
            .filter(|(_, v)| v.is_null())
            .filter_map(|(k, _)| schema.attribute_id(k))
            .collect();
        self
    }

    /// The copied component and zone attributes in the order Strapi's transform meets
    /// them in the new localization's data: those the request gives as `null`, in its
    /// order, then the others in attribute order (`fillNonLocalizedAttributes` adds them
    /// after the request's keys).
    fn components_in_data_order(&self) -> Vec<&(AttrId, Vec<(SchemaId, i64)>)> {
        let mut list: Vec<_> = self.components.instances.iter().collect();
        list.sort_by_key(|(a, _)| match self.given_nil.iter().position(|g| g == a) {
            Some(at) => (0, at),
            None => (1, a.index()),
        });
        list
    }

    /// These values with their passwords hashed again, as the creation of a new
    /// localization writes what it copied (the document service's `applyTransforms`).
    fn with_passwords_hashed_again(mut self, schema: &Schema) -> Result<Self, WriteError> {
        for (a, v) in &mut self.scalars {
            if schema.attributes.get(a.index()).is_some_and(is_password) {
                *v = hashed_again(std::mem::replace(v, StoredValue::Null))?;
            }
        }
        Ok(self)
    }

    fn media_of(&self, attr: AttrId) -> Option<&[i64]> {
        self.media
            .iter()
            .find(|(a, _)| *a == attr)
            .map(|(_, f)| f.as_slice())
    }

    fn components_of(&self, attr: AttrId) -> Option<&[(SchemaId, i64)]> {
        self.components
            .instances
            .iter()
            .find(|(a, _)| *a == attr)
            .map(|(_, c)| c.as_slice())
    }
}

/// A row whose relations are written: a version's draft (with its locale) or a component
/// row (with its entity's locale: Strapi resolves a component's relations as its
/// entity's, `transformData` taking the content type's uid, locale and status).
#[derive(Clone, Copy)]
struct WrittenRow<'r> {
    schema: &'r Schema,
    id: i64,
    locale: Option<&'r str>,
    /// What a new localization takes from another locale for the shared attributes it
    /// leaves nil (files and components; the scalars go into its row).
    inherited: Option<&'r SharedFields>,
}

impl<'r> WrittenRow<'r> {
    fn component(schema: &'r Schema, id: i64, locale: Option<&'r str>) -> Self {
        WrittenRow {
            schema,
            id,
            locale,
            inherited: None,
        }
    }
}

/// The components of a row, made before the row's own insert or update, as Strapi's
/// document service makes them (`createComponents`, `updateComponents`) before its entity
/// manager writes the row: a row the database then refuses has taken their ids (which
/// PostgreSQL and MariaDB keep taken after the rollback). Their `_cmps` rows follow the
/// row's statement ([`DocumentWrite::write_parts`]).
enum MadeComponents<'s> {
    /// A new row's ([`DocumentWrite::make_components`]).
    Created(Vec<NewComponents<'s>>),
    /// An existing row's, per attribute given: what its `_cmps` rows are to hold
    /// ([`DocumentWrite::update_components`]).
    Updated(Vec<ComponentJoinSet<'s>>),
}

/// The instances made for one component or zone attribute of a new row.
struct NewComponents<'s> {
    attribute: &'s Attribute,
    single: bool,
    instances: Vec<(SchemaId, i64)>,
}

/// A component attribute of an existing row, its kind of join, and the instances its
/// `_cmps` rows are set to.
type ComponentJoinSet<'s> = (
    &'s Attribute,
    relations::ComponentJoin,
    Vec<relations::ComponentRef>,
);

/// What a publish keeps of the old published row before deleting it.
#[derive(Default)]
struct Carried {
    /// Whether there was an old published row.
    existed: bool,
    /// Its owned links, per link table.
    owned: Vec<(String, Vec<LinkRow>)>,
    /// Its links seen from the target end (inverse sides and one-way relations of
    /// others), per link table.
    incoming: Vec<(String, Vec<LinkRow>)>,
}

impl Carried {
    fn owned(&self, table: &str) -> Option<&[LinkRow]> {
        self.owned
            .iter()
            .find(|(t, _)| t == table)
            .map(|(_, l)| l.as_slice())
    }

    fn incoming(&self, table: &str) -> Option<&[LinkRow]> {
        self.incoming
            .iter()
            .find(|(t, _)| t == table)
            .map(|(_, l)| l.as_slice())
    }
}

/// Whether Strapi's `unique` test passes `v` without looking: null and the empty string
/// (`validators.js`: "Otherwise it'll only accept a single entry with that value").
fn unique_skips(v: &StoredValue) -> bool {
    matches!(v, StoredValue::Null) || matches!(v, StoredValue::Text(t) if t.is_empty())
}

fn column(schema: &Schema, attr: AttrId) -> Option<&str> {
    schema
        .attributes
        .get(attr.index())
        .and_then(|a| a.column.as_deref())
}

/// Strapi's transform's error for a target it cannot find, in the locale it looked in
/// (`null` for a target that is not localized).
fn not_found_relation(key: &TargetKey) -> WriteError {
    not_found_in(key, None)
}

/// [`not_found_relation`] for a target looked up in `locale`.
fn not_found_in(key: &TargetKey, locale: Option<&str>) -> WriteError {
    let id = match key {
        TargetKey::DocumentId(d) | TargetKey::NoRow(d) => d.clone(),
        TargetKey::Id(i) => i.to_string(),
    };
    let locale = locale.unwrap_or("null");
    WriteError::bare(format!(
        "Document with id \"{id}\", locale \"{locale}\" not found"
    ))
}

impl<'a> DocumentWrite<'a> {
    /// A write of `schema`'s documents in transaction `w` on `store`'s database, at `now`
    /// (epoch ms).
    pub fn new(w: &'a dyn Writer, store: &'a Store, schema: &'a Schema, now: i64) -> Self {
        let model: &Model = store.model();
        let default_locale = &store.settings().default_locale;
        DocumentWrite {
            rows: Rows::new(w, model).with_cascades(store.cascades()),
            model,
            schema,
            now,
            shown: None,
            creation_shown: RefCell::default(),
            default_locale,
            fields_omit_locale: false,
            before_sync: None,
            lookups: RefCell::default(),
            self_syncs: None,
            order_syncs: None,
        }
    }

    /// Leaves the bidirectional sync of each publish's links until [`Self::finish`], so
    /// that the answer, read in between, shows them as Strapi's REST answer does: its
    /// publish creates the new row's links last in each list at the far end (the
    /// largest order value plus one), reads the entry it answers with, and only then
    /// gives them back their old places (`repository.js`: `entries.publish`, then
    /// `bidirectionalRelations.sync`). Only an answer that populates past its first level
    /// can show such a list (`populate[section][populate]=pages`), so a write asks for
    /// this then; else each link is written once, with its place.
    pub fn answering_before_order_sync(mut self, yes: bool) -> Self {
        self.order_syncs = yes.then(RefCell::default);
        self
    }

    /// Leaves each publish's self-relation sync ([`Self::sync_self_relations`]) until
    /// [`Self::finish`], so that the answer, read in between, shows the published row as
    /// Strapi's REST answer does: its publish reads the entry it creates, and only then
    /// gives the new row its links to itself and to the other rows of its type
    /// (`repository.js`: `entries.publish`, then `selfReferentialRelations.sync`). The
    /// GraphQL plugin resolves relations after the whole write, so it shows them.
    pub fn answering_before_self_sync(mut self, yes: bool) -> Self {
        self.self_syncs = yes.then(RefCell::default);
        self
    }

    /// Runs what waited for the answer, in Strapi's order: the bidirectional sync
    /// ([`Self::answering_before_order_sync`]), then the self-relation sync
    /// ([`Self::answering_before_self_sync`]).
    pub fn finish(&self) -> Result<(), WriteError> {
        let orders = self
            .order_syncs
            .as_ref()
            .map(|s| s.take())
            .unwrap_or_default();
        for o in orders {
            self.rows
                .set_link_orders(o.table, o.link, o.owner_order, o.inverse_order)?;
        }
        let pending = self
            .self_syncs
            .as_ref()
            .map(|s| s.take())
            .unwrap_or_default();
        for (draft, new) in pending {
            self.sync_self_relations(draft, new)?;
        }
        Ok(())
    }

    /// Keeps, when an i18n sync changes other locales' rows, what the answer's
    /// `localizations` showed of them before: Strapi reads the entry it answers with
    /// (its `localizations` included) before its i18n middleware syncs the shared values,
    /// so its answer shows them from before ([`Self::shown_before_sync`]).
    pub fn keeping_shown_localizations(mut self, yes: bool) -> Self {
        self.before_sync = yes.then(RefCell::default);
        self
    }

    /// The rows an i18n sync changed, with their shared values and `updatedAt` as they
    /// were shown before it (empty unless kept: [`Self::keeping_shown_localizations`]).
    pub fn shown_before_sync(&self) -> ShownRows {
        self.before_sync
            .as_ref()
            .map(|b| b.take())
            .unwrap_or_default()
    }

    /// Whether the request's query has `fields` (see the field of that name).
    pub fn fields_omit_locale(mut self, yes: bool) -> Self {
        self.fields_omit_locale = yes;
        self
    }

    /// The request's data as errors show it (`value` of a missing file's error).
    pub fn showing(mut self, shown: &'a Value) -> Self {
        self.shown = Some(shown);
        self
    }

    /// `f` of the data errors show: a new localization's once known, else the request's.
    fn with_shown<R>(&self, f: impl FnOnce(Option<&Value>) -> R) -> R {
        let creation = self.creation_shown.borrow();
        f(creation.as_ref().or(self.shown))
    }

    /// The data Strapi validates a new localization of `document_id` with, and shows in
    /// its errors: its update turns into a creation (`copyNonLocalizedFields`) of the
    /// request's data with each non-localized attribute the data leaves `null` or out
    /// taken from the localization source (i18n's `fillNonLocalizedAttributes`): scalars,
    /// and media, components and zones ([`Self::copied_parts`]). The errors show it with
    /// the `documentId`, cast as a creation's; that is kept for this write's errors.
    /// `source` is the row the values are copied from ([`Rows::localization_source`]).
    pub fn new_localization(
        &self,
        document_id: &str,
        given: &Map<String, Value>,
        locale: Option<&str>,
        source: Option<i64>,
    ) -> Result<CreationData, WriteError> {
        let mut data = given.clone();
        let mut shown = given.clone();
        shown.insert("documentId".into(), Value::String(document_id.to_string()));
        if let Some(source) = source {
            let non_localized = self
                .schema
                .attributes
                .iter()
                .filter(|a| self.is_non_localized(a));
            let columns = shown_scalar_columns(non_localized);
            let mut copied = self
                .rows
                .shown_row(self.schema, source, &columns)?
                .unwrap_or_default();
            copied.extend(self.copied_parts(source)?);
            for (name, value) in copied {
                if data.get(&name).is_none_or(Value::is_null) {
                    data.insert(name.clone(), value.clone());
                    shown.insert(name, value);
                }
            }
        }
        let shown = super::shown_data(self.model, self.schema, &shown, locale, self.now, true);
        *self.creation_shown.borrow_mut() = Some(shown.clone());
        Ok(CreationData { data, shown })
    }

    fn table(&self) -> &str {
        &self.schema.layout.table
    }

    /// Creates a document; returns its documentId.
    pub fn create(
        &self,
        input: &Input,
        locale: Option<&str>,
        status: WriteStatus,
    ) -> Result<String, WriteError> {
        let document_id = DocumentIds::new().next_id()?;
        let draft = self.insert_version(&document_id, input, locale, &SharedFields::default())?;
        let version = Versions {
            draft,
            published: None,
        };
        self.publish_if_asked(&document_id, locale, status, version)?;
        Ok(document_id)
    }

    /// What a creation writes before Strapi's entity manager refuses a date of the entry
    /// itself ([`super::input::Refused::by_entry_date`]): the document service makes the
    /// components first, each instance with everything under it (its own components,
    /// links and files), then the entry's insert fails. The caller rolls this back; on
    /// PostgreSQL and MariaDB the ids those inserts took stay taken, as Strapi's do.
    pub fn components_made_before_refusal(
        &self,
        input: &Input,
        locale: Option<&str>,
    ) -> Result<(), WriteError> {
        self.resolve_targets(self.schema, input, locale)?;
        for a in &self.schema.attributes {
            if let Some((_, items)) = input.components.iter().find(|(id, _)| *id == a.id) {
                self.create_items(items, locale)?;
            }
        }
        Ok(())
    }

    /// What an update of document `document_id` writes before Strapi's entity manager
    /// refuses a date of the entry itself: its document service finds the version's draft
    /// (the row it updates), validates, then updates the components (`updateComponents`:
    /// the old ones not kept deleted, the kept ones updated, the new ones made) before the
    /// row's `UPDATE` fails. The caller rolls this back, as for
    /// [`Self::components_made_before_refusal`]. A version that does not exist yet (a new
    /// localization) writes nothing here: its creation is refused as a creation.
    pub fn components_updated_before_refusal(
        &self,
        document_id: &str,
        input: &Input,
        locale: Option<&str>,
    ) -> Result<(), WriteError> {
        let versions = self.existing_versions(document_id, input, locale)?;
        let Some(draft) = self.draft_of(&versions, locale) else {
            return Ok(());
        };
        self.resolve_targets(self.schema, input, locale)?;
        if !self.schema.draft_and_publish {
            self.check_unique(document_id, locale, input)?;
        }
        self.update_components(self.schema, draft, &input.components, locale)?;
        Ok(())
    }

    /// The row an update of `locale` writes among a document's `versions`: its draft (its
    /// only row in a type without draft and publish); `None` for a new localization.
    fn draft_of(&self, versions: &[Version], locale: Option<&str>) -> Option<i64> {
        let dp = self.schema.draft_and_publish;
        versions
            .iter()
            .find(|v| v.locale.as_deref() == locale && (!dp || !v.published))
            .map(|v| v.id)
    }

    /// The non-localized media, components and zones of row `source`, as i18n's
    /// `fillNonLocalizedAttributes` copies them into a new localization's data (the
    /// populated values without their ids, files as their ids: `normalizeMediaIds`),
    /// written as a request gives them: files as ids, a component's relations as
    /// documentIds (the transform maps both to the rows the copies link: a localized
    /// target's row in the new locale), every attribute of a component present (`null`,
    /// or `[]` for a list, when empty).
    fn copied_parts(&self, source: i64) -> Result<Map<String, Value>, WriteError> {
        let mut out = Map::new();
        let attrs: Vec<&Attribute> = self
            .schema
            .attributes
            .iter()
            .filter(|a| !matches!(a.kind, AttributeKind::Scalar(_)) && self.is_non_localized(a))
            .collect();
        if attrs.is_empty() {
            return Ok(out);
        }
        let files = self.rows.media_of(self.schema, source)?;
        let links = self.rows.components_of(self.schema, source)?;
        for a in attrs {
            let value = match &a.kind {
                AttributeKind::Media(m) => files_given(&files, &a.name, m.multiple),
                AttributeKind::Component(_) | AttributeKind::DynamicZone(_) => {
                    self.instances_given(a, &links)?
                }
                AttributeKind::Scalar(_) | AttributeKind::Relation(_) => continue,
            };
            out.insert(a.name.clone(), value);
        }
        Ok(out)
    }

    /// The instances of component or zone attribute `a` among `links` (a row's
    /// `_cmps` links) as a request gives them ([`Self::copied_parts`]): an object or
    /// `null` for a single component, a list otherwise; a zone's items with their
    /// `__component`, those of components it does not list left out (a read leaves them
    /// out).
    fn instances_given(&self, a: &Attribute, links: &[ComponentLink]) -> Result<Value, WriteError> {
        let zone = matches!(a.kind, AttributeKind::DynamicZone(_));
        let mut items = Vec::new();
        for (cs, l) in self.listed_instances(a, links) {
            if let Some(item) = self.component_given(cs, l.cmp_id, zone)? {
                items.push(item);
            }
        }
        Ok(match &a.kind {
            AttributeKind::Component(c) if !c.repeatable => {
                items.into_iter().next().unwrap_or(Value::Null)
            }
            _ => Value::Array(items),
        })
    }

    /// Component row `id` of `cs` as a request gives it ([`Self::copied_parts`]);
    /// `None` when the row does not exist.
    fn component_given(
        &self,
        cs: &Schema,
        id: i64,
        in_zone: bool,
    ) -> Result<Option<Value>, WriteError> {
        let columns = shown_scalar_columns(cs.attributes.iter());
        let Some(scalars) = self.rows.shown_row(cs, id, &columns)? else {
            return Ok(None);
        };
        let mut o = Map::new();
        if in_zone {
            o.insert("__component".into(), Value::from(cs.uid.as_str()));
        }
        o.extend(scalars);
        let files = self.rows.media_of(cs, id)?;
        let nested = self.rows.components_of(cs, id)?;
        for a in &cs.attributes {
            let value = match &a.kind {
                AttributeKind::Scalar(_) => continue,
                AttributeKind::Media(m) => files_given(&files, &a.name, m.multiple),
                AttributeKind::Component(_) | AttributeKind::DynamicZone(_) => {
                    self.instances_given(a, &nested)?
                }
                AttributeKind::Relation(r) => self.targets_given(r, id)?,
            };
            o.insert(a.name.clone(), value);
        }
        Ok(Some(Value::Object(o)))
    }

    /// The targets of relation `r` of component row `id` as documentIds: a to-one's the
    /// one a read shows or `null`, a to-many's in their order ([`Self::shown_links`]).
    fn targets_given(&self, r: &Relation, id: i64) -> Result<Value, WriteError> {
        let Some((target, links)) = self.shown_links(r, id)? else {
            return Ok(Value::Null);
        };
        let target = self.model.schema(target);
        let mut documents = Vec::new();
        for l in links {
            if let Some((document_id, _)) = self.rows.identity(target, l.other)? {
                documents.push(Value::String(document_id));
            }
        }
        Ok(match r.kind.is_to_many() {
            true => Value::Array(documents),
            false => documents.into_iter().next().unwrap_or(Value::Null),
        })
    }

    /// The links of relation `r` of component row `id` that a read shows, with the
    /// target's schema: a to-many's all, in their order; a to-one's the one it shows
    /// ([`keep_shown_to_one`]). `None` for a relation without a link table.
    fn shown_links(
        &self,
        r: &Relation,
        id: i64,
    ) -> Result<Option<(SchemaId, Vec<LinkRow>)>, WriteError> {
        let (Some(target), RelationStorage::LinkTable(lt)) = (r.target, &r.storage) else {
            return Ok(None);
        };
        let mut links = self.rows.links(lt, End::Owner, id)?;
        if !r.kind.is_to_many() {
            keep_shown_to_one(&mut links);
        }
        Ok(Some((target, links)))
    }

    /// Checks `given` as the data of a new document (`parse` with `creation`): for an
    /// update that makes a row (a new localization, a single type's first `PUT`), which
    /// Strapi validates as a creation, after `given` was parsed as an update's.
    pub fn check_as_creation(&self, given: &Map<String, Value>) -> Result<(), WriteError> {
        let shown = self.with_shown(|s| s.cloned()).unwrap_or(Value::Null);
        let parse = super::input::DataParse {
            model: self.model,
            schema: self.schema,
            data: given,
            shown: &shown,
            phase: super::input::Phase::of_data(self.schema),
            creation: true,
        };
        parse.parse().map(drop)
    }

    /// Inserts the draft (or only) row of a new version, with its parts; returns its id.
    /// `base` holds values copied from another locale.
    fn insert_version(
        &self,
        document_id: &str,
        input: &Input,
        locale: Option<&str>,
        inherited: &SharedFields,
    ) -> Result<i64, WriteError> {
        let dp = self.schema.draft_and_publish;
        let published_at = (!dp).then_some(self.now);
        self.resolve_targets(self.schema, input, locale)?;
        self.check_inherited_targets(inherited, locale)?;
        if !dp {
            // A draft-and-publish type checks `unique` when it publishes (two drafts may
            // share a value: `ext-unique-draft-then-publish`). Checked before the insert,
            // as Strapi validates first: a refused write takes no id from a sequence.
            self.check_unique(document_id, locale, input)?;
        }
        // Strapi's document service makes the components first, then its entity manager
        // inserts the row: a row the database refuses has taken their ids.
        let made = self.make_components(self.schema, Some(inherited), input, locale)?;
        let id = self.insert_entry(
            self.schema,
            document_id,
            locale,
            input,
            &inherited.scalars,
            published_at,
        )?;
        let row = WrittenRow {
            inherited: Some(inherited),
            ..self.version_row_of(id, locale)
        };
        self.write_parts(&row, input, made)?;
        Ok(id)
    }

    /// Inserts a row of a content type.
    fn insert_entry(
        &self,
        schema: &Schema,
        document_id: &str,
        locale: Option<&str>,
        input: &Input,
        base: &[(AttrId, StoredValue)],
        published_at: Option<i64>,
    ) -> Result<i64, WriteError> {
        let mut values: Vec<(&str, StoredValue)> = Vec::new();
        // Strapi computes `published_at` first, so it is a little earlier than the rest.
        for c in &schema.layout.columns {
            let v = match c.role {
                ColumnRole::Id | ColumnRole::CreatedBy | ColumnRole::UpdatedBy => continue,
                ColumnRole::DocumentId => StoredValue::Text(document_id.to_string()),
                ColumnRole::CreatedAt | ColumnRole::UpdatedAt => StoredValue::Timestamp(self.now),
                ColumnRole::PublishedAt => {
                    published_at.map_or(StoredValue::Null, StoredValue::Timestamp)
                }
                ColumnRole::Locale => {
                    locale.map_or(StoredValue::Null, |l| StoredValue::Text(l.to_string()))
                }
                ColumnRole::Attribute(a) => match attribute_value(schema, a, input, base) {
                    Some(v) => v,
                    None => continue,
                },
            };
            values.push((c.name.as_str(), v));
        }
        Ok(self.rows.insert(&schema.layout.table, &values)?)
    }

    /// Updates a document in one locale, or adds that locale to it. `NotFound` when the
    /// document exists in no locale.
    pub fn update(
        &self,
        document_id: &str,
        input: &Input,
        given: &Map<String, Value>,
        locale: Option<&str>,
        status: WriteStatus,
    ) -> Result<(), WriteError> {
        let versions = self.existing_versions(document_id, input, locale)?;
        let before = match self.sync_original(&versions, locale) {
            Some(id) => Some(self.shared_fields(id)?),
            None => None,
        };
        let dp = self.schema.draft_and_publish;
        let draft = self.draft_of(&versions, locale);
        // The version's published row, which a publish replaces (read here, once: nothing
        // before the publish adds or removes a row of this document).
        let published = versions
            .iter()
            .find(|v| v.locale.as_deref() == locale && dp && v.published)
            .map(|v| v.id);
        let written = match draft {
            None => {
                // A new localization: Strapi validates its data as a creation's, which
                // takes the non-localized attributes of an existing row.
                let source = self.rows.localization_source(self.schema, document_id)?;
                let creation = self.new_localization(document_id, given, locale, source)?;
                self.check_as_creation(&creation.data)?;
                let inherited = match source {
                    Some(id) => self
                        .shared_fields(id)?
                        .for_nil_of(self.schema, given)
                        .with_passwords_hashed_again(self.schema)?,
                    None => SharedFields::default(),
                };
                let draft = self.insert_version(document_id, input, locale, &inherited)?;
                let published = self.publish_if_asked(
                    document_id,
                    locale,
                    status,
                    Versions { draft, published },
                )?;
                published.unwrap_or(draft)
            }
            Some(id) => {
                let mut values = self.scalar_values(self.schema, input);
                values.push(("updated_at", StoredValue::Timestamp(self.now)));
                if !dp {
                    values.push(("published_at", StoredValue::Timestamp(self.now)));
                }
                self.resolve_targets(self.schema, input, locale)?;
                if !dp {
                    self.check_unique(document_id, locale, input)?;
                }
                let made = self.update_components(self.schema, id, &input.components, locale)?;
                self.rows.update(self.table(), id, &values)?;
                self.write_parts(&self.version_row_of(id, locale), input, made)?;
                let version = Versions {
                    draft: id,
                    published,
                };
                let published = self.publish_if_asked(document_id, locale, status, version)?;
                published.unwrap_or(id)
            }
        };
        if let (Some(before), Some(locale)) = (before, locale) {
            let after = self.shared_fields(written)?;
            // Strapi's i18n middleware: when the row the write returns differs from the
            // document's first row in its non-localized attributes, all of them go to the
            // other locales' rows of the returned row's state.
            if after != before {
                let published = !dp || status == WriteStatus::Published;
                self.sync_shared(document_id, locale, published, &after)?;
            }
        }
        Ok(())
    }

    /// The given scalar values as columns to set.
    fn scalar_values<'s>(&self, schema: &'s Schema, input: &Input) -> Vec<(&'s str, StoredValue)> {
        input
            .scalars
            .iter()
            .filter_map(|(a, v)| column(schema, *a).map(|c| (c, v.clone())))
            .collect()
    }

    /// Whether `attr` is shared by the locales of a document, as Strapi's i18n decides
    /// (`getNonLocalizedAttributes`): in a localized type, every attribute that does not
    /// say `localized: true`, but relations and uids: scalars, media, components and
    /// dynamic zones.
    fn is_non_localized(&self, attr: &Attribute) -> bool {
        self.schema.localized
            && attr.localized != Some(true)
            && match &attr.kind {
                AttributeKind::Scalar(ScalarType::Uid { .. }) | AttributeKind::Relation(_) => false,
                AttributeKind::Scalar(_)
                | AttributeKind::Media(_)
                | AttributeKind::Component(_)
                | AttributeKind::DynamicZone(_) => true,
            }
    }

    /// The non-localized attributes of row `id`.
    fn non_localized_values(&self, id: i64) -> Result<Vec<(AttrId, StoredValue)>, WriteError> {
        let attrs: Vec<&Attribute> = self
            .schema
            .attributes
            .iter()
            .filter(|a| self.is_non_localized(a) && a.column.is_some())
            .collect();
        let columns: Vec<&str> = attrs.iter().filter_map(|a| a.column.as_deref()).collect();
        // As Strapi's i18n holds them: the entry read into JavaScript.
        let values = self.rows.values_as_read(self.table(), id, &columns)?;
        Ok(attrs.iter().map(|a| a.id).zip(values).collect())
    }

    /// The row Strapi's i18n middleware compares a write's result with: the document's
    /// first row as its `findOne({ where: { documentId } })` finds it, in the order of the
    /// documents index (locale, then `published_at` with the database's order of NULLs:
    /// the draft first on SQLite and MySQL, the published row first on PostgreSQL).
    /// `None` when nothing is to be synced: a type that is not localized, or that shares
    /// no attribute between its locales, or a document in no other locale than `locale`
    /// (the sync would find no row to write).
    fn sync_original(&self, versions: &[Version], locale: Option<&str>) -> Option<i64> {
        let shares = self
            .schema
            .attributes
            .iter()
            .any(|a| self.is_non_localized(a));
        let other_locales = versions.iter().any(|v| v.locale.as_deref() != locale);
        if !shares || !other_locales {
            return None;
        }
        let drafts_first = self.rows.nulls_sort_first();
        versions
            .iter()
            .min_by(|a, b| {
                a.locale
                    .cmp(&b.locale)
                    .then((a.published == drafts_first).cmp(&(b.published == drafts_first)))
            })
            .map(|v| v.id)
    }

    /// The non-localized attributes of row `id`: scalar values, media files and
    /// component instances.
    fn shared_fields(&self, id: i64) -> Result<SharedFields, WriteError> {
        let media_attrs: Vec<&Attribute> = self
            .schema
            .attributes
            .iter()
            .filter(|a| matches!(a.kind, AttributeKind::Media(_)) && self.is_non_localized(a))
            .collect();
        let mut media = Vec::new();
        if !media_attrs.is_empty() {
            let links = self.rows.media_of(self.schema, id)?;
            for a in media_attrs {
                let files = links.iter().filter(|m| m.field == a.name);
                media.push((a.id, files.map(|m| m.file_id).collect()));
            }
        }
        Ok(SharedFields {
            scalars: self.non_localized_values(id)?,
            media,
            components: self.shared_components(id)?,
            given_nil: Vec::new(),
        })
    }

    /// The instances of row `id`'s non-localized component and dynamic-zone attributes
    /// (those whose row exists, as Strapi's `load` finds them; a zone's items of
    /// components it does not list are left out, as a read leaves them out), with their
    /// content per attribute.
    fn shared_components(&self, id: i64) -> Result<SharedComponents, WriteError> {
        let attrs: Vec<&Attribute> = self
            .schema
            .attributes
            .iter()
            .filter(|a| component_join(a).is_some() && self.is_non_localized(a))
            .collect();
        let mut shared = SharedComponents::default();
        if attrs.is_empty() {
            return Ok(shared);
        }
        let links = self.present_links(self.schema, id)?;
        for a in attrs {
            let mut list = Vec::new();
            let mut values = Vec::new();
            for (cs, l) in self.listed_instances(a, &links) {
                list.push((cs.id, l.cmp_id));
                values.push(self.component_content(cs, l.cmp_id)?);
            }
            shared.instances.push((a.id, list));
            shared.content.push(Value::Array(values));
        }
        Ok(shared)
    }

    /// The `_cmps` links of row `id` of `schema` whose component row exists
    /// ([`Rows::present_components_of`]): the components a read of the row shows.
    fn present_links(&self, schema: &Schema, id: i64) -> Result<Vec<ComponentLink>, WriteError> {
        let present = self.rows.present_components_of(schema, id)?;
        Ok(present.into_iter().map(|(_, link)| link).collect())
    }

    /// The links among `links` (a row's `_cmps` links) that fill component or zone
    /// attribute `a`, with their component: a zone's items of components it does not
    /// list are left out, as a read leaves them out.
    fn listed_instances<'l>(
        &self,
        a: &'l Attribute,
        links: &'l [ComponentLink],
    ) -> impl Iterator<Item = (&'a Schema, &'l ComponentLink)> + 'l
    where
        'a: 'l,
    {
        let model = self.model;
        links
            .iter()
            .filter(move |l| l.field == a.name)
            .filter_map(move |l| Some((model.by_uid(&l.component_type)?, l)))
            .filter(move |(cs, _)| match &a.kind {
                AttributeKind::DynamicZone(z) => z.components.contains(&cs.id),
                _ => true,
            })
    }

    /// What Strapi's i18n compares of a component instance (`removeIds` of its populated
    /// copy): its component, its values, its files, the rows its relations point at (a
    /// populated relation is equal when its target is), and its own components, in
    /// order; no component row id.
    fn component_content(&self, cs: &Schema, id: i64) -> Result<Value, WriteError> {
        let mut o = Map::new();
        o.insert("__component".into(), Value::from(cs.uid.as_str()));
        for (a, v) in self.component_values(cs, id)? {
            o.insert(a.name.clone(), stored_json(&v));
        }
        for m in self.rows.media_of(cs, id)? {
            push_to(&mut o, &m.field, Value::from(m.file_id));
        }
        for a in &cs.attributes {
            if let AttributeKind::Relation(r) = &a.kind
                && let RelationStorage::LinkTable(lt) = &r.storage
            {
                for l in self.rows.links(lt, End::Owner, id)? {
                    push_to(&mut o, &a.name, Value::from(l.other));
                }
            }
        }
        for (nested, l) in self.rows.present_components_of(cs, id)? {
            let value = self.component_content(nested, l.cmp_id)?;
            push_to(&mut o, &l.field, value);
        }
        Ok(Value::Object(o))
    }

    /// Strapi's `syncNonLocalizedAttributes`: every non-localized attribute of the written
    /// row goes to the other locales' rows of the same state (`updated_at` set); each
    /// media attribute's files are replaced, in the order the sync finds the rows
    /// ([`Rows::other_locale_rows`]), the rows side by side, so an attribute's files go
    /// to every row before the next attribute's.
    fn sync_shared(
        &self,
        document_id: &str,
        locale: &str,
        published: bool,
        fields: &SharedFields,
    ) -> Result<(), WriteError> {
        let mut values: Vec<(&str, StoredValue)> = fields
            .scalars
            .iter()
            .filter_map(|(a, v)| column(self.schema, *a).map(|c| (c, v.clone())))
            .collect();
        values.push(("updated_at", StoredValue::Timestamp(self.now)));
        if let Some(before) = &self.before_sync {
            let synced = fields
                .scalars
                .iter()
                .filter_map(|(a, _)| self.schema.attributes.get(a.index()));
            let mut columns = shown_scalar_columns(synced);
            columns.push(("updated_at", "updatedAt", Decode::DateTime));
            let shown = self.rows.shown_other_locales(
                self.schema,
                document_id,
                locale,
                published,
                &columns,
            )?;
            before.borrow_mut().extend(shown);
        }
        // The rows are found before any is updated (on PostgreSQL an update moves a row).
        let others = match fields.media.is_empty() && fields.components.instances.is_empty() {
            true => Vec::new(),
            false => self
                .rows
                .other_locale_rows(self.schema, document_id, locale, published)?,
        };
        self.sync_components(&others, published, fields)?;
        self.rows
            .update_other_locales(self.schema, document_id, locale, published, &values)?;
        for (attr, files) in &fields.media {
            let Some(a) = self.schema.attributes.get(attr.index()) else {
                continue;
            };
            for (row, _) in &others {
                self.write_media(self.schema, *row, a, files, true)?;
            }
        }
        Ok(())
    }

    /// The sync's `updateComponents` of rows `others`: each shared component attribute's
    /// old instances deleted and copies of `fields`' made, then the `_cmps` rows. Strapi
    /// updates the rows side by side (`async.map`), so each attribute is done in every
    /// row before the next attribute, and the copies of all rows are made as one list,
    /// each row one statement behind the one before ([`Rows::in_strapi_order_from`]).
    fn sync_components(
        &self,
        others: &[(i64, Option<String>)],
        published: bool,
        fields: &SharedFields,
    ) -> Result<(), WriteError> {
        // Per row, its attributes' joins with the copies made for it.
        let mut joins: Vec<Vec<(&Attribute, relations::ComponentJoin, Vec<_>)>> =
            others.iter().map(|_| Vec::new()).collect();
        for (attr, list) in &fields.components.instances {
            let Some(a) = self.schema.attributes.get(attr.index()) else {
                continue;
            };
            let Some(join) = component_join(a) else {
                continue;
            };
            let zone = join == relations::ComponentJoin::Zone;
            for &(row, _) in others {
                self.delete_old_components(self.schema, row, a, &[], zone)?;
            }
            // Every row's copies are made side by side, as one list, each row one
            // statement after the one before; each for its row's locale.
            let all: Vec<(SchemaId, i64, CopyFor<'_>)> = others
                .iter()
                .flat_map(|(_, locale)| {
                    let to = CopyFor {
                        published,
                        locale: locale.as_deref(),
                    };
                    list.iter().map(move |&(cs, id)| (cs, id, to))
                })
                .collect();
            let starts: Vec<u64> = (0..others.len() as u64)
                .flat_map(|row| std::iter::repeat_n(row, list.len()))
                .collect();
            // The sync runs after the request's transaction ([`Timing::OwnTransactions`]).
            let made = self.rows.timed(Timing::OwnTransactions, || {
                self.copy_instances(&all, &starts)
            })?;
            // Every row's update sets the attribute, to nothing when the row written has
            // none (a repeatable component's `deleteRelations` then still renumbers).
            for (i, row_joins) in joins.iter_mut().enumerate() {
                let copies = made
                    .get(i * list.len()..(i + 1) * list.len())
                    .unwrap_or_default();
                let refs = copies
                    .iter()
                    .map(|(cs, cmp_id)| relations::ComponentRef {
                        cmp_id: *cmp_id,
                        component_type: self.model.schema(*cs).uid.as_str().to_string(),
                    })
                    .collect();
                row_joins.push((a, join, refs));
            }
        }
        // Each row's `_cmps` rows are written by its own update, once its components are
        // made: row by row.
        for (&(row, _), row_joins) in others.iter().zip(&joins) {
            for (a, join, refs) in row_joins {
                self.write_component_join(self.schema, row, a, *join, refs)?;
            }
        }
        Ok(())
    }

    /// Deletes the document's rows in `scope`. A document that does not exist is no error.
    pub fn delete(&self, document_id: &str, scope: &LocaleScope) -> Result<(), WriteError> {
        let hit: Vec<i64> = self
            .rows
            .versions(self.schema, document_id)?
            .into_iter()
            .filter(|v| match scope {
                LocaleScope::All => true,
                LocaleScope::One(l) => v.locale.as_deref() == l.as_deref(),
            })
            .map(|v| v.id)
            .collect();
        self.rows.delete_rows(self.schema, &hit)?;
        Ok(())
    }

    /// Row `id` of the written type, a version in `locale`, as its relations are written.
    fn version_row_of<'l>(&'l self, id: i64, locale: Option<&'l str>) -> WrittenRow<'l> {
        WrittenRow {
            schema: self.schema,
            id,
            locale,
            inherited: None,
        }
    }

    /// Publishes the draft of (document, locale) when the type has draft and publish and
    /// the request asks for the published status.
    fn publish_if_asked(
        &self,
        document_id: &str,
        locale: Option<&str>,
        status: WriteStatus,
        version: Versions,
    ) -> Result<Option<i64>, WriteError> {
        if self.schema.draft_and_publish && status == WriteStatus::Published {
            return self.publish(document_id, locale, version).map(Some);
        }
        Ok(None)
    }

    /// Publishes `version.draft`, the draft of (document, locale), in place of
    /// `version.published`.
    fn publish(
        &self,
        document_id: &str,
        locale: Option<&str>,
        version: Versions,
    ) -> Result<i64, WriteError> {
        let Versions { draft, published } = version;
        // Relation targets looked up before are not reused past here: the publish adds
        // and removes rows of this type.
        self.lookups.borrow_mut().clear();
        self.check_published(document_id, locale, draft)?;
        let carried = match published {
            Some(id) => {
                let c = self.carry(id)?;
                self.rows.delete_row(self.schema, id)?;
                c
            }
            None => Carried::default(),
        };
        let mut set = self.passwords_hashed_again(draft)?;
        set.push(("published_at", StoredValue::Timestamp(self.now)));
        let new = self.rows.copy_row(self.schema, draft, &set)?;
        let mut to_published = |s: SchemaId, row: i64| self.row_in_state(s, row, true);
        let children = self
            .rows
            .copy_components(self.schema, draft, &mut to_published)?;
        for c in &children {
            self.rows.insert_component_link(self.schema, new, c)?;
        }
        self.publish_links(document_id, draft, new, &carried)?;
        self.rows.copy_media(self.schema, draft, new)?;
        Ok(new)
    }

    /// The password columns of row `id` as Strapi's `createEntry` writes them when it
    /// makes a row from one it read (a publish): its `applyTransforms` hashes the stored
    /// hash again (so the published row's hash is of the draft's hash, not of the
    /// password; Strapi's, kept: strata's rows are Strapi's). Component rows are not
    /// transformed (`createComponent`).
    fn passwords_hashed_again(&self, id: i64) -> Result<Vec<(&'a str, StoredValue)>, WriteError> {
        let passwords: Vec<&str> = self
            .schema
            .attributes
            .iter()
            .filter(|a| is_password(a))
            .filter_map(|a| a.column.as_deref())
            .collect();
        let values = self.rows.values(self.table(), id, &passwords)?;
        passwords
            .into_iter()
            .zip(values)
            .map(|(c, v)| Ok((c, hashed_again(v)?)))
            .collect()
    }

    /// The links of the old published row that the new one keeps something of.
    fn carry(&self, old: i64) -> Result<Carried, WriteError> {
        let mut c = Carried {
            existed: true,
            ..Carried::default()
        };
        for t in self.rows.touching(self.schema.id) {
            if !self.carry_needed(&t) {
                continue;
            }
            let mut links = self.rows.links(t.table, t.end, old)?;
            // The old row's links to itself go with it: the self-relation sync makes the
            // new row's (`unidirectional-relations.js` leaves out the rows whose source is
            // being republished too). Restoring them would point at the deleted row.
            if t.end == End::Target && t.owner == self.schema.id {
                links.retain(|l| l.other != old);
            }
            match t.end {
                End::Owner => c.owned.push((t.table.table.clone(), links)),
                End::Target => c.incoming.push((t.table.table.clone(), links)),
            }
        }
        Ok(c)
    }

    /// Whether [`Self::publish_links`] reads anything of the old published row's links in
    /// `t`: the one-way links others hold are moved over; of its own relations and their
    /// inverse sides, only the order at the far end is kept ([`Self::kept_order`]), so a
    /// table without that order column (or a self-relation, which takes the draft's) needs
    /// no read.
    fn carry_needed(&self, t: &Touching<'_>) -> bool {
        match t.end {
            End::Owner => {
                t.table.inverse_order.is_some()
                    && self.relation_target(t.owner, t.attribute) != Some(self.schema.id)
            }
            End::Target if self.mapped_here(t) => {
                t.table.owner_order.is_some() && t.owner != self.schema.id
            }
            End::Target => true,
        }
    }

    /// The row a link from a row of the given state points at for a target row: the
    /// target's version in that state (same document and locale) for a draft-and-publish
    /// type, the row itself otherwise.
    fn row_in_state(
        &self,
        schema: SchemaId,
        row: i64,
        published: bool,
    ) -> Result<Option<i64>, StoreError> {
        let s = self.model.schema(schema);
        if !s.draft_and_publish {
            return Ok(Some(row));
        }
        let Some((doc, locale)) = self.rows.identity(s, row)? else {
            return Ok(None);
        };
        self.rows.version_row(s, &doc, locale.as_deref(), published)
    }

    /// Whether `t` (a link table seen from its target end) is the inverse side of one of
    /// this schema's attributes.
    fn mapped_here(&self, t: &Touching<'_>) -> bool {
        self.mapping_relation(t).is_some()
    }

    /// Whether the attribute of this schema that is the inverse side of `t` relates a row
    /// to one row (the mapped side of a `oneToOne`, or a `manyToOne` mapped by a
    /// `oneToMany`).
    fn mapped_to_one(&self, t: &Touching<'_>) -> bool {
        self.mapping_relation(t)
            .is_some_and(|r| !r.kind.is_to_many())
    }

    /// This schema's relation that is the inverse side of `t`, if any.
    fn mapping_relation(&self, t: &Touching<'_>) -> Option<&'a Relation> {
        self.schema.attributes.iter().find_map(|a| match &a.kind {
            AttributeKind::Relation(r) => match &r.storage {
                RelationStorage::MappedBy {
                    owner,
                    owner_attribute,
                } if *owner == t.owner
                    && self
                        .model
                        .schema(*owner)
                        .attributes
                        .get(owner_attribute.index())
                        .is_some_and(|oa| oa.name == t.attribute) =>
                {
                    Some(r)
                }
                _ => None,
            },
            _ => None,
        })
    }

    /// The links of the new published row: the draft's owned links and inverse-side links
    /// with each other end mapped to its published version, and the one-way links others
    /// held to the old published row.
    fn publish_links(
        &self,
        document_id: &str,
        draft: i64,
        new: i64,
        carried: &Carried,
    ) -> Result<(), WriteError> {
        for t in self.rows.touching(self.schema.id) {
            let lt = t.table;
            match t.end {
                End::Owner => {
                    let Some(target) = self.relation_target(t.owner, t.attribute) else {
                        continue;
                    };
                    // A self-relation's pairs are re-created with the draft link's order
                    // values (`self-referential-relations.js`).
                    let own_kind = target == self.schema.id;
                    let keeps_draft_order =
                        !own_kind && self.first_publish_keeps_order(carried, t.owner, t.attribute);
                    let old = carried.owned(&lt.table);
                    let mut links = self.rows.links(lt, End::Owner, draft)?;
                    if self.owner_has_one(&t) {
                        match own_kind {
                            false => keep_shown_to_one(&mut links),
                            true => shown_to_one_first(&mut links),
                        }
                    }
                    let mut place = 0.0;
                    for l in links {
                        let Some(other) = self.row_in_state(target, l.other, true)? else {
                            continue;
                        };
                        place += 1.0;
                        if own_kind && l.other == draft {
                            // The row linked to itself: Strapi's self-relation sync makes
                            // that pair, after every other link ([`Self::sync_self_relations`]).
                            continue;
                        }
                        let (near, far) = if own_kind {
                            (l.owner_order, l.inverse_order)
                        } else {
                            let far = self.kept_order(
                                lt,
                                carried.existed,
                                old,
                                other,
                                l.inverse_order,
                                End::Owner,
                            )?;
                            let near = match keeps_draft_order {
                                true => l.owner_order,
                                false => lt.owner_order.as_ref().map(|_| place),
                            };
                            (near, far)
                        };
                        let created = self.far_order_created(lt, End::Owner, other, far)?;
                        let link = self.rows.insert_link(lt, new, other, near, created)?;
                        self.sync_order_later(lt, link, (near, far), (near, created));
                    }
                }
                End::Target if self.mapped_here(&t) => {
                    let old = carried.incoming(&lt.table);
                    let single_owner = self.owner_has_one(&t);
                    let own_kind = t.owner == self.schema.id;
                    let mut links = self.rows.links(lt, End::Target, draft)?;
                    if !own_kind && self.mapped_to_one(&t) {
                        keep_shown_to_one(&mut links);
                    }
                    let mut place = 0.0;
                    for l in links {
                        // A row linked to itself (a category its own parent): the owning
                        // side above has copied that link already.
                        if own_kind && l.other == draft {
                            continue;
                        }
                        let Some(other) = self.row_in_state(t.owner, l.other, true)? else {
                            continue;
                        };
                        place += 1.0;
                        if single_owner {
                            // The published row is created through `attachRelations`: a
                            // row at the other end that may link to one row of this type
                            // loses its links to other documents first.
                            self.unlink_other_documents(lt, other, document_id)?;
                        }
                        let (owner_order, near) = if own_kind {
                            (l.owner_order, l.inverse_order)
                        } else {
                            let owner_order = self.kept_order(
                                lt,
                                carried.existed,
                                old,
                                other,
                                l.owner_order,
                                End::Target,
                            )?;
                            (owner_order, lt.inverse_order.as_ref().map(|_| place))
                        };
                        let created = match own_kind {
                            true => owner_order,
                            false => self.far_order_created(lt, End::Target, other, owner_order)?,
                        };
                        let link = self.rows.insert_link(lt, other, new, created, near)?;
                        self.sync_order_later(lt, link, (owner_order, near), (created, near));
                    }
                }
                End::Target => {
                    for l in carried.incoming(&lt.table).unwrap_or_default() {
                        self.rows.restore_incoming_link(lt, l, new)?;
                    }
                }
            }
        }
        match &self.self_syncs {
            Some(pending) => {
                pending.borrow_mut().push((draft, new));
                Ok(())
            }
            None => self.sync_self_relations(draft, new),
        }
    }

    /// Strapi's self-relation sync after a publish (`self-referential-relations.js`): for
    /// each relation of the type to itself that holds its links, in attribute order, the
    /// draft's link to itself becomes the new row's link to itself, then the links other
    /// rows hold to the draft are given to their published versions (a one-way relation
    /// has no other way to get them: `nodes.seeAlso`, `next`). A pair that a link already
    /// joins gets the draft link's order values instead.
    fn sync_self_relations(&self, draft: i64, new: i64) -> Result<(), WriteError> {
        for a in &self.schema.attributes {
            let AttributeKind::Relation(r) = &a.kind else {
                continue;
            };
            let RelationStorage::LinkTable(lt) = &r.storage else {
                continue;
            };
            if r.target != Some(self.schema.id) {
                continue;
            }
            let mut pairs = Vec::new();
            for l in self.rows.links(lt, End::Owner, draft)? {
                if l.other == draft {
                    pairs.push((new, l));
                }
            }
            for l in self.rows.links(lt, End::Target, draft)? {
                if l.other == draft {
                    continue;
                }
                if let Some(source) = self.row_in_state(self.schema.id, l.other, true)? {
                    pairs.push((source, l));
                }
            }
            for (source, l) in pairs {
                let existing = self.rows.links(lt, End::Owner, source)?;
                match existing.iter().find(|e| e.other == new) {
                    Some(e) => {
                        self.rows
                            .set_link_orders(lt, e.id, l.owner_order, l.inverse_order)?;
                    }
                    None => {
                        self.rows
                            .insert_link(lt, source, new, l.owner_order, l.inverse_order)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The order value a published link keeps at the far end's list: the old published
    /// link's to the same row, else (first publish) the draft link's, else last; always
    /// last when the query's `fields` leave out `locale` (see `fields_omit_locale`).
    fn kept_order(
        &self,
        lt: &LinkTable,
        existed: bool,
        old: Option<&[LinkRow]>,
        other: i64,
        draft_value: Option<f64>,
        near: End,
    ) -> Result<Option<f64>, WriteError> {
        let far_column = match near {
            End::Owner => &lt.inverse_order,
            End::Target => &lt.owner_order,
        };
        if far_column.is_none() {
            return Ok(None);
        }
        if self.fields_omit_locale {
            return Ok(Some(self.max_order(lt, near, other)? + 1.0));
        }
        if let Some(l) = old.and_then(|o| o.iter().find(|l| l.other == other)) {
            let v = match near {
                End::Owner => l.inverse_order,
                End::Target => l.owner_order,
            };
            return Ok(v);
        }
        if !existed {
            return Ok(draft_value);
        }
        Ok(Some(self.max_order(lt, near, other)? + 1.0))
    }

    /// The far-end order value a published row's link to row `other` is created with:
    /// `kept`, its place once synced ([`Self::kept_order`]); or, while the sync waits for
    /// the answer ([`Self::answering_before_order_sync`]), the last place in `other`'s
    /// list, as Strapi's `entries.publish` creates it.
    fn far_order_created(
        &self,
        lt: &LinkTable,
        near: End,
        other: i64,
        kept: Option<f64>,
    ) -> Result<Option<f64>, WriteError> {
        let far_column = match near {
            End::Owner => &lt.inverse_order,
            End::Target => &lt.owner_order,
        };
        if self.order_syncs.is_none() || far_column.is_none() {
            return Ok(kept);
        }
        Ok(Some(self.max_order(lt, near, other)? + 1.0))
    }

    /// Leaves for [`Self::finish`] the change of link `link` from its `created` order
    /// values (owner, inverse) to its `synced` ones, when they differ.
    fn sync_order_later(
        &self,
        lt: &'a LinkTable,
        link: i64,
        synced: (Option<f64>, Option<f64>),
        created: (Option<f64>, Option<f64>),
    ) {
        if let Some(pending) = &self.order_syncs
            && synced != created
        {
            pending.borrow_mut().push(OrderSync {
                table: lt,
                link,
                owner_order: synced.0,
                inverse_order: synced.1,
            });
        }
    }

    /// The largest order value of the links of row `other` at the far end.
    fn max_order(&self, lt: &LinkTable, near: End, other: i64) -> Result<f64, WriteError> {
        Ok(match near {
            End::Owner => self.rows.max_inverse_order(lt, other)?,
            End::Target => self
                .rows
                .links(lt, End::Owner, other)?
                .iter()
                .filter_map(|l| l.owner_order)
                .fold(0.0, f64::max),
        })
    }

    /// Whether the owning attribute behind `t` links each owner row to one row of this
    /// type (manyToOne, oneToOne: this side is oneToMany or oneToOne).
    fn owner_has_one(&self, t: &Touching<'_>) -> bool {
        match self
            .model
            .schema(t.owner)
            .attribute(t.attribute)
            .map(|a| &a.kind)
        {
            Some(AttributeKind::Relation(r)) => !r.kind.is_to_many(),
            _ => false,
        }
    }

    /// Deletes the links of owner row `owner` in `lt` to rows of other documents than
    /// this write's.
    fn unlink_other_documents(
        &self,
        lt: &LinkTable,
        owner: i64,
        document_id: &str,
    ) -> Result<(), WriteError> {
        for l in self.rows.links(lt, End::Owner, owner)? {
            let doc = self.rows.identity(self.schema, l.other)?.map(|(d, _)| d);
            if doc.as_deref() != Some(document_id) {
                self.rows.delete_link(lt, l.id)?;
            }
        }
        Ok(())
    }

    /// Whether a publish gives the links of `owner`'s `attribute` the draft links' own
    /// order values instead of 1..n: Strapi's `bidirectional-relations.js` restores them on
    /// the owning side of a two-way `manyToMany` when the locale had no published row
    /// (and the published entry it matches by locale has one: not under `fields`).
    fn first_publish_keeps_order(
        &self,
        carried: &Carried,
        owner: SchemaId,
        attribute: &str,
    ) -> bool {
        if carried.existed || self.fields_omit_locale {
            return false;
        }
        let Some(AttributeKind::Relation(r)) = self
            .model
            .schema(owner)
            .attribute(attribute)
            .map(|a| &a.kind)
        else {
            return false;
        };
        r.kind == RelationKind::ManyToMany && matches!(r.side, RelationSide::Owner { .. })
    }

    fn relation_target(&self, owner: SchemaId, attribute: &str) -> Option<SchemaId> {
        match &self.model.schema(owner).attribute(attribute)?.kind {
            AttributeKind::Relation(r) => r.target,
            _ => None,
        }
    }

    /// Writes the components, media and relations given for row `id` of `schema`.
    /// `replace`: the row exists, so each given attribute's old parts go first.
    fn write_parts(
        &self,
        row: &WrittenRow<'_>,
        input: &Input,
        made: MadeComponents<'_>,
    ) -> Result<(), WriteError> {
        let WrittenRow { schema, id, .. } = *row;
        let replace = matches!(made, MadeComponents::Updated(_));
        match made {
            MadeComponents::Created(made) => self.link_new_components(row, made)?,
            MadeComponents::Updated(joins) => {
                for (a, join, set) in &joins {
                    self.write_component_join(schema, id, a, *join, set)?;
                }
            }
        }
        // In attribute order, as `attachRelations` writes them: the files a new
        // localization inherits (for what it leaves nil), else those given.
        for a in &schema.attributes {
            if !matches!(a.kind, AttributeKind::Media(_)) {
                continue;
            }
            let inherited = row.inherited.and_then(|i| i.media_of(a.id));
            let ids = match (inherited, input.media.iter().find(|(id, _)| *id == a.id)) {
                (Some(files), _) if !files.is_empty() => files.to_vec(),
                (_, Some((_, files))) => self.file_ids(files)?,
                _ => continue,
            };
            self.write_media(schema, id, a, &ids, replace)?;
        }
        if replace {
            for (attr, change) in &input.media_changes {
                if let Some(a) = schema.attributes.get(attr.index()) {
                    self.change_media(schema, id, a, change)?;
                }
            }
        }
        for (attr, change) in &input.relations {
            let Some(a) = schema.attributes.get(attr.index()) else {
                continue;
            };
            self.write_relation(row, a, change, !replace)?;
        }
        Ok(())
    }

    /// The components of a new row of `schema`, attribute by attribute in schema order
    /// (Strapi's `createComponents`, before the row itself is inserted): the instances
    /// given, or copies of those a new localization inherits.
    fn make_components<'s>(
        &self,
        schema: &'s Schema,
        inherited: Option<&SharedFields>,
        input: &Input,
        locale: Option<&str>,
    ) -> Result<MadeComponents<'s>, WriteError> {
        let mut made = Vec::new();
        for a in &schema.attributes {
            let single = match &a.kind {
                AttributeKind::Component(c) => !c.repeatable,
                AttributeKind::DynamicZone(_) => false,
                _ => continue,
            };
            let inherited = inherited.and_then(|i| i.components_of(a.id));
            let given = input.components.iter().find(|(id, _)| *id == a.id);
            let instances: Vec<(SchemaId, i64)> = match (inherited, given) {
                // A new row is a draft, or published in a type without drafts.
                (Some(list), _) => {
                    let to = CopyFor {
                        published: !schema.draft_and_publish,
                        locale,
                    };
                    let list: Vec<_> = list.iter().map(|&(cs, id)| (cs, id, to)).collect();
                    self.copy_instances(&list, &[])?
                }
                (None, Some((_, items))) => {
                    let ids = self.create_items(items, locale)?;
                    items.iter().map(|i| i.schema).zip(ids).collect()
                }
                (None, None) => continue,
            };
            made.push(NewComponents {
                attribute: a,
                single,
                instances,
            });
        }
        Ok(MadeComponents::Created(made))
    }

    /// The `_cmps` rows of a new row's components ([`Self::make_components`]), as a
    /// create's `attachRelations` writes them: a single component's without `order`,
    /// 1..n in a list.
    fn link_new_components(
        &self,
        row: &WrittenRow<'_>,
        made: Vec<NewComponents<'_>>,
    ) -> Result<(), WriteError> {
        for NewComponents {
            attribute,
            single,
            instances,
        } in made
        {
            for (i, (cs, cmp_id)) in instances.into_iter().enumerate() {
                self.rows.insert_component_link(
                    row.schema,
                    row.id,
                    &ComponentLink {
                        cmp_id,
                        component_type: self.model.schema(cs).uid.as_str().to_string(),
                        field: attribute.name.clone(),
                        order: (!single).then_some((i + 1) as f64),
                    },
                )?;
            }
        }
        Ok(())
    }

    /// Copies of component instances `list` (with everything under them), each for the
    /// row its [`CopyFor`] names: their relations point at the same targets in that
    /// row's state and, for i18n's copies, its locale, as Strapi's `transformData`
    /// resolves a copied relation by documentId, locale and status; a target without
    /// such a version is left out (a new localization refused it before anything was
    /// written: [`Self::check_inherited_targets`]).
    fn copy_instances(
        &self,
        list: &[(SchemaId, i64, CopyFor<'_>)],
        starts: &[u64],
    ) -> Result<Vec<(SchemaId, i64)>, WriteError> {
        let rows: Vec<(&Schema, i64, CopyFor<'_>)> = list
            .iter()
            .map(|(cs, id, to)| (self.model.schema(*cs), *id, *to))
            .collect();
        let mut map = |to: CopyFor<'_>, s: SchemaId, row: i64| self.row_for_copy(s, row, to);
        let copies = self.rows.copy_list(&rows, starts, &mut map)?;
        Ok(list.iter().map(|(cs, ..)| *cs).zip(copies).collect())
    }

    /// A new localization's copies of the shared components link their targets in its
    /// locale ([`Self::copy_instances`]). Strapi's transform of its data refuses a target
    /// that has no version there (`Document with id …, locale … not found`: no
    /// `allowMissingId`) before anything is written, so this looks first.
    fn check_inherited_targets(
        &self,
        inherited: &SharedFields,
        locale: Option<&str>,
    ) -> Result<(), WriteError> {
        if inherited.components.instances.is_empty() {
            return Ok(());
        }
        let to = CopyFor {
            published: !self.schema.draft_and_publish,
            locale,
        };
        let populate = copy_order::copy_populate(self.model, self.schema, false);
        let levels = copy_order::populate_levels(&populate);
        for (attr, list) in inherited.components_in_data_order() {
            let Some(a) = self.schema.attributes.get(attr.index()) else {
                continue;
            };
            let below = levels
                .iter()
                .find(|(root, _)| *root == a.name)
                .map_or(&[][..], |(_, below)| below.as_slice());
            let below = copy_order::populate_levels(below);
            for &(cs, id) in list {
                self.check_copy_targets(self.model.schema(cs), id, to, &below)?;
            }
        }
        Ok(())
    }

    /// [`Self::check_inherited_targets`] for component row `id` and the components under
    /// it, its attributes in the order Strapi loaded them: `levels`, the paths i18n
    /// populated under it as the database layer groups them ([`copy_order`]). Its
    /// relations' targets are looked up in the copy's locale; the first missing one is
    /// the error.
    fn check_copy_targets(
        &self,
        schema: &Schema,
        id: i64,
        to: CopyFor<'_>,
        levels: &[(String, Vec<String>)],
    ) -> Result<(), WriteError> {
        let mut components = None;
        for (name, below) in levels {
            let Some(a) = schema.attribute(name) else {
                continue;
            };
            match &a.kind {
                AttributeKind::Relation(r) => {
                    let (Some(target), RelationStorage::LinkTable(lt)) = (r.target, &r.storage)
                    else {
                        continue;
                    };
                    let ts = self.model.schema(target);
                    if !ts.localized || !self.schema.localized {
                        continue;
                    }
                    for l in self.rows.links(lt, End::Owner, id)? {
                        if self.row_for_copy(target, l.other, to)?.is_some() {
                            continue;
                        }
                        if let Some((doc, _)) = self.rows.identity(ts, l.other)? {
                            return Err(not_found_in(&TargetKey::DocumentId(doc), to.locale));
                        }
                    }
                }
                AttributeKind::Component(_) | AttributeKind::DynamicZone(_) => {
                    if components.is_none() {
                        components = Some(self.rows.components_of(schema, id)?);
                    }
                    let below = copy_order::populate_levels(below);
                    let held = components.iter().flatten().filter(|c| c.field == *name);
                    for c in held {
                        if let Some(cs) = self.model.by_uid(&c.component_type) {
                            self.check_copy_targets(cs, c.cmp_id, to, &below)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The row a copy's link points at for target row `row` ([`Self::copy_instances`]):
    /// between two localized types, the target document's version in the copy's locale
    /// and state; else the target's version in the copy's state ([`Self::row_in_state`]).
    fn row_for_copy(
        &self,
        schema: SchemaId,
        row: i64,
        to: CopyFor<'_>,
    ) -> Result<Option<i64>, StoreError> {
        let target = self.model.schema(schema);
        let locale = to
            .locale
            .filter(|_| target.localized && self.schema.localized);
        let Some(locale) = locale else {
            return self.row_in_state(schema, row, to.published);
        };
        let Some((doc, _)) = self.rows.identity(target, row)? else {
            return Ok(None);
        };
        self.rows
            .version_row(target, &doc, Some(locale), to.published)
    }

    /// The files of media attribute `a` of row `id`, in order (`files_related_mph`, order
    /// 1..n); `replace` removes the row's files of `a` first.
    fn write_media(
        &self,
        schema: &Schema,
        id: i64,
        a: &Attribute,
        file_ids: &[i64],
        replace: bool,
    ) -> Result<(), WriteError> {
        if replace {
            self.rows.delete_media(schema, id, Some(&a.name))?;
        }
        for (i, file_id) in file_ids.iter().enumerate() {
            self.rows.insert_media(
                schema,
                id,
                &MediaLink {
                    file_id: *file_id,
                    field: a.name.clone(),
                    order: Some((i + 1) as f64),
                },
            )?;
        }
        Ok(())
    }

    /// A media attribute's `connect` and `disconnect` on existing row `id`, as Strapi's
    /// entity manager runs them (`updateRelations`, morph relations): the files named in
    /// either are detached, then those connected attached after the row's last file, of
    /// any of its media attributes.
    fn change_media(
        &self,
        schema: &Schema,
        id: i64,
        a: &Attribute,
        change: &MediaChange,
    ) -> Result<(), WriteError> {
        let connect = self.file_ids(&change.connect)?;
        let mut detached = connect.clone();
        if let Some(file) = self.model.upload_file() {
            for f in &change.disconnect {
                detached.extend(self.file_row(file, f)?);
            }
        }
        self.rows
            .delete_media_files(schema, id, &a.name, &detached)?;
        if connect.is_empty() {
            return Ok(());
        }
        let start = self.rows.max_media_order(schema, id)?;
        for (i, file_id) in connect.iter().enumerate() {
            let link = MediaLink {
                file_id: *file_id,
                field: a.name.clone(),
                order: Some(start + (i + 1) as f64),
            };
            self.rows.insert_media(schema, id, &link)?;
        }
        Ok(())
    }

    /// The items of one list, made as Strapi makes them: side by side
    /// ([`Rows::in_strapi_order`]). Their row ids, in list order.
    /// `locale` is the entity's (its components' relations resolve in it).
    fn create_items(
        &self,
        items: &[ComponentInput],
        locale: Option<&str>,
    ) -> Result<Vec<i64>, WriteError> {
        self.rows.in_strapi_order(
            items,
            |item| self.create_nested(item, locale),
            |item, nested| self.insert_component(item, nested, locale),
        )
    }

    /// The components of a component instance, made before its row (each attribute in
    /// turn, each list's items side by side); the `_cmps` rows its row will need.
    fn create_nested(
        &self,
        item: &ComponentInput,
        locale: Option<&str>,
    ) -> Result<Vec<ComponentLink>, WriteError> {
        let cs = self.model.schema(item.schema);
        let mut nested = Vec::new();
        for (attr, items) in &item.input.components {
            let Some(a) = cs.attributes.get(attr.index()) else {
                continue;
            };
            let single = matches!(&a.kind, AttributeKind::Component(c) if !c.repeatable);
            let ids = self.create_items(items, locale)?;
            for (i, (child, cmp_id)) in items.iter().zip(ids).enumerate() {
                nested.push(ComponentLink {
                    cmp_id,
                    component_type: self.model.schema(child.schema).uid.as_str().to_string(),
                    field: a.name.clone(),
                    order: (!single).then_some((i + 1) as f64),
                });
            }
        }
        Ok(nested)
    }

    /// A component instance's row, once its components are made (`nested`): its values;
    /// then, as the work that follows it ([`Attachment`]s, one per attribute in schema
    /// order, as `attachRelations` writes them), its `_cmps` rows, its media and its
    /// relations.
    fn insert_component<'x>(
        &'x self,
        item: &'x ComponentInput,
        nested: Vec<ComponentLink>,
        locale: Option<&'x str>,
    ) -> Result<(i64, Vec<Attachment<'x, WriteError>>), WriteError> {
        let cs = self.model.schema(item.schema);
        let mut values: Vec<(&str, StoredValue)> = Vec::new();
        for c in &cs.layout.columns {
            if let ColumnRole::Attribute(a) = c.role
                && let Some(v) = attribute_value(cs, a, &item.input, &[])
            {
                values.push((c.name.as_str(), v));
            }
        }
        let id = self.rows.insert(&cs.layout.table, &values)?;
        let mut steps: Vec<(usize, Attachment<'x, WriteError>)> =
            self.rows.component_link_steps(cs, id, &nested);
        // `attachRelations` passes over an attribute with nothing to link (no statement).
        for (attr, files) in item.input.media.iter().filter(|(_, f)| !f.is_empty()) {
            if let Some(a) = cs.attributes.get(attr.index()) {
                steps.push((
                    attr.index(),
                    Box::new(move || {
                        let ids = self.file_ids(files)?;
                        self.write_media(cs, id, a, &ids, false)
                    }),
                ));
            }
        }
        for (attr, change) in item.input.relations.iter().filter(|(_, c)| c.links_any()) {
            if let Some(a) = cs.attributes.get(attr.index()) {
                steps.push((
                    attr.index(),
                    Box::new(move || {
                        let row = WrittenRow::component(cs, id, locale);
                        self.write_relation(&row, a, change, true)
                    }),
                ));
            }
        }
        steps.sort_by_key(|(index, _)| *index);
        Ok((id, steps.into_iter().map(|(_, step)| step).collect()))
    }

    /// Strapi's `updateComponents` for the component and dynamic-zone attributes given
    /// for existing row `id` of `schema` (`document-service/components.js`), then the
    /// `_cmps` rows its entity manager writes for them (`updateRelations`): attribute by
    /// attribute, the old components not kept are deleted (`deleteOldComponents`,
    /// `deleteOldDZComponents`), then each item is updated in place when it names one of
    /// the row's components by id, else created; once every attribute is done, the
    /// row's `_cmps` rows of each attribute are written by `relations::write_components`.
    fn update_components<'s>(
        &self,
        schema: &'s Schema,
        id: i64,
        given: &[(AttrId, Vec<ComponentInput>)],
        locale: Option<&str>,
    ) -> Result<MadeComponents<'s>, WriteError> {
        let mut joins: Vec<ComponentJoinSet<'s>> = Vec::new();
        for (attr, items) in given {
            let Some(a) = schema.attributes.get(attr.index()) else {
                continue;
            };
            let Some(join) = component_join(a) else {
                continue;
            };
            self.delete_old_components(
                schema,
                id,
                a,
                items,
                join == relations::ComponentJoin::Zone,
            )?;
            // `updateOrCreateComponent` for each item, side by side: the new items' rows
            // in the order of their work ([`Rows::in_strapi_order`]).
            let ids = self.rows.in_strapi_order(
                items,
                |item| match item.row() {
                    Some(cmp_id) => self
                        .update_component(item, cmp_id, locale)
                        .map(|()| Vec::new()),
                    None => self.create_nested(item, locale),
                },
                |item, nested| match item.row() {
                    Some(cmp_id) => Ok((cmp_id, Vec::new())),
                    None => self.insert_component(item, nested, locale),
                },
            )?;
            let mut set = Vec::new();
            for (item, cmp_id) in items.iter().zip(ids) {
                set.push(relations::ComponentRef {
                    cmp_id,
                    component_type: self.model.schema(item.schema).uid.as_str().to_string(),
                });
            }
            joins.push((a, join, set));
        }
        Ok(MadeComponents::Updated(joins))
    }

    /// The `_cmps` rows of component attribute `a` of row `id` after an update: the
    /// entity manager's `updateRelations` with `set` (`relations::write_components`).
    fn write_component_join(
        &self,
        schema: &Schema,
        id: i64,
        a: &Attribute,
        join: relations::ComponentJoin,
        set: &[relations::ComponentRef],
    ) -> Result<(), WriteError> {
        let Some(table) = schema.layout.cmps_table.as_deref() else {
            return Err(
                StoreError::Other(format!("{} has no components table", schema.uid)).into(),
            );
        };
        // A single component given null is `set: null`; anything else is a list.
        let set = match join {
            relations::ComponentJoin::One if set.is_empty() => None,
            _ => Some(set),
        };
        relations::write_components(&self.rows, table, id, &a.name, join, set)
    }

    /// `deleteOldComponents` / `deleteOldDZComponents`: the components attribute `a` of
    /// row `id` holds (those whose row exists, as Strapi's `load` finds them) that the
    /// items do not name are deleted with everything under them. An item naming a
    /// component the attribute does not hold (in a dynamic zone: id and uid) is refused
    /// before anything is deleted.
    fn delete_old_components(
        &self,
        schema: &Schema,
        id: i64,
        a: &Attribute,
        items: &[ComponentInput],
        zone: bool,
    ) -> Result<(), WriteError> {
        let mut held: Vec<(i64, &Schema)> = Vec::new();
        for old in self.rows.components_of(schema, id)? {
            if old.field != a.name {
                continue;
            }
            let Some(cs) = self.model.by_uid(&old.component_type) else {
                continue;
            };
            if self.rows.row_exists(cs, old.cmp_id)? {
                held.push((old.cmp_id, cs));
            }
        }
        // An item names a held row when its id's text is the row's, and in a zone its
        // component too. Sets, so that long lists cost one pass each.
        let held_key = |cmp_id: i64, cs: &Schema| (cmp_id.to_string(), zone.then_some(cs.id));
        let item_key =
            |item: &ComponentInput| item.id.clone().map(|id| (id, zone.then_some(item.schema)));
        let held_keys: HashSet<_> = held.iter().map(|&(c, cs)| held_key(c, cs)).collect();
        for item in items {
            if item_key(item).is_some_and(|key| !held_keys.contains(&key)) {
                // Strapi throws an `ApplicationError` for a component attribute and a
                // plain `Error` with status 400 for a dynamic zone.
                let message = format!(
                    "Some of the provided components in {} are not related to the entity",
                    a.name
                );
                return Err(match zone {
                    true => WriteError::Plain(message),
                    false => WriteError::Application(message),
                });
            }
        }
        let named: HashSet<_> = items.iter().filter_map(item_key).collect();
        for (cmp_id, cs) in held {
            if !named.contains(&held_key(cmp_id, cs)) {
                self.rows.delete_row(cs, cmp_id)?;
            }
        }
        Ok(())
    }

    /// `updateComponent`: component row `id` takes the item's values; its own
    /// components, media and relations are updated as an existing row's are.
    fn update_component(
        &self,
        item: &ComponentInput,
        id: i64,
        locale: Option<&str>,
    ) -> Result<(), WriteError> {
        let cs = self.model.schema(item.schema);
        let values = self.scalar_values(cs, &item.input);
        let made = self.update_components(cs, id, &item.input.components, locale)?;
        self.rows.update(&cs.layout.table, id, &values)?;
        self.write_parts(&WrittenRow::component(cs, id, locale), &item.input, made)
    }

    /// Checks that every file and relation target the input names exists, before any row
    /// is written, as Strapi's document service resolves them before it creates or
    /// updates (a refused write then takes no id from a sequence). documentIds first: the
    /// first that names nothing fails (`Document with id … not found`, Strapi's
    /// transform). Then the row ids given: the first type some of them do not exist in
    /// fails with their count (the entity validator's `checkRelationsExist`).
    fn resolve_targets(
        &self,
        schema: &Schema,
        input: &Input,
        locale: Option<&str>,
    ) -> Result<(), WriteError> {
        match self.targets_failure(schema, input, locale)? {
            None => Ok(()),
            Some(failure) => Err(WriteError::fields(vec![failure])),
        }
    }

    /// The checks of [`Self::resolve_targets`]: `Err` for a documentId that names
    /// nothing (or the database failing), the count failure of the row ids that name
    /// nothing, else `None`.
    pub fn targets_failure(
        &self,
        schema: &Schema,
        input: &Input,
        locale: Option<&str>,
    ) -> Result<Option<FieldError>, WriteError> {
        self.check_document_ids(schema, input, locale)?;
        if !input.has_parts() {
            return Ok(None);
        }
        let given = self.with_shown(|shown| {
            let data = shown.and_then(Value::as_object)?;
            Some(relations_store(self.model, schema, data))
        });
        if given.is_none_or(|store| names_documents_only(&store)) {
            return Ok(None);
        }
        let Some(shown) = self.shown_with_row_ids(schema, locale) else {
            return Ok(None);
        };
        let store = match shown.as_object() {
            Some(data) => relations_store(self.model, schema, data),
            None => Vec::new(),
        };
        for given in store {
            let target = self.model.schema(given.target);
            let missing = given.ids.len() - self.rows_named(target, &given.ids)?;
            if missing > 0 {
                return Ok(Some(FieldError {
                    path: Vec::new(),
                    message: format!(
                        "{missing} relation(s) of type {} associated with this entity do not exist",
                        target.uid
                    ),
                    value: Some(shown),
                }));
            }
        }
        Ok(None)
    }

    /// How many rows of `target` the ids name, as the validator's `count` of `id $in ids`
    /// finds them: a number or a text holding an integer names the row with that id
    /// ([`row_id_key`]); any other id names none.
    fn rows_named(&self, target: &Schema, ids: &[Option<Value>]) -> Result<usize, WriteError> {
        let named: HashSet<i64> = ids
            .iter()
            .flatten()
            .filter_map(|id| match row_id_key(id) {
                Some(TargetKey::Id(id)) => Some(id),
                _ => None,
            })
            .collect();
        let named: Vec<i64> = named.into_iter().collect();
        Ok(self.rows.existing_ids(target, &named)?.len())
    }

    /// The versions of the document an update names, or Strapi's answer when it has none:
    /// Strapi transforms the data's documentIds before it looks the document up, so a
    /// target that names nothing is its 400; else the 404.
    pub fn existing_versions(
        &self,
        document_id: &str,
        input: &Input,
        locale: Option<&str>,
    ) -> Result<Vec<Version>, WriteError> {
        let versions = self.rows.versions(self.schema, document_id)?;
        if versions.is_empty() {
            self.check_document_ids(self.schema, input, locale)?;
            return Err(WriteError::NotFound);
        }
        Ok(versions)
    }

    /// Strapi's transform of documentIds into row ids (`transformDataIdsVisitor`), which
    /// fails at the first that names nothing: the attributes in the order the body gives
    /// them (`traverseEntity`), components entered where they come; in a relation value its
    /// `set`, then `disconnect`, then `connect` (`mapRelation`), a to-one's list or `set`
    /// cut to its last entry first (`normalizeXToOneRelationValue`); files too.
    fn check_document_ids(
        &self,
        schema: &Schema,
        input: &Input,
        locale: Option<&str>,
    ) -> Result<(), WriteError> {
        if !input.has_parts() {
            return Ok(());
        }
        let body = self
            .shown
            .and_then(Value::as_object)
            .filter(|_| schema.id == self.schema.id);
        let mut attributes: Vec<&Attribute> = schema
            .attributes
            .iter()
            .filter(|a| input.has(a.id))
            .collect();
        if let Some(body) = body {
            let place = |name: &str| body.keys().position(|k| k == name).unwrap_or(usize::MAX);
            attributes.sort_by_key(|a| place(&a.name));
        }
        let is_document = |k: &&TargetKey| matches!(k, TargetKey::DocumentId(_));
        for a in attributes {
            match &a.kind {
                AttributeKind::Media(_) => {
                    let Some(file) = self.model.upload_file() else {
                        continue;
                    };
                    let given = input
                        .media
                        .iter()
                        .filter(|(id, _)| *id == a.id)
                        .flat_map(|(_, f)| f);
                    let changed = input
                        .media_changes
                        .iter()
                        .filter(|(id, _)| *id == a.id)
                        .flat_map(|(_, c)| c.disconnect.iter().chain(&c.connect));
                    for f in given.chain(changed).filter(is_document) {
                        if self.file_row(file, f)?.is_none() {
                            return Err(not_found_relation(f));
                        }
                    }
                }
                AttributeKind::Relation(r) => {
                    let Some(target) = r.target.map(|t| self.model.schema(t)) else {
                        continue;
                    };
                    for (_, change) in input.relations.iter().filter(|(id, _)| *id == a.id) {
                        let entries: Vec<&RelationRef> = match change {
                            RelationInput::Set { beside, .. } => {
                                written_entries(r.kind.is_to_many(), change)
                                    .iter()
                                    .chain(beside)
                                    .collect()
                            }
                            RelationInput::Change {
                                connect,
                                disconnect,
                            } => disconnect.iter().chain(connect).collect(),
                        };
                        for e in entries {
                            if is_document(&&e.key) {
                                self.target_rows(target, e, locale)?;
                            }
                            // Then its position's anchor, looked up as the entry with the
                            // position's keys over it (the transform's `getIds`).
                            let anchor = match &e.position {
                                Some(Position::Before(k) | Position::After(k)) => k,
                                _ => continue,
                            };
                            if is_document(&anchor) {
                                self.target_rows(target, &anchor_entry(e, anchor), locale)?;
                            }
                        }
                    }
                }
                AttributeKind::Component(_) | AttributeKind::DynamicZone(_) => {
                    for (_, items) in input.components.iter().filter(|(id, _)| *id == a.id) {
                        for item in items {
                            let cs = self.model.schema(item.schema);
                            self.check_document_ids(cs, &item.input, locale)?;
                        }
                    }
                }
                AttributeKind::Scalar(_) => {}
            }
        }
        Ok(())
    }

    /// The request's data as the relations-exist error shows it: each relation and media
    /// of `schema`, and of the components and zone items inside it at any depth, as
    /// Strapi's transform (`transformData`) hands it on ([`mapped_relation`]), its
    /// documentIds as the rows they name.
    pub fn shown_with_row_ids(&self, schema: &Schema, locale: Option<&str>) -> Option<Value> {
        let mut shown = self.with_shown(|s| s.cloned())?;
        if let Value::Object(data) = &mut shown {
            self.map_targets(schema, data, locale);
        }
        Some(shown)
    }

    /// [`Self::shown_with_row_ids`] on one object of `schema`: its relations and media
    /// mapped, its components and zone items (those whose `__component` names one) walked.
    fn map_targets(&self, schema: &Schema, data: &mut Map<String, Value>, locale: Option<&str>) {
        for (name, v) in data.iter_mut() {
            let Some(a) = schema.attribute(name) else {
                continue;
            };
            match &a.kind {
                AttributeKind::Media(_) => {
                    if let Some(file) = self.model.upload_file() {
                        let mut rows = |document_id: &str| {
                            let key = TargetKey::DocumentId(document_id.to_string());
                            self.file_row(file, &key)
                                .ok()
                                .flatten()
                                .into_iter()
                                .collect()
                        };
                        *v = mapped_relation(v, &mut rows);
                    }
                }
                AttributeKind::Relation(r) => {
                    let Some(target) = r.target else {
                        continue;
                    };
                    let target = self.model.schema(target);
                    let mut rows = |document_id: &str| {
                        let entry = RelationRef {
                            key: TargetKey::DocumentId(document_id.to_string()),
                            locale: None,
                            status: None,
                            position: None,
                            position_given: None,
                        };
                        self.target_rows(target, &entry, locale).unwrap_or_default()
                    };
                    let kept = match r.kind.is_to_many() {
                        true => v.clone(),
                        false => last_of_to_one(v),
                    };
                    *v = mapped_relation(&kept, &mut rows);
                }
                AttributeKind::Component(c) => {
                    let cs = self.model.schema(c.component);
                    for item in objects_mut(v) {
                        self.map_targets(cs, item, locale);
                    }
                }
                AttributeKind::DynamicZone(_) => {
                    for item in objects_mut(v) {
                        let cs = item
                            .get("__component")
                            .and_then(Value::as_str)
                            .and_then(|uid| self.model.by_uid(uid));
                        if let Some(cs) = cs {
                            self.map_targets(cs, item, locale);
                        }
                    }
                }
                AttributeKind::Scalar(_) => {}
            }
        }
    }

    /// The row of a file, if it exists.
    fn file_row(&self, file: &Schema, f: &TargetKey) -> Result<Option<i64>, StoreError> {
        match f {
            TargetKey::Id(id) => self.row_if_exists(file, *id),
            TargetKey::DocumentId(d) => self.version_row(file, d, None, false),
            TargetKey::NoRow(_) => Ok(None),
        }
    }

    /// The row ids of the files named, or Strapi's 400 for those that do not exist.
    fn file_ids(&self, files: &[TargetKey]) -> Result<Vec<i64>, WriteError> {
        let Some(file) = self.model.upload_file() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let mut missing = 0;
        for f in files {
            match self.file_row(file, f)? {
                Some(id) if !out.contains(&id) => out.push(id),
                Some(_) => {}
                None => missing += 1,
            }
        }
        if missing > 0 {
            return Err(WriteError::field(
                &[],
                format!(
                    "{missing} relation(s) of type plugin::upload.file associated with this entity do not exist"
                ),
                self.shown_with_row_ids(self.schema, None),
            ));
        }
        Ok(out)
    }

    /// The rows of `target` a relation entry names, as Strapi's document service resolves
    /// them (`transform/relations/utils/dp.js`, `utils/i18n.js`). The source is always
    /// the written type, also for a relation inside a component: `transformData` gets
    /// the content type's uid, locale and status, and its traversal enters components
    /// with them. A target without draft and publish has one row; from a
    /// draft-and-publish source (every write here writes the draft) the target's draft;
    /// from a source without draft and publish, the version the entry's `status` names,
    /// or both versions when it names none. Between two localized types the target is
    /// looked up in the source's `locale`; a localized target of a type that is not
    /// localized, in the entry's `locale`, else the default locale.
    fn target_rows(
        &self,
        target: &Schema,
        entry: &RelationRef,
        locale: Option<&str>,
    ) -> Result<Vec<i64>, WriteError> {
        let source = self.schema;
        let doc = match &entry.key {
            TargetKey::Id(id) => {
                return match self.row_if_exists(target, *id)? {
                    Some(id) => Ok(vec![id]),
                    None => Err(not_found_relation(&entry.key)),
                };
            }
            TargetKey::NoRow(_) => return Err(not_found_relation(&entry.key)),
            TargetKey::DocumentId(doc) => doc,
        };
        // `getRelationTargetLocale`: between two localized types the source's locale,
        // whatever the entry says; else the entry's, the default filled in for a source
        // that is not localized (`setDefaultLocaleToRelations`).
        let wanted = match (target.localized, source.localized && locale.is_some()) {
            (false, _) => None,
            (true, true) => locale,
            (true, false) => entry
                .locale
                .as_deref()
                .or(locale)
                .or(Some(self.default_locale)),
        };
        let version = |published: bool| self.version_row(target, doc, wanted, published);
        let one_version = !target.draft_and_publish || source.draft_and_publish;
        let rows: Vec<i64> = if one_version {
            version(false)?.into_iter().collect()
        } else {
            match entry.status.as_deref() {
                Some("published") => version(true)?.into_iter().collect(),
                Some(_) => version(false)?.into_iter().collect(),
                None => version(false)?.into_iter().chain(version(true)?).collect(),
            }
        };
        if rows.is_empty() {
            return Err(not_found_in(&entry.key, wanted));
        }
        Ok(rows)
    }

    /// [`Rows::version_row`], looked up once per write (see `lookups`).
    fn version_row(
        &self,
        schema: &Schema,
        document_id: &str,
        locale: Option<&str>,
        published: bool,
    ) -> Result<Option<i64>, StoreError> {
        let key = Lookup::Version(
            schema.id,
            document_id.to_string(),
            locale.map(str::to_string),
            published,
        );
        let found = self.looked_up(key, || {
            self.rows
                .version_row(schema, document_id, locale, published)
        })?;
        // The row found exists: the relations check counts it without asking again.
        if let Some(id) = found {
            self.lookups
                .borrow_mut()
                .entry(Lookup::Row(schema.id, id))
                .or_insert(Some(id));
        }
        Ok(found)
    }

    /// Row `id` of `schema` if it exists, looked up once per write (see `lookups`).
    fn row_if_exists(&self, schema: &Schema, id: i64) -> Result<Option<i64>, StoreError> {
        self.looked_up(Lookup::Row(schema.id, id), || {
            Ok(self.rows.row_exists(schema, id)?.then_some(id))
        })
    }

    fn looked_up(
        &self,
        key: Lookup,
        find: impl FnOnce() -> Result<Option<i64>, StoreError>,
    ) -> Result<Option<i64>, StoreError> {
        if let Some(found) = self.lookups.borrow().get(&key) {
            return Ok(*found);
        }
        let found = find()?;
        self.lookups.borrow_mut().insert(key, found);
        Ok(found)
    }

    /// Applies a relation value to row `id` (the draft, or a component row): the entries
    /// are resolved to rows here, the links are written by `relations.rs`.
    fn write_relation(
        &self,
        row: &WrittenRow<'_>,
        attr: &Attribute,
        change: &RelationInput,
        creating: bool,
    ) -> Result<(), WriteError> {
        let WrittenRow { id, locale, .. } = *row;
        let AttributeKind::Relation(r) = &attr.kind else {
            return Ok(());
        };
        let Some(target) = r.target.map(|t| self.model.schema(t)) else {
            return Ok(());
        };
        let Some(side) = relations::LinkSide::of(self.model, r) else {
            return Ok(());
        };
        let resolved = match change {
            RelationInput::Set { .. } => {
                let mut ids = Vec::new();
                for e in written_entries(r.kind.is_to_many(), change) {
                    for row in self.target_rows(target, e, locale)? {
                        ids.push((row, None));
                    }
                }
                relations::Resolved::Set(ids)
            }
            RelationInput::Change {
                connect,
                disconnect,
            } => {
                let mut c = Vec::new();
                let mut shown = relations::Positions::new();
                for e in connect {
                    let position = match &e.position {
                        None => None,
                        Some(Position::Start) => Some(relations::Place::Start),
                        Some(Position::End) => Some(relations::Place::End),
                        Some(Position::Before(k)) => Some(relations::Place::Before(
                            self.anchor_row(target, e, k, locale)?,
                        )),
                        Some(Position::After(k)) => Some(relations::Place::After(
                            self.anchor_row(target, e, k, locale)?,
                        )),
                    };
                    let printed = self.printed_position(e, position);
                    for row in self.target_rows(target, e, locale)? {
                        c.push((row, position));
                        if let Some(text) = &printed {
                            shown.insert(row, text.clone());
                        }
                    }
                }
                let mut d = Vec::new();
                for e in disconnect {
                    // Disconnecting what does not exist is no error; the database failing
                    // is.
                    match self.target_rows(target, e, locale) {
                        Ok(rows) => d.extend(rows),
                        Err(e @ WriteError::Store(_)) => return Err(e),
                        Err(_) => {}
                    }
                }
                relations::Resolved::Change {
                    connect: c,
                    disconnect: d,
                    shown,
                }
            }
        };
        relations::write(&self.rows, &side, id, &resolved, creating)
    }

    /// A connect entry's `position` as Strapi's errors print it: the object given, its
    /// anchor as the row id it names, and (`setDefaultLocaleToRelations`, for a written
    /// type that is not localized) the default locale added to an entry that names none.
    fn printed_position(&self, e: &RelationRef, place: Option<relations::Place>) -> Option<String> {
        let mut given = e.position_given.clone()?;
        match place {
            Some(relations::Place::Before(row)) => {
                given.insert("before".into(), Value::from(row));
            }
            Some(relations::Place::After(row)) => {
                given.insert("after".into(), Value::from(row));
            }
            _ => {}
        }
        if !self.schema.localized && e.locale.is_none() && !given.contains_key("locale") {
            given.insert(
                "locale".into(),
                Value::from(self.default_locale.to_string()),
            );
        }
        serde_json::to_string(&given).ok()
    }

    /// The row a position anchor names: its first row (the draft). Strapi looks the
    /// anchor up as the entry with the position's keys over it (`{...relation,
    /// ...position}`): the position's `locale` and `status`, else the entry's. An anchor
    /// that does not exist is a row id no link has, so the position fails as Strapi's
    /// does.
    fn anchor_row(
        &self,
        target: &Schema,
        connected: &RelationRef,
        key: &TargetKey,
        locale: Option<&str>,
    ) -> Result<i64, WriteError> {
        match self.target_rows(target, &anchor_entry(connected, key), locale) {
            Ok(rows) => rows.first().copied().ok_or_else(|| not_found_relation(key)),
            Err(e @ WriteError::Store(_)) => Err(e),
            Err(_) => match key {
                TargetKey::Id(i) => Ok(*i),
                TargetKey::DocumentId(_) | TargetKey::NoRow(_) => Err(not_found_relation(key)),
            },
        }
    }

    /// `unique` for the values given to a type without draft and publish, against other
    /// documents' rows of the same locale: its scalars, and those of the components given
    /// ([`Self::component_unique_failures`]).
    fn check_unique(
        &self,
        document_id: &str,
        locale: Option<&str>,
        input: &Input,
    ) -> Result<(), WriteError> {
        let mut failures = self.unique_failures(document_id, locale, input)?;
        if failures.is_empty() {
            return Ok(());
        }
        let validated = self
            .shown
            .and_then(Value::as_object)
            .map(|data| Validated { data, draft: false });
        super::order::in_yup_order(self.model, self.schema, &mut failures, validated);
        Err(WriteError::fields(failures))
    }

    /// The failures of [`Self::check_unique`], unsorted: also checked beside yup's
    /// other errors when those refused the data (`write::refusal`).
    pub fn unique_failures(
        &self,
        document_id: &str,
        locale: Option<&str>,
        input: &Input,
    ) -> Result<Vec<FieldError>, WriteError> {
        // What a condition hides is not checked for `unique` (`Input::unchecked`).
        let checked = |input: &Input| -> Vec<(AttrId, StoredValue)> {
            let scalars = input.scalars.iter();
            scalars
                .filter(|(a, _)| !input.unchecked.contains(a))
                .cloned()
                .collect()
        };
        let mut failures =
            self.scalar_unique_failures(&checked(input), document_id, locale, &[])?;
        let given: Vec<ComponentValues> = input
            .components
            .iter()
            .filter(|(a, _)| {
                let attr = self.schema.attributes.get(a.index());
                attr.is_some_and(|attr| holds_unique(self.model, attr))
            })
            .map(|(a, items)| {
                let items = items
                    .iter()
                    .map(|c| (c.schema, checked(&c.input)))
                    .collect();
                (*a, items)
            })
            .collect();
        failures.extend(self.component_unique_failures(&given, document_id, locale)?);
        Ok(failures)
    }

    /// `unique` for scalar `values` of the written type, against other documents' rows
    /// in the locale (their published rows, in a draft-and-publish type); null and empty
    /// values ([`unique_skips`]) and the attributes named in `skipped` are not checked.
    fn scalar_unique_failures(
        &self,
        values: &[(AttrId, StoredValue)],
        document_id: &str,
        locale: Option<&str>,
        skipped: &[&str],
    ) -> Result<Vec<super::error::FieldError>, WriteError> {
        let mut out = Vec::new();
        for (a, v) in values {
            let Some(attr) = self.schema.attributes.get(a.index()) else {
                continue;
            };
            let Some(col) = attr.column.as_deref() else {
                continue;
            };
            if attr.is_unique_checked()
                && !unique_skips(v)
                && !skipped.contains(&attr.name.as_str())
                && self
                    .rows
                    .value_taken(self.schema, col, v, document_id, locale, true)?
            {
                out.push(unique_failure(attr, v));
            }
        }
        Ok(out)
    }

    /// Strapi's `unique` inside the components of the document's own attributes
    /// (`components`: each attribute's items with their scalar values): a value given
    /// twice in one list (in a dynamic zone, by items of the same component) fails at each
    /// place, and so does a value that another document's row in the locale (its
    /// published row) holds in the same attribute. Empty and null values are not checked.
    fn component_unique_failures(
        &self,
        components: &[ComponentValues],
        document_id: &str,
        locale: Option<&str>,
    ) -> Result<Vec<super::error::FieldError>, WriteError> {
        let mut out = Vec::new();
        for (a, items) in components {
            let Some(attr) = self.schema.attributes.get(a.index()) else {
                continue;
            };
            let (zone, repeatable) = match &attr.kind {
                AttributeKind::DynamicZone(_) => (true, true),
                AttributeKind::Component(c) => (false, c.repeatable),
                _ => continue,
            };
            // How often each (component in a zone, attribute, value) is given in the list.
            let key = |cs: SchemaId, a: AttrId, v: &StoredValue| {
                (zone.then_some(cs), a, stored_json(v).to_string())
            };
            let mut given: HashMap<_, usize> = HashMap::new();
            for (cs_id, values) in items {
                for (ca, v) in values {
                    *given.entry(key(*cs_id, *ca, v)).or_default() += 1;
                }
            }
            for (i, (cs_id, values)) in items.iter().enumerate() {
                let cs = self.model.schema(*cs_id);
                for (ca, v) in values {
                    let Some(cattr) = cs.attributes.get(ca.index()) else {
                        continue;
                    };
                    let Some(col) = cattr.column.as_deref().filter(|_| !unique_skips(v)) else {
                        continue;
                    };
                    if !cattr.is_unique_checked() {
                        continue;
                    }
                    let twice =
                        repeatable && given.get(&key(*cs_id, *ca, v)).is_some_and(|n| *n > 1);
                    if twice
                        || self.rows.component_value_taken(
                            self.schema,
                            &HeldValue {
                                field: &attr.name,
                                component: cs,
                                column: col,
                                value: v,
                            },
                            document_id,
                            locale,
                        )?
                    {
                        let mut path = vec![attr.name.clone()];
                        path.extend(repeatable.then(|| i.to_string()));
                        path.push(cattr.name.clone());
                        out.push(super::error::FieldError {
                            path,
                            message: "This attribute must be unique".into(),
                            value: Some(stored_json(v)),
                        });
                    }
                }
            }
        }
        Ok(out)
    }

    /// The scalar values of the components that row `entity` holds in its own attributes,
    /// for [`Self::component_unique_failures`]: only when one of them has a unique value.
    /// `data` is what the row's conditions read: the attributes they hide, and the item
    /// attributes that the items' own conditions hide, are left out.
    fn stored_component_values(
        &self,
        entity: i64,
        data: &Map<String, Value>,
    ) -> Result<Vec<ComponentValues>, WriteError> {
        let attrs: Vec<&Attribute> = self
            .schema
            .attributes
            .iter()
            .filter(|a| holds_unique(self.model, a) && !super::condition::hidden(a, data))
            .collect();
        if attrs.is_empty() {
            return Ok(Vec::new());
        }
        let links = self.present_links(self.schema, entity)?;
        let mut out = Vec::new();
        for a in attrs {
            let mut items = Vec::new();
            for l in links.iter().filter(|l| l.field == a.name) {
                let Some(cs) = self.model.by_uid(&l.component_type) else {
                    continue;
                };
                let values: Vec<(AttrId, StoredValue)> = self
                    .component_values(cs, l.cmp_id)?
                    .into_iter()
                    .map(|(x, v)| (x.id, v))
                    .collect();
                let item = super::condition::stored_data(cs, &values);
                let shown = values
                    .into_iter()
                    .filter(|(x, _)| {
                        cs.attributes
                            .get(x.index())
                            .is_none_or(|x| !super::condition::hidden(x, &item))
                    })
                    .collect();
                items.push((cs.id, shown));
            }
            out.push((a.id, items));
        }
        Ok(out)
    }

    /// The validation of a published version (Strapi's `isDraft: false`), on the draft
    /// about to be published: the scalar rules of [`super::input::publish_failures`],
    /// `unique` against other documents' published rows in the locale, and the most
    /// items of a repeatable component or a dynamic zone. All failures, in attribute
    /// order.
    fn check_published(
        &self,
        document_id: &str,
        locale: Option<&str>,
        draft: i64,
    ) -> Result<(), WriteError> {
        let attrs: Vec<&Attribute> = self
            .schema
            .attributes
            .iter()
            .filter(|a| a.column.is_some())
            .collect();
        let columns: Vec<&str> = attrs.iter().filter_map(|a| a.column.as_deref()).collect();
        let stored = self.rows.values(self.table(), draft, &columns)?;
        let values: Vec<(AttrId, StoredValue)> = attrs.iter().map(|a| a.id).zip(stored).collect();
        // The data the draft's conditions read (`conditions.visible`): what they hide is
        // not checked.
        let data = super::condition::stored_data(self.schema, &values);
        let mut failures = super::input::publish_failures(self.schema, &values, &data, &[]);
        let hidden = |a: &&Attribute| super::condition::hidden(a, &data);
        // An attribute that already fails is not also checked for `unique`.
        let skipped: Vec<&str> = failures
            .iter()
            .filter_map(|f| f.path.first().map(String::as_str))
            .chain(
                self.schema
                    .attributes
                    .iter()
                    .filter(hidden)
                    .map(|a| a.name.as_str()),
            )
            .collect();
        let unique = self.scalar_unique_failures(&values, document_id, locale, &skipped)?;
        failures.extend(unique);
        self.component_failures(self.schema, draft, &data, &[], &mut failures)?;
        let stored = self.stored_component_values(draft, &data)?;
        failures.extend(self.component_unique_failures(&stored, document_id, locale)?);
        if failures.is_empty() {
            return Ok(());
        }
        super::order::in_yup_order(self.model, self.schema, &mut failures, None);
        Err(WriteError::fields(failures))
    }

    /// The rules of a published version on the stored components of `entity` (a row of
    /// `schema`), depth first, as Strapi's validator walks the draft it publishes: each
    /// item's attributes under its path (`pairs[0].key`, `tree.levels[1].depth`), then
    /// the attribute's own rules (yup puts a list's own error after its items'): a
    /// required single component that is null, the fewest and most items of a list
    /// ([`super::input::count_failure`]). Only the attributes with such a rule, or whose
    /// components have one, are read ([`has_publish_rules`]).
    fn component_failures(
        &self,
        schema: &Schema,
        entity: i64,
        data: &Map<String, Value>,
        prefix: &[String],
        out: &mut Vec<super::error::FieldError>,
    ) -> Result<(), WriteError> {
        let checked: Vec<&Attribute> = schema
            .attributes
            .iter()
            .filter(|a| has_own_rules(a) || holds_publish_rules(self.model, a))
            .filter(|a| !super::condition::hidden(a, data))
            .collect();
        if checked.is_empty() {
            return Ok(());
        }
        let links = self.present_links(schema, entity)?;
        for a in checked {
            let repeatable = !matches!(&a.kind, AttributeKind::Component(c) if !c.repeatable);
            let items: Vec<&ComponentLink> = links.iter().filter(|l| l.field == a.name).collect();
            let mut here = prefix.to_vec();
            here.push(a.name.clone());
            if holds_publish_rules(self.model, a) {
                for (i, l) in items.iter().enumerate() {
                    let Some(cs) = self.model.by_uid(&l.component_type) else {
                        continue;
                    };
                    let at = item_path(prefix, a, repeatable.then_some(i));
                    let values: Vec<(AttrId, StoredValue)> = self
                        .component_values(cs, l.cmp_id)?
                        .into_iter()
                        .map(|(a, v)| (a.id, v))
                        .collect();
                    let item = super::condition::stored_data(cs, &values);
                    out.extend(super::input::publish_failures(cs, &values, &item, &at));
                    self.component_failures(cs, l.cmp_id, &item, &at, out)?;
                }
            }
            if !repeatable {
                if a.required && items.is_empty() {
                    out.push(super::input::null_component(&here));
                }
                continue;
            }
            if let Some(mut f) = super::input::count_failure(a, &here, items.len(), &Value::Null) {
                f.value = Some(self.items_json(a, &items)?);
                out.push(f);
            }
        }
        Ok(())
    }

    /// The stored items of a list, as Strapi's errors show them ([`Self::item_json`]).
    fn items_json(&self, a: &Attribute, items: &[&ComponentLink]) -> Result<Value, WriteError> {
        let mut shown = Vec::new();
        for l in items {
            shown.extend(self.item_json(a, l)?);
        }
        Ok(Value::Array(shown))
    }

    /// One stored item of component attribute `a`, as Strapi's errors show it: with its
    /// id (and its `__component` in a dynamic zone); `None` for a component the model
    /// does not know.
    fn item_json(&self, a: &Attribute, l: &ComponentLink) -> Result<Option<Value>, WriteError> {
        let Some(cs) = self.model.by_uid(&l.component_type) else {
            return Ok(None);
        };
        let mut item = self.component_json(cs, l.cmp_id)?;
        if let (AttributeKind::DynamicZone(_), Some(o)) = (&a.kind, item.as_object_mut()) {
            o.insert(
                "__component".into(),
                Value::String(l.component_type.clone()),
            );
        }
        Ok(Some(item))
    }

    /// The stored values of component row `id`, attribute by attribute (those with a
    /// column).
    fn component_values<'s>(
        &self,
        cs: &'s Schema,
        id: i64,
    ) -> Result<Vec<(&'s Attribute, StoredValue)>, WriteError> {
        let attrs: Vec<&Attribute> = cs
            .attributes
            .iter()
            .filter(|a| a.column.is_some())
            .collect();
        let columns: Vec<&str> = attrs.iter().filter_map(|a| a.column.as_deref()).collect();
        let stored = self.rows.values(&cs.layout.table, id, &columns)?;
        Ok(attrs.into_iter().zip(stored).collect())
    }

    /// A component row's scalar attributes and id, as JSON.
    fn component_json(&self, cs: &Schema, id: i64) -> Result<Value, WriteError> {
        let mut o = Map::new();
        o.insert("id".into(), Value::from(id));
        for (a, v) in self.component_values(cs, id)? {
            o.insert(a.name.clone(), stored_json(&v));
        }
        let parts = || cs.attributes.iter().filter(|a| a.column.is_none());
        if parts().next().is_none() {
            return Ok(Value::Object(o));
        }
        let files = self.rows.media_of(cs, id)?;
        let nested = self.present_links(cs, id)?;
        for a in parts() {
            let value = match &a.kind {
                AttributeKind::Scalar(_) => continue,
                AttributeKind::Media(m) => {
                    let ids = files
                        .iter()
                        .filter(|f| f.field == a.name)
                        .map(|f| f.file_id);
                    transformed_set(ids.collect(), m.multiple)
                }
                AttributeKind::Component(_) | AttributeKind::DynamicZone(_) => {
                    let items: Vec<&ComponentLink> =
                        self.listed_instances(a, &nested).map(|(_, l)| l).collect();
                    match &a.kind {
                        AttributeKind::Component(c) if !c.repeatable => match items.first() {
                            Some(l) => self.item_json(a, l)?.unwrap_or_default(),
                            None => Value::Null,
                        },
                        _ => self.items_json(a, &items)?,
                    }
                }
                AttributeKind::Relation(r) => self.published_targets(r, id)?,
            };
            o.insert(a.name.clone(), value);
        }
        Ok(Value::Object(o))
    }

    /// The targets of relation `r` of component row `id` as the publish's transform of
    /// the draft it read gives them to the validator: the published version of each
    /// target shown (a to-one's first: [`keep_shown_to_one`]), those without one left
    /// out (`allowMissingId`), as `{"set": [{"id": …}]}`; a to-one without a target is
    /// `null`.
    fn published_targets(&self, r: &Relation, id: i64) -> Result<Value, WriteError> {
        let Some((target, links)) = self.shown_links(r, id)? else {
            return Ok(Value::Null);
        };
        if links.is_empty() && !r.kind.is_to_many() {
            return Ok(Value::Null);
        }
        let mut rows = Vec::new();
        for l in links {
            rows.extend(self.row_in_state(target, l.other, true)?);
        }
        Ok(transformed_set(rows, true))
    }
}

/// Where an item of component attribute `attr` sits in the document, for an error's path:
/// `prefix` + the attribute + its place in a list (`["tree", "levels", "1"]`).
fn item_path(prefix: &[String], attr: &Attribute, index: Option<usize>) -> Vec<String> {
    let mut at = prefix.to_vec();
    at.push(attr.name.clone());
    at.extend(index.map(|i| i.to_string()));
    at
}

/// Whether a published version checks something in `schema`'s values (or in a component
/// it holds) that its draft did not: `required`, a minimum, `regex`, the email and uid
/// patterns ([`super::input::publish_failures`]).
fn has_publish_rules(model: &Model, schema: &Schema) -> bool {
    schema.attributes.iter().any(|a| match &a.kind {
        AttributeKind::Scalar(ty) => {
            let c = &a.constraints;
            a.required
                || c.min.is_some()
                || c.min_length.is_some()
                || c.regex.is_some()
                || matches!(ty, ScalarType::Email | ScalarType::Uid { .. })
        }
        AttributeKind::Component(_) | AttributeKind::DynamicZone(_) => {
            has_own_rules(a) || holds_publish_rules(model, a)
        }
        AttributeKind::Media(_) | AttributeKind::Relation(_) => false,
    })
}

/// Whether component or zone attribute `a` has a rule of its own that a published
/// version checks: `required` on a single component, or a count on a list.
fn has_own_rules(a: &Attribute) -> bool {
    match &a.kind {
        AttributeKind::Component(c) if c.repeatable => c.min.is_some() || c.max.is_some(),
        AttributeKind::Component(_) => a.required,
        AttributeKind::DynamicZone(z) => z.min.is_some() || z.max.is_some(),
        _ => false,
    }
}

/// The columns of the scalar attributes among `attrs`, each with the key the API shows
/// it under and how it decodes ([`Rows::shown_row`], [`Rows::shown_other_locales`]).
fn shown_scalar_columns<'s>(
    attrs: impl Iterator<Item = &'s Attribute>,
) -> Vec<(&'s str, &'s str, Decode)> {
    attrs
        .filter_map(|a| Some((a.column.as_deref()?, a.name.as_str(), a.kind.scalar()?)))
        .map(|(c, name, t)| (c, name, Decode::for_scalar(t)))
        .collect()
}

/// The objects of a component's or zone's value: the object, or each object of a list.
pub(super) fn objects_mut(v: &mut Value) -> Vec<&mut Map<String, Value>> {
    match v {
        Value::Object(o) => vec![o],
        Value::Array(items) => items.iter_mut().filter_map(Value::as_object_mut).collect(),
        _ => Vec::new(),
    }
}

/// Whether `data` gives a relation or a media of `schema`, or a component or zone that
/// may hold one (at any depth): the values an error shows as the rows they name.
pub fn gives_targets(model: &Model, schema: &Schema, data: &Map<String, Value>) -> bool {
    schema
        .attributes
        .iter()
        .any(|a| data.contains_key(&a.name) && holds_targets(model, a, 0))
}

/// Whether attribute `a` is a relation or a media, or a component or zone whose
/// components hold one (components nest at most [`MAX_COMPONENT_NESTING`] deep here).
fn holds_targets(model: &Model, a: &Attribute, depth: usize) -> bool {
    let uids = match &a.kind {
        AttributeKind::Relation(_) | AttributeKind::Media(_) => return true,
        AttributeKind::Component(c) => std::slice::from_ref(&c.component),
        AttributeKind::DynamicZone(z) => z.components.as_slice(),
        AttributeKind::Scalar(_) => return false,
    };
    depth < MAX_COMPONENT_NESTING
        && uids.iter().any(|u| {
            model
                .schema(*u)
                .attributes
                .iter()
                .any(|x| holds_targets(model, x, depth + 1))
        })
}

/// How deep [`holds_targets`] looks into components inside components.
const MAX_COMPONENT_NESTING: usize = 16;

/// Whether `data` gives a value that a `unique` test checks: of a unique attribute of
/// `schema`, or of a component list that may hold one.
pub fn gives_unique(model: &Model, schema: &Schema, data: &Map<String, Value>) -> bool {
    schema
        .attributes
        .iter()
        .any(|a| data.contains_key(&a.name) && (a.is_unique_checked() || holds_unique(model, a)))
}

/// Whether a component that attribute `a` may hold has a unique attribute of its own.
fn holds_unique(model: &Model, a: &Attribute) -> bool {
    let uids = match &a.kind {
        AttributeKind::Component(c) => std::slice::from_ref(&c.component),
        AttributeKind::DynamicZone(z) => z.components.as_slice(),
        _ => return false,
    };
    uids.iter().any(|u| {
        model
            .schema(*u)
            .attributes
            .iter()
            .any(|x| x.is_unique_checked())
    })
}

/// Whether a component that attribute `a` may hold has a rule of a published version
/// ([`has_publish_rules`]).
fn holds_publish_rules(model: &Model, a: &Attribute) -> bool {
    let uids = match &a.kind {
        AttributeKind::Component(c) => std::slice::from_ref(&c.component),
        AttributeKind::DynamicZone(z) => z.components.as_slice(),
        _ => return false,
    };
    uids.iter()
        .any(|u| has_publish_rules(model, model.schema(*u)))
}

/// A stored value as JSON, for the `value` of an error.
/// How attribute `a`'s components are joined to its row, if it holds components.
fn component_join(a: &Attribute) -> Option<relations::ComponentJoin> {
    match &a.kind {
        AttributeKind::Component(c) if c.repeatable => Some(relations::ComponentJoin::Many),
        AttributeKind::Component(_) => Some(relations::ComponentJoin::One),
        AttributeKind::DynamicZone(_) => Some(relations::ComponentJoin::Zone),
        _ => None,
    }
}

/// Appends `value` to the list at `key` of `o`.
fn push_to(o: &mut Map<String, Value>, key: &str, value: Value) {
    match o.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
        Value::Array(list) => list.push(value),
        other => *other = Value::Array(vec![other.take(), value]),
    }
}

fn stored_json(v: &StoredValue) -> Value {
    match v {
        StoredValue::Null | StoredValue::Blob(_) => Value::Null,
        StoredValue::JsonBoolean(b) => Value::Bool(*b),
        StoredValue::Integer(i) | StoredValue::Timestamp(i) => Value::from(*i),
        StoredValue::Real(f) => Value::from(*f),
        StoredValue::Text(t) => Value::String(t.clone()),
    }
}

fn is_password(a: &Attribute) -> bool {
    matches!(a.kind, AttributeKind::Scalar(ScalarType::Password))
}

/// A stored password as Strapi's `applyTransforms` writes it into a row it creates from
/// one it read: its text (the stored hash) hashed.
fn hashed_again(v: StoredValue) -> Result<StoredValue, WriteError> {
    match v {
        StoredValue::Text(t) => crate::store::import::writer::hash_password(&t)
            .map(StoredValue::Text)
            .map_err(|e| WriteError::Store(StoreError::Other(e))),
        v => Ok(v),
    }
}

fn unique_failure(attr: &Attribute, v: &StoredValue) -> super::error::FieldError {
    super::error::FieldError {
        path: vec![attr.name.clone()],
        message: "This attribute must be unique".into(),
        value: Some(stored_json(v)),
    }
}

/// The value a new row gets for a scalar attribute: the one given, else the one copied
/// from another locale, else the schema's default; `None` leaves the column NULL.
fn attribute_value(
    schema: &Schema,
    attr: AttrId,
    input: &Input,
    base: &[(AttrId, StoredValue)],
) -> Option<StoredValue> {
    // `base` holds only what the request leaves nil ([`SharedFields::for_nil_of`]).
    if let Some((_, v)) = base.iter().find(|(a, _)| *a == attr) {
        return Some(v.clone());
    }
    if let Some((_, v)) = input.scalars.iter().find(|(a, _)| *a == attr) {
        return Some(v.clone());
    }
    let a = schema.attributes.get(attr.index())?;
    let default = a.default.as_ref()?;
    super::input::default_value(a, default)
}

/// The files of media attribute `name` among `files` (a row's, in order) as a request
/// gives them: a list of ids, or one id or `null`.
/// Row ids as Strapi's data transform writes a relation or media value it resolved:
/// `{"set": [{"id": …}]}`; a single one without a row is `null`.
fn transformed_set(ids: Vec<i64>, multiple: bool) -> Value {
    if ids.is_empty() && !multiple {
        return Value::Null;
    }
    let set = ids.into_iter().map(|id| serde_json::json!({ "id": id }));
    serde_json::json!({ "set": set.collect::<Vec<_>>() })
}

fn files_given(files: &[MediaLink], name: &str, multiple: bool) -> Value {
    let mut ids = files
        .iter()
        .filter(|m| m.field == name)
        .map(|m| Value::from(m.file_id));
    match multiple {
        true => Value::Array(ids.collect()),
        false => ids.next().unwrap_or(Value::Null),
    }
}

/// Keeps, of a draft's links through a to-one relation, the one a read of the draft shows.
///
/// Strapi publishes a draft from a read of it (`publish` in the document service's
/// `repository.js` populates the draft, then creates the published row from what it read),
/// and a read of a to-one shows one row: the first of its statement, which has no order
/// (`XtoOne` in `@strapi/database`'s `populate/apply.js`). A draft can hold several links
/// through a to-one, since a creation keeps every entry of a `connect`; the published row
/// then gets one link, to the published version of the row strata's read shows (the lowest
/// target id, as `related_select` orders a relation without an order column), or none
/// when that row has no published version.
fn keep_shown_to_one(links: &mut Vec<LinkRow>) {
    shown_to_one_first(links);
    links.truncate(1);
}

/// Moves the link a read of the draft shows ([`keep_shown_to_one`]) to the front, the
/// others keeping their order: a self-relation's publish makes that pair first (the
/// published row's creation), then Strapi's self-relation sync adds the draft's other
/// pairs (`self-referential-relations.js`), so a to-one to its own type can hold several.
fn shown_to_one_first(links: &mut [LinkRow]) {
    if let Some(i) = links
        .iter()
        .enumerate()
        .min_by_key(|(_, l)| l.other)
        .map(|(i, _)| i)
    {
        links[..=i].rotate_right(1);
    }
}
