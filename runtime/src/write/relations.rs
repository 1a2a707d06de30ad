//! The link rows of one row's relation attribute, written as Strapi's entity manager
//! writes them (`@strapi/database/dist/entity-manager`: `attachRelations` on create,
//! `updateRelations` on update, with `regular-relations.js` and `relations-orderer.js`).
//!
//! The caller (`document.rs`) has already resolved every entry to a row id; this module
//! only knows the link table: which links to delete, insert or move, and the values of
//! the order columns on both ends.
//!
//! Strapi sees a link table from the attribute being written: the *near* column holds the
//! written row (`joinColumn`), the *far* column the linked rows (`inverseJoinColumn`). The
//! near order column (`orderColumnName`: `tag_ord` from an article, `article_ord` from a
//! tag) exists when the near side relates to many; the far order column
//! (`inverseOrderColumnName`) when the relation is two-way and the far side relates to
//! many. Both are read here from the layout, which has exactly those columns.
//!
//! The statements and their order are Strapi's, because the values they leave depend on
//! it: ids are consumed by upserts that hit an existing link (SQLite, PostgreSQL and MySQL
//! all number the conflicting row), and `cleanOrderColumns` renumbers an order column with
//! `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)` run by the database itself, so ties
//! and NULLs are ordered as each database orders them.

use std::collections::{HashMap, HashSet};

use sea_query::{
    Alias, Expr, ExprTrait, Func, IntoIden, OnConflict, Order, Query as Sql, TableRef,
    UpdateStatement, WindowStatement,
};

use super::error::WriteError;
use crate::schema::{
    AttributeKind, LinkTable, Model, Relation, RelationKind, RelationSide, RelationStorage,
    SchemaId,
};
use crate::store::StoreError;
use crate::store::rows::{End, LinkRow, Rows};
use crate::store::seam::{Change, query_map};
use crate::store::sql::Dialect;

/// A relation attribute seen from the row being written.
pub struct LinkSide<'m> {
    /// The link table.
    pub table: &'m LinkTable,
    /// The end that holds the row being written (`Owner` for the owning side, `Target`
    /// for a `mappedBy` side).
    pub near: End,
    /// Whether the row being written may link to many rows.
    pub near_to_many: bool,
    /// Whether a row at the far end may link to many rows at the near end.
    pub far_to_many: bool,
    /// Whether the relation is declared on both sides (`inversedBy` / `mappedBy`).
    pub bidirectional: bool,
    /// The schema of the rows at the near end (the written row's), when known.
    pub near_schema: Option<SchemaId>,
    /// The schema of the rows at the far end.
    pub far_schema: Option<SchemaId>,
}

impl<'m> LinkSide<'m> {
    /// The side of relation `r` (an attribute of the row's schema); `None` for relations
    /// without a link table (morph relations).
    pub fn of(model: &'m Model, r: &'m Relation) -> Option<Self> {
        match &r.storage {
            RelationStorage::LinkTable(lt) => Some(LinkSide {
                table: lt,
                near: End::Owner,
                near_to_many: r.kind.is_to_many(),
                far_to_many: r.kind.inverse().is_to_many() && r.kind != RelationKind::OneToOne,
                bidirectional: !matches!(r.side, RelationSide::OneWay),
                near_schema: owner_of(model, lt),
                far_schema: r.target,
            }),
            RelationStorage::MappedBy {
                owner,
                owner_attribute,
            } => {
                let oa = model
                    .schema(*owner)
                    .attributes
                    .get(owner_attribute.index())?;
                let AttributeKind::Relation(o) = &oa.kind else {
                    return None;
                };
                let RelationStorage::LinkTable(lt) = &o.storage else {
                    return None;
                };
                Some(LinkSide {
                    table: lt,
                    near: End::Target,
                    near_to_many: r.kind.is_to_many(),
                    far_to_many: o.kind.is_to_many(),
                    bidirectional: true,
                    near_schema: o.target,
                    far_schema: Some(*owner),
                })
            }
            _ => None,
        }
    }

    /// The near order column (Strapi's `orderColumnName`).
    fn near_order(&self) -> Option<&str> {
        match self.near {
            End::Owner => self.table.owner_order.as_deref(),
            End::Target => self.table.inverse_order.as_deref(),
        }
    }

    /// The far order column (Strapi's `inverseOrderColumnName`).
    fn far_order(&self) -> Option<&str> {
        match self.near {
            End::Owner => self.table.inverse_order.as_deref(),
            End::Target => self.table.owner_order.as_deref(),
        }
    }

    fn near_column(&self) -> &str {
        match self.near {
            End::Owner => &self.table.owner_column,
            End::Target => &self.table.target_column,
        }
    }

    fn far_column(&self) -> &str {
        match self.near {
            End::Owner => &self.table.target_column,
            End::Target => &self.table.owner_column,
        }
    }

    fn far_end(&self) -> End {
        match self.near {
            End::Owner => End::Target,
            End::Target => End::Owner,
        }
    }

    /// The near order value of a link.
    fn near_value(&self, l: &LinkRow) -> Option<f64> {
        match self.near {
            End::Owner => l.owner_order,
            End::Target => l.inverse_order,
        }
    }

    /// The far order value of a link.
    fn far_value(&self, l: &LinkRow) -> Option<f64> {
        match self.near {
            End::Owner => l.inverse_order,
            End::Target => l.owner_order,
        }
    }

    /// Strapi's `isOneToAny` of the written attribute (`oneToOne`, `oneToMany`).
    fn one_to_any(&self) -> bool {
        !self.far_to_many
    }

    /// Strapi's `isAnyToOne` (`oneToOne`, `manyToOne`).
    fn any_to_one(&self) -> bool {
        !self.near_to_many
    }

    /// Strapi's `isManyToAny` (`manyToOne`, `manyToMany`).
    fn many_to_any(&self) -> bool {
        self.far_to_many
    }
}

/// The schema whose attribute owns link table `lt`.
fn owner_of(model: &Model, lt: &LinkTable) -> Option<SchemaId> {
    model.schemas().iter().find_map(|s| {
        s.attributes.iter().find_map(|a| match &a.kind {
            AttributeKind::Relation(Relation {
                storage: RelationStorage::LinkTable(l),
                ..
            }) if l.table == lt.table => Some(s.id),
            _ => None,
        })
    })
}

/// Where `connect` places an entry (anchors are row ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// First.
    Start,
    /// Last.
    End,
    /// Before the link to this row.
    Before(i64),
    /// After the link to this row.
    After(i64),
}

impl Place {
    /// The row it is placed next to.
    fn anchor(self) -> Option<i64> {
        match self {
            Place::Before(a) | Place::After(a) => Some(a),
            Place::Start | Place::End => None,
        }
    }

    /// As Strapi prints it in its messages (`JSON.stringify(position)`).
    fn json(self) -> String {
        match self {
            Place::Start => "{\"start\":true}".to_string(),
            Place::End => "{\"end\":true}".to_string(),
            Place::Before(a) => format!("{{\"before\":{a}}}"),
            Place::After(a) => format!("{{\"after\":{a}}}"),
        }
    }
}

/// A relation value with its entries resolved to row ids.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// The whole list, in order (`set`, the shorthand, null).
    Set(Vec<(i64, Option<Place>)>),
    /// `connect` (with places) and `disconnect`.
    Change {
        /// Rows to link.
        connect: Vec<(i64, Option<Place>)>,
        /// Rows to unlink.
        disconnect: Vec<i64>,
        /// Each connected row's position as Strapi's messages print it (the position
        /// object given, its anchor as a row id): see [`Positions`].
        shown: Positions,
    },
}

/// The position objects of connected rows as Strapi prints them in its errors
/// (`JSON.stringify(position)` after its transform); a row without one prints its
/// [`Place`].
pub type Positions = HashMap<i64, String>;

/// Writes the links of row `id` for one relation value. `creating`: the row is new
/// (Strapi's `attachRelations`), else it is updated (`updateRelations`).
pub fn write(
    rows: &Rows<'_>,
    side: &LinkSide<'_>,
    id: i64,
    change: &Resolved,
    creating: bool,
) -> Result<(), WriteError> {
    let links = Links {
        rows,
        side,
        dialect: rows.w.dialect(),
    };
    if creating {
        links.attach(id, change)
    } else {
        links.update(id, change)
    }
}

/// A connect entry with its position (no position is `end`, as `toAssocs` makes it).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    id: i64,
    place: Place,
}

/// A link row seen from the near end.
#[derive(Debug, Clone, Copy)]
struct Near {
    link: i64,
    far: i64,
    ord: Option<f64>,
}

/// A link row to insert for the written row.
#[derive(Debug, Clone, Copy)]
struct NewLink {
    far: i64,
    ord: Option<f64>,
    far_ord: Option<f64>,
}

/// What an insert does with a link that exists (`batchInsertJoinTable`'s options).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Conflict {
    /// A plain insert (`attachRelations`: the row is new).
    None,
    /// `ON CONFLICT (…) DO UPDATE SET <near order> = excluded.<near order>`.
    MergeOrder,
    /// `ON CONFLICT (…) DO NOTHING`.
    Ignore,
}

/// Which links `deleteRelations` removes.
#[derive(Debug, Clone, Copy)]
enum Delete<'d> {
    /// Every link but those to these rows (`relIdsToDelete: 'all'`).
    AllBut(&'d [i64]),
    /// The links to these rows.
    Only(&'d [i64]),
}

impl Delete<'_> {
    fn takes(&self, far: i64) -> bool {
        match self {
            Delete::AllBut(kept) => !kept.contains(&far),
            Delete::Only(gone) => gone.contains(&far),
        }
    }
}

/// `deleteRelations` works in batches of this many links.
const DELETE_BATCH: usize = 100;

/// `toIdArray`'s `uniqWith(isEqual)`: equal entries once, the first kept.
fn unique_entries(entries: &[(i64, Option<Place>)]) -> Vec<(i64, Option<Place>)> {
    let mut out: Vec<(i64, Option<Place>)> = Vec::new();
    for e in entries {
        if !out.contains(e) {
            out.push(*e);
        }
    }
    out
}

/// Each id once, in the order of its first occurrence (`uniqBy('id')`).
fn unique_ids(ids: impl IntoIterator<Item = i64>) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for id in ids {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

fn connect_entries(entries: &[(i64, Option<Place>)]) -> Vec<Entry> {
    entries
        .iter()
        .map(|(id, place)| Entry {
            id: *id,
            place: place.unwrap_or(Place::End),
        })
        .collect()
}

fn alias(name: &str) -> Alias {
    Alias::new(name)
}

/// The statements of one relation attribute of one row.
struct Links<'x, 'a, 'm> {
    rows: &'x Rows<'a>,
    side: &'x LinkSide<'m>,
    dialect: Dialect,
}

impl Links<'_, '_, '_> {
    fn has_order(&self) -> bool {
        self.side.near_order().is_some()
    }

    fn has_inverse_order(&self) -> bool {
        self.side.far_order().is_some()
    }

    /// `attachRelations` for a link-table relation of a new row.
    fn attach(&self, id: i64, change: &Resolved) -> Result<(), WriteError> {
        // `set || connect`; a create ignores `disconnect`.
        let no_positions = Positions::new();
        let (entries, is_set, shown) = match change {
            Resolved::Set(e) => (unique_entries(e), true, &no_positions),
            Resolved::Change { connect, shown, .. } => (unique_entries(connect), false, shown),
        };
        let rel_ids: Vec<i64> = entries.iter().map(|(id, _)| *id).collect();
        if self.side.bidirectional && self.side.one_to_any() {
            self.delete_previous_one_to_any(id, &rel_ids)?;
        }
        let mut new: Vec<NewLink> = unique_ids(rel_ids.iter().copied())
            .into_iter()
            .map(|far| NewLink {
                far,
                ord: None,
                far_ord: None,
            })
            .collect();
        if self.has_order() {
            if is_set {
                for (i, l) in new.iter_mut().enumerate() {
                    l.ord = Some((i + 1) as f64);
                }
            } else {
                // A strict connect on an empty list; the order is the index in the
                // resulting list, from 0.
                let mut orderer = Orderer::new(Vec::new(), shown);
                orderer.connect(&connect_entries(&entries))?;
                let index: HashMap<i64, f64> = orderer
                    .rels
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (r.id, i as f64))
                    .collect();
                for l in &mut new {
                    l.ord = index.get(&l.far).copied();
                }
            }
        }
        if self.has_inverse_order() {
            let max = self.far_max(&rel_ids)?;
            for l in &mut new {
                l.far_ord = Some(max.get(&l.far).copied().unwrap_or(0.0) + 1.0);
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        self.insert_links(id, &new, Conflict::None)
    }

    /// `updateRelations` for a link-table relation of an existing row.
    fn update(&self, id: i64, change: &Resolved) -> Result<(), WriteError> {
        let conflict = if self.has_order() {
            Conflict::MergeOrder
        } else {
            Conflict::Ignore
        };
        let rel_ids: Vec<i64> = match change {
            Resolved::Set(entries) => {
                let entries = unique_entries(entries);
                let rel_ids: Vec<i64> = entries.iter().map(|(id, _)| *id).collect();
                self.delete_relations(id, Delete::AllBut(&rel_ids))?;
                if rel_ids.is_empty() {
                    return Ok(());
                }
                let mut new: Vec<NewLink> = unique_ids(rel_ids.iter().copied())
                    .into_iter()
                    .enumerate()
                    .map(|(i, far)| NewLink {
                        far,
                        ord: self.has_order().then_some((i + 1) as f64),
                        far_ord: None,
                    })
                    .collect();
                if self.has_inverse_order() {
                    let existing: HashSet<i64> = self
                        .near_links(id)?
                        .iter()
                        .map(|l| l.far)
                        .filter(|f| rel_ids.contains(f))
                        .collect();
                    self.number_far(&mut new, &rel_ids, &existing)?;
                }
                self.insert_links(id, &new, conflict)?;
                rel_ids
            }
            Resolved::Change {
                connect,
                disconnect,
                shown,
            } => {
                let connect = unique_entries(connect);
                let rel_ids: Vec<i64> = connect.iter().map(|(id, _)| *id).collect();
                let to_delete: Vec<i64> = unique_ids(disconnect.iter().copied())
                    .into_iter()
                    .filter(|d| !rel_ids.contains(d))
                    .collect();
                let mut resolved = connect_entries(&connect);
                if self.has_order()
                    && !to_delete.is_empty()
                    && resolved
                        .iter()
                        .any(|e| e.place.anchor().is_some_and(|a| to_delete.contains(&a)))
                {
                    resolved = self.reanchor(id, resolved, &to_delete)?;
                }
                if !to_delete.is_empty() {
                    self.delete_relations(id, Delete::Only(&to_delete))?;
                }
                if connect.is_empty() {
                    return Ok(());
                }
                let moving: HashSet<i64> = if self.has_order() || self.has_inverse_order() {
                    self.near_links(id)?
                        .iter()
                        .map(|l| l.far)
                        .filter(|f| rel_ids.contains(f))
                        .collect()
                } else {
                    HashSet::new()
                };
                let mut new: Vec<NewLink> = unique_ids(rel_ids.iter().copied())
                    .into_iter()
                    .map(|far| NewLink {
                        far,
                        ord: None,
                        far_ord: None,
                    })
                    .collect();
                if self.has_order() {
                    let anchors: Vec<i64> =
                        resolved.iter().filter_map(|e| e.place.anchor()).collect();
                    let mut orderer = Orderer::new(self.adjacent(id, &anchors)?, shown);
                    orderer.connect(&resolved)?;
                    let map = orderer.order_map();
                    for l in &mut new {
                        l.ord = map.get(&l.far).copied();
                    }
                }
                if self.has_inverse_order() {
                    self.number_far(&mut new, &rel_ids, &moving)?;
                }
                self.insert_links(id, &new, conflict)?;
                // Remove the gaps the fractional orders left.
                self.clean(Some(id), &[])?;
                rel_ids
            }
        };
        if self.side.bidirectional && self.side.one_to_any() {
            self.delete_previous_one_to_any(id, &rel_ids)?;
        }
        if self.side.any_to_one()
            && let Some(first) = rel_ids.first()
        {
            self.delete_previous_any_to_one(id, *first)?;
        }
        Ok(())
    }

    /// The far order of new links: last in the far row's list (`max + 1`) for links that
    /// do not exist yet; the value of a link that exists is not written (the upsert keeps
    /// it), so it is 1 as Strapi computes it.
    fn number_far(
        &self,
        new: &mut [NewLink],
        rel_ids: &[i64],
        existing: &HashSet<i64>,
    ) -> Result<(), WriteError> {
        let missing: Vec<i64> = rel_ids
            .iter()
            .copied()
            .filter(|f| !existing.contains(f))
            .collect();
        let max = self.far_max(&missing)?;
        for l in new {
            l.far_ord = Some(max.get(&l.far).copied().unwrap_or(0.0) + 1.0);
        }
        Ok(())
    }

    /// The links of row `id`, in no particular order.
    fn near_links(&self, id: i64) -> Result<Vec<Near>, WriteError> {
        Ok(self
            .rows
            .links(self.side.table, self.side.near, id)?
            .iter()
            .map(|l| Near {
                link: l.id,
                far: l.other,
                ord: self.side.near_value(l),
            })
            .collect())
    }

    /// Sorts links as `ORDER BY <near order>` does: NULL first on SQLite and MySQL, last
    /// on PostgreSQL; ties by id.
    fn sort_by_order(&self, links: &mut [Near]) {
        let nulls_last = self.dialect == Dialect::Postgres;
        links.sort_by(|a, b| {
            let by_value = match (a.ord, b.ord) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (None, None) => std::cmp::Ordering::Equal,
                (None, Some(_)) if nulls_last => std::cmp::Ordering::Greater,
                (None, Some(_)) => std::cmp::Ordering::Less,
                (Some(_), None) if nulls_last => std::cmp::Ordering::Less,
                (Some(_), None) => std::cmp::Ordering::Greater,
            };
            by_value.then(a.link.cmp(&b.link))
        });
    }

    /// The largest far order of the links of each of `fars` (`SELECT far, MAX(far_ord) …
    /// GROUP BY far`); rows without a value are absent.
    fn far_max(&self, fars: &[i64]) -> Result<HashMap<i64, f64>, WriteError> {
        let mut out = HashMap::new();
        for far in unique_ids(fars.iter().copied()) {
            let max = self
                .rows
                .links(self.side.table, self.side.far_end(), far)?
                .iter()
                .filter_map(|l| self.side.far_value(l))
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
            if let Some(m) = max {
                out.insert(far, m);
            }
        }
        Ok(out)
    }

    /// The links Strapi loads to place connected entries: those to the anchors, and those
    /// with the smallest and the largest near order, in near order.
    fn adjacent(&self, id: i64, anchors: &[i64]) -> Result<Vec<(i64, Option<f64>)>, WriteError> {
        let links = self.near_links(id)?;
        let values = links.iter().filter_map(|l| l.ord);
        let min = values.clone().reduce(f64::min);
        let max = values.reduce(f64::max);
        let mut adjacent: Vec<Near> = links
            .into_iter()
            .filter(|l| {
                anchors.contains(&l.far) || (l.ord.is_some() && (l.ord == min || l.ord == max))
            })
            .collect();
        self.sort_by_order(&mut adjacent);
        Ok(adjacent.iter().map(|l| (l.far, l.ord)).collect())
    }

    /// A connect anchored to a link this request disconnects is placed next to the
    /// nearest link that stays instead (`updateRelations`' rewrite of such positions).
    fn reanchor(
        &self,
        id: i64,
        resolved: Vec<Entry>,
        to_delete: &[i64],
    ) -> Result<Vec<Entry>, WriteError> {
        let mut current = self.near_links(id)?;
        self.sort_by_order(&mut current);
        let ordered: Vec<i64> = current.iter().map(|l| l.far).collect();
        let deleted: HashSet<i64> = to_delete.iter().copied().collect();
        let connected: HashSet<i64> = resolved.iter().map(|e| e.id).collect();
        let deleted_in_order: HashSet<i64> = ordered
            .iter()
            .copied()
            .filter(|f| deleted.contains(f))
            .collect();
        let neighbour = |target: i64, step: isize| -> Option<i64> {
            let mut index = ordered.iter().position(|f| *f == target)?;
            loop {
                index = index.checked_add_signed(step)?;
                let candidate = *ordered.get(index)?;
                if !deleted.contains(&candidate) && !connected.contains(&candidate) {
                    return Some(candidate);
                }
            }
        };
        // The entries anchored to each deleted link, before then after, by anchor in the
        // order the anchors first appear.
        let mut groups: Vec<(i64, Vec<i64>, Vec<i64>)> = Vec::new();
        for e in &resolved {
            let Some(anchor) = e.place.anchor() else {
                continue;
            };
            if !deleted.contains(&anchor) || !deleted_in_order.contains(&anchor) {
                continue;
            }
            let at = match groups.iter().position(|g| g.0 == anchor) {
                Some(at) => at,
                None => {
                    groups.push((anchor, Vec::new(), Vec::new()));
                    groups.len() - 1
                }
            };
            if let Some(g) = groups.get_mut(at) {
                match e.place {
                    Place::Before(_) => g.1.push(e.id),
                    _ => g.2.push(e.id),
                }
            }
        }
        let mut places: HashMap<i64, Place> = HashMap::new();
        for (target, before, after) in &groups {
            let previous = neighbour(*target, -1);
            let next = neighbour(*target, 1);
            let mut previous_place = previous;
            for item in before.iter().chain(after.iter()) {
                let place = match (previous_place, next) {
                    (Some(p), _) => Place::After(p),
                    (None, Some(n)) => Place::Before(n),
                    (None, None) => Place::Start,
                };
                places.insert(*item, place);
                previous_place = Some(*item);
            }
        }
        Ok(resolved
            .into_iter()
            .map(|e| match places.get(&e.id) {
                Some(place) => Entry {
                    id: e.id,
                    place: *place,
                },
                None => e,
            })
            .collect())
    }

    /// `deleteRelations`: removes links of row `id`, then renumbers the near order of
    /// `id` and the far order of the rows unlinked, batch by batch.
    fn delete_relations(&self, id: i64, which: Delete<'_>) -> Result<(), WriteError> {
        if !self.has_order() && !self.has_inverse_order() {
            for l in self.near_links(id)? {
                if which.takes(l.far) {
                    self.rows.delete_link(self.side.table, l.link)?;
                }
            }
            return Ok(());
        }
        loop {
            let mut links = self.near_links(id)?;
            links.sort_by_key(|l| l.link);
            let batch: Vec<Near> = links
                .into_iter()
                .filter(|l| which.takes(l.far))
                .take(DELETE_BATCH)
                .collect();
            let done = batch.len() < DELETE_BATCH;
            for l in &batch {
                self.rows.delete_link(self.side.table, l.link)?;
            }
            let fars: Vec<i64> = batch.iter().map(|l| l.far).collect();
            self.clean(Some(id), &fars)?;
            if done {
                return Ok(());
            }
        }
    }

    /// Links to rows being connected that belong to another document at the near end go
    /// (a oneToOne or oneToMany far row has one near row).
    fn delete_previous_one_to_any(&self, id: i64, rel_ids: &[i64]) -> Result<(), WriteError> {
        let siblings = self.siblings(self.side.near_schema, id)?;
        for far in unique_ids(rel_ids.iter().copied()) {
            for l in self.rows.links(self.side.table, self.side.far_end(), far)? {
                if !siblings.contains(&l.other) {
                    self.rows.delete_link(self.side.table, l.id)?;
                }
            }
        }
        self.clean(None, rel_ids)
    }

    /// A to-one keeps only its links to the document of `first` (the first entry).
    fn delete_previous_any_to_one(&self, id: i64, first: i64) -> Result<(), WriteError> {
        let siblings = self.siblings(self.side.far_schema, first)?;
        let gone: Vec<Near> = self
            .near_links(id)?
            .into_iter()
            .filter(|l| !siblings.contains(&l.far))
            .collect();
        for l in &gone {
            self.rows.delete_link(self.side.table, l.link)?;
        }
        if self.side.many_to_any() {
            let fars: Vec<i64> = gone.iter().map(|l| l.far).collect();
            self.clean(None, &fars)?;
        }
        Ok(())
    }

    /// The rows of the document of row `id` (every locale and state) for a content type,
    /// `[id]` otherwise (`getDocumentSiblingIdsQuery`).
    fn siblings(&self, schema: Option<SchemaId>, id: i64) -> Result<HashSet<i64>, WriteError> {
        let Some(schema) = schema.map(|s| self.rows.model.schema(s)) else {
            return Ok(HashSet::from([id]));
        };
        if !schema
            .layout
            .columns
            .iter()
            .any(|c| c.name == "document_id")
        {
            return Ok(HashSet::from([id]));
        }
        let table = schema.layout.table.as_str();
        let mut of_row = Sql::select();
        of_row
            .column(alias("document_id"))
            .from(alias(table))
            .and_where(Expr::col(alias("id")).eq(id));
        let mut s = Sql::select();
        s.column(alias("id"))
            .from(alias(table))
            .and_where(Expr::col(alias("document_id")).in_subquery(of_row));
        Ok(query_map(self.rows.w, &s, |r| r.int(0))?
            .into_iter()
            .collect())
    }

    /// `cleanOrderColumns`: renumbers the near order of row `near` (when given) and the
    /// far order of the rows `fars` (when any), 1..n in each partition.
    fn clean(&self, near: Option<i64>, fars: &[i64]) -> Result<(), WriteError> {
        if let (Some(column), Some(id)) = (self.side.near_order(), near) {
            self.renumber(column, self.side.near_column(), &[id])?;
        }
        if let Some(column) = self.side.far_order()
            && !fars.is_empty()
        {
            self.renumber(column, self.side.far_column(), fars)?;
        }
        Ok(())
    }

    /// `UPDATE lnk SET <column> = b.src_order FROM (SELECT id, ROW_NUMBER() OVER
    /// (PARTITION BY <partition> ORDER BY <column>) AS src_order FROM lnk WHERE
    /// <partition> IN (…)) AS b WHERE b.id = lnk.id AND (lnk.<column> <> b.src_order OR
    /// lnk.<column> IS NULL)` (MySQL: the same as a join).
    fn renumber(&self, column: &str, partition: &str, ids: &[i64]) -> Result<(), WriteError> {
        let up = renumber_statement(&self.side.table.table, column, partition, ids);
        self.rows.execute(Change::Update(&up))?;
        Ok(())
    }

    /// Inserts links of row `id` as `batchInsertJoinTable` does: one multi-row statement
    /// per batch, with the conflict clause of `conflict` on the pair of ids.
    fn insert_links(&self, id: i64, new: &[NewLink], conflict: Conflict) -> Result<(), WriteError> {
        let lt = self.side.table;
        let near_order = self.side.near_order();
        let far_order = self.side.far_order();
        let mut columns: Vec<&str> = vec![self.side.near_column(), self.side.far_column()];
        columns.extend(near_order);
        columns.extend(far_order);
        let values: Vec<Vec<Expr>> = new
            .iter()
            .map(|l| {
                let mut values = vec![Expr::val(id), Expr::val(l.far)];
                if near_order.is_some() {
                    values.push(Expr::val(l.ord));
                }
                if far_order.is_some() {
                    values.push(Expr::val(l.far_ord));
                }
                values
            })
            .collect();
        let pair = [alias(&lt.owner_column), alias(&lt.target_column)];
        let on_conflict = match (conflict, near_order) {
            (Conflict::None, _) => None,
            (Conflict::MergeOrder, Some(column)) => Some(
                OnConflict::columns(pair)
                    .update_column(alias(column))
                    .to_owned(),
            ),
            (Conflict::MergeOrder | Conflict::Ignore, _) => Some(
                OnConflict::columns(pair)
                    .do_nothing_on([alias(&lt.owner_column)])
                    .to_owned(),
            ),
        };
        batch_insert(self.rows, &lt.table, &columns, values, on_conflict.as_ref())
    }
}

/// `batchInsertJoinTable`: the rows (each the values of `columns`) as multi-row inserts
/// of at most the dialect's batch size (`getBatchInsertSize`), each with `on_conflict`.
fn batch_insert(
    rows: &Rows<'_>,
    table: &str,
    columns: &[&str],
    values: Vec<Vec<Expr>>,
    on_conflict: Option<&OnConflict>,
) -> Result<(), WriteError> {
    let batch = match rows.w.dialect() {
        Dialect::Sqlite => 500,
        Dialect::Postgres | Dialect::Mysql => 1000,
    };
    for chunk in values.chunks(batch) {
        let mut ins = Sql::insert();
        ins.into_table(alias(table))
            .columns(columns.iter().map(|c| alias(c)));
        for row in chunk {
            ins.values(row.iter().cloned())
                .map_err(|e| StoreError::Other(format!("cannot build the statement: {e}")))?;
        }
        if let Some(c) = on_conflict {
            ins.on_conflict(c.clone());
        }
        rows.execute(Change::Insert(&ins))?;
    }
    Ok(())
}

/// The statement of [`Links::renumber`].
fn renumber_statement(table: &str, column: &str, partition: &str, ids: &[i64]) -> UpdateStatement {
    let mut window = WindowStatement::partition_by(alias(partition));
    window.order_by(alias(column), Order::Asc);
    let mut numbered = Sql::select();
    numbered
        .column(alias("id"))
        .expr_window_as(Func::cust("ROW_NUMBER"), window, alias("src_order"))
        .from(alias(table));
    match ids {
        [one] => numbered.and_where(Expr::col(alias(partition)).eq(*one)),
        _ => numbered.and_where(Expr::col(alias(partition)).is_in(ids.iter().copied())),
    };
    let mut up = Sql::update();
    up.table(alias(table))
        .value(alias(column), Expr::col((alias("b"), alias("src_order"))))
        .from(TableRef::SubQuery(
            Box::new(numbered),
            alias("b").into_iden(),
        ))
        .and_where(Expr::col((alias("b"), alias("id"))).equals((alias(table), alias("id"))))
        // Only the rows whose number changes: the table ends as Strapi's, which writes
        // every row of the partition again, without rewriting a row (and its index
        // entries) to the value it holds. `src_order` is never NULL.
        .and_where(
            Expr::col((alias(table), alias(column)))
                .ne(Expr::col((alias("b"), alias("src_order"))))
                .or(Expr::col((alias(table), alias(column))).is_null()),
        );
    up
}

/// How the entity manager sees a component attribute (`transformAttribute` in
/// `@strapi/core/dist/utils/transform-content-types-to-models.js`): a relation over the
/// owner's `_cmps` join table, restricted to its rows by `on: {field}`, with the pivot
/// columns `field` and `component_type` and the order column `order`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentJoin {
    /// A single component: `oneToOne`, which has no order column (`hasOrderColumn` is
    /// `isAnyToMany`), so its row is written without `order`.
    One,
    /// A repeatable component: `oneToMany`, with `order`.
    Many,
    /// A dynamic zone: `morphToMany`, whose rows are deleted and inserted again.
    Zone,
}

/// A `_cmps` row to write for a row: the component row and its uid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentRef {
    /// The component row's id.
    pub cmp_id: i64,
    /// The component's uid (`component_type`).
    pub component_type: String,
}

/// `updateRelations` for one component attribute (`field`) of row `entity`, whose
/// `_cmps` table is `table`: `set` is the component rows the attribute holds now, in
/// order (`None`: a single component set to null).
///
/// * `One`: the other rows of the field go, the row is upserted without `order`
///   (`ON CONFLICT DO NOTHING`), then `deletePreviousAnyToOneRelations` runs its delete.
/// * `Many`: `deleteRelations` removes the other rows of the field in batches, each
///   followed by `cleanOrderColumns`, which renumbers `order` over *every* row of the
///   entity (no `field` filter, the database ordering ties and NULLs); then the rows
///   are upserted with `order` 1..n (`ON CONFLICT DO UPDATE SET order`), which consumes
///   ids even where the row exists.
/// * `Zone`: an empty zone is left as it is (its rows then point at deleted
///   components); otherwise the field's rows are deleted and inserted again with
///   `order` 1..n.
pub fn write_components(
    rows: &Rows<'_>,
    table: &str,
    entity: i64,
    field: &str,
    join: ComponentJoin,
    set: Option<&[ComponentRef]>,
) -> Result<(), WriteError> {
    let cmps = CmpsTable {
        rows,
        table,
        entity,
        field,
    };
    match join {
        ComponentJoin::One => {
            let set = unique_refs(set.unwrap_or_default(), false);
            let keep: Vec<i64> = set.iter().map(|r| r.cmp_id).collect();
            cmps.delete_field(Some(&keep))?;
            let Some(first) = set.first() else {
                return Ok(());
            };
            cmps.insert(&set, false, Some(CmpsConflict::Ignore))?;
            cmps.delete_field(Some(&[first.cmp_id]))
        }
        ComponentJoin::Many => {
            let set = unique_refs(set.unwrap_or_default(), false);
            let keep: Vec<i64> = set.iter().map(|r| r.cmp_id).collect();
            cmps.delete_ordered(&keep)?;
            if set.is_empty() {
                return Ok(());
            }
            cmps.insert(&set, true, Some(CmpsConflict::MergeOrder))
        }
        ComponentJoin::Zone => {
            let set = unique_refs(set.unwrap_or_default(), true);
            if set.is_empty() {
                return Ok(());
            }
            cmps.delete_field(None)?;
            cmps.insert(&set, true, None)
        }
    }
}

/// Each entry once: by id (`uniqBy('id')`) for a component, by id and uid (`uniqWith
/// isEqual`) for a dynamic zone.
fn unique_refs(set: &[ComponentRef], with_type: bool) -> Vec<ComponentRef> {
    let mut out: Vec<ComponentRef> = Vec::new();
    for r in set {
        let seen = out
            .iter()
            .any(|o| o.cmp_id == r.cmp_id && (!with_type || o.component_type == r.component_type));
        if !seen {
            out.push(r.clone());
        }
    }
    out
}

/// What an insert into a `_cmps` table does with a row that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CmpsConflict {
    /// `ON CONFLICT (pivot columns) DO NOTHING`.
    Ignore,
    /// `ON CONFLICT (pivot columns) DO UPDATE SET order = excluded.order`.
    MergeOrder,
}

/// The `_cmps` rows of one attribute of one row.
struct CmpsTable<'x, 'a> {
    rows: &'x Rows<'a>,
    table: &'x str,
    entity: i64,
    field: &'x str,
}

impl CmpsTable<'_, '_> {
    /// `DELETE … WHERE entity_id = ? [AND cmp_id NOT IN (keep)] AND field = ?`.
    fn delete_field(&self, keep: Option<&[i64]>) -> Result<(), WriteError> {
        let mut del = Sql::delete();
        del.from_table(alias(self.table))
            .and_where(Expr::col(alias("entity_id")).eq(self.entity));
        if let Some(keep) = keep.filter(|k| !k.is_empty()) {
            del.and_where(Expr::col(alias("cmp_id")).is_not_in(keep.iter().copied()));
        }
        del.and_where(Expr::col(alias("field")).eq(self.field));
        self.rows.execute(Change::Delete(&del))?;
        Ok(())
    }

    /// `deleteRelations` of an attribute with an order column: batches of at most
    /// [`DELETE_BATCH`] rows not kept, each deleted and followed by the renumbering of
    /// the entity's `order` (run once even when nothing is deleted).
    fn delete_ordered(&self, keep: &[i64]) -> Result<(), WriteError> {
        loop {
            let mut s = Sql::select();
            s.column(alias("cmp_id"))
                .from(alias(self.table))
                .and_where(Expr::col(alias("entity_id")).eq(self.entity));
            if !keep.is_empty() {
                s.and_where(Expr::col(alias("cmp_id")).is_not_in(keep.iter().copied()));
            }
            s.and_where(Expr::col(alias("field")).eq(self.field))
                .order_by(alias("id"), Order::Asc)
                .limit(DELETE_BATCH as u64);
            let batch: Vec<i64> = query_map(self.rows.w, &s, |r| r.int(0))?;
            let done = batch.len() < DELETE_BATCH;
            if !batch.is_empty() {
                let mut del = Sql::delete();
                del.from_table(alias(self.table))
                    .and_where(Expr::col(alias("entity_id")).eq(self.entity))
                    .and_where(Expr::col(alias("cmp_id")).is_in(batch.iter().copied()))
                    .and_where(Expr::col(alias("field")).eq(self.field));
                self.rows.execute(Change::Delete(&del))?;
            }
            let up = renumber_statement(self.table, "order", "entity_id", &[self.entity]);
            self.rows.execute(Change::Update(&up))?;
            if done {
                return Ok(());
            }
        }
    }

    /// Inserts the rows of `set` (`order` 1..n when `ordered`, else left NULL).
    fn insert(
        &self,
        set: &[ComponentRef],
        ordered: bool,
        conflict: Option<CmpsConflict>,
    ) -> Result<(), WriteError> {
        let mut columns = vec!["entity_id", "cmp_id", "field", "component_type"];
        if ordered {
            columns.push("order");
        }
        let values: Vec<Vec<Expr>> = set
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut v = vec![
                    Expr::val(self.entity),
                    Expr::val(r.cmp_id),
                    Expr::val(self.field),
                    Expr::val(r.component_type.as_str()),
                ];
                if ordered {
                    v.push(Expr::val((i + 1) as f64));
                }
                v
            })
            .collect();
        let pivot = ["entity_id", "cmp_id", "field", "component_type"].map(alias);
        let on_conflict = conflict.map(|c| match c {
            CmpsConflict::Ignore => OnConflict::columns(pivot)
                .do_nothing_on([alias("entity_id")])
                .to_owned(),
            CmpsConflict::MergeOrder => OnConflict::columns(pivot)
                .update_column(alias("order"))
                .to_owned(),
        });
        batch_insert(
            self.rows,
            self.table,
            &columns,
            values,
            on_conflict.as_ref(),
        )
    }
}

/// One entry of `relations-orderer.js`' list.
#[derive(Debug, Clone, Copy)]
struct Rel {
    id: i64,
    order: f64,
    /// Loaded from the database (as opposed to connected now).
    init: bool,
}

/// `relationsOrderer`: places connected entries among some of the existing links and
/// gives them fractional orders.
struct Orderer<'s> {
    rels: Vec<Rel>,
    max_order: f64,
    /// How the connected entries' positions print in errors.
    shown: &'s Positions,
}

fn invalid_relation(message: String) -> WriteError {
    WriteError::bare(message)
}

impl<'s> Orderer<'s> {
    /// The existing links given (far row, near order), sorted by order (stable; NULL
    /// counts as 1).
    fn new(init: Vec<(i64, Option<f64>)>, shown: &'s Positions) -> Self {
        let mut rels: Vec<Rel> = init
            .into_iter()
            .map(|(id, order)| Rel {
                id,
                order: order.unwrap_or(1.0),
                init: true,
            })
            .collect();
        rels.sort_by(|a, b| {
            a.order
                .partial_cmp(&b.order)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let max_order = rels.iter().map(|r| r.order).reduce(f64::max).unwrap_or(0.0);
        Orderer {
            rels,
            max_order,
            shown,
        }
    }

    fn connect(&mut self, entries: &[Entry]) -> Result<(), WriteError> {
        for e in sort_connect(entries, &self.rels, self.shown)? {
            if let Some(at) = self.rels.iter().position(|r| r.id == e.id) {
                self.rels.remove(at);
            }
            self.insert(e)?;
        }
        Ok(())
    }

    fn find(&self, id: i64) -> Option<(usize, Rel)> {
        self.rels
            .iter()
            .position(|r| r.id == id)
            .and_then(|at| self.rels.get(at).map(|r| (at, *r)))
    }

    fn insert(&mut self, e: Entry) -> Result<(), WriteError> {
        let (at, order) = match e.place {
            Place::Before(anchor) => {
                let (at, r) = self.find(anchor).ok_or_else(|| not_valid(e, self.shown))?;
                (at, if r.init { r.order - 0.5 } else { r.order })
            }
            Place::After(anchor) => {
                let (at, r) = self.find(anchor).ok_or_else(|| not_valid(e, self.shown))?;
                (at + 1, if r.init { r.order + 0.5 } else { r.order })
            }
            Place::Start => match self.rels.first() {
                Some(r) => (0, if r.init { r.order - 0.5 } else { r.order }),
                None => (0, 0.5),
            },
            Place::End => (self.rels.len(), self.max_order + 0.5),
        };
        self.rels.insert(
            at,
            Rel {
                id: e.id,
                order,
                init: false,
            },
        );
        Ok(())
    }

    /// `getOrderMap`: the entries connected now, spread within each group of equal
    /// orders (`order + offset / (size + 1) * 0.49`).
    fn order_map(&self) -> HashMap<i64, f64> {
        let mut keys: Vec<f64> = Vec::new();
        for r in &self.rels {
            if !keys.contains(&r.order) {
                keys.push(r.order);
            }
        }
        keys.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let mut map = HashMap::new();
        for key in keys {
            let group: Vec<&Rel> = self.rels.iter().filter(|r| r.order == key).collect();
            let size = group.len() as f64;
            let mut offset = 1.0;
            for r in group {
                if !r.init {
                    map.insert(r.id, key + offset / (size + 1.0) * 0.49);
                    offset += 1.0;
                }
            }
        }
        map
    }
}

/// The error of an insert whose anchor is gone. Strapi throws a plain `Error` (a 500);
/// it is the caller's input, so strata answers it as a 400 with the same message.
fn not_valid(e: Entry, shown: &Positions) -> WriteError {
    invalid_relation(format!(
        "There was a problem connecting relation with id {} at position {}. The list of connect relations is not valid",
        e.id,
        position_text(e, shown)
    ))
}

/// How entry `e`'s position prints in an error.
fn position_text(e: Entry, shown: &Positions) -> String {
    shown.get(&e.id).cloned().unwrap_or_else(|| e.place.json())
}

/// `sortConnectArray` (always strict, as Strapi's REST writes are): the entries in an
/// order where each anchor is placed before the entries placed next to it.
fn sort_connect(
    entries: &[Entry],
    initial: &[Rel],
    shown: &Positions,
) -> Result<Vec<Entry>, WriteError> {
    let in_initial = |id: i64| initial.iter().any(|r| r.id == id);
    let mut mapped: HashMap<i64, (Entry, bool)> = HashMap::new();
    let mut needs_sorting = false;
    for e in entries {
        match e.place.anchor() {
            None => needs_sorting = true,
            Some(a) if !in_initial(a) && !mapped.contains_key(&a) => needs_sorting = true,
            Some(_) => {}
        }
        if mapped.contains_key(&e.id) {
            return Err(invalid_relation(format!(
                "The relation with id {} is already connected. You cannot connect the same relation twice.",
                e.id
            )));
        }
        mapped.insert(e.id, (*e, false));
    }
    if !needs_sorting {
        return Ok(entries.to_vec());
    }
    let mut sorted = Vec::new();
    for e in entries {
        // `computeRelation`, without recursion: follow the chain of anchors, then add
        // the entries deepest first.
        let mut chain: Vec<Entry> = Vec::new();
        let mut seen: HashSet<i64> = HashSet::new();
        let mut current = *e;
        loop {
            let anchor = current.place.anchor();
            if anchor.is_some_and(|a| seen.contains(&a)) {
                return Err(invalid_relation(
                    "A circular reference was found in the connect array. One relation is trying to connect before/after another one that is trying to connect before/after it".to_string(),
                ));
            }
            match mapped.get_mut(&current.id) {
                Some((_, computed)) if *computed => break,
                Some((_, computed)) => *computed = true,
                None => {}
            }
            let Some(a) = anchor.filter(|a| !in_initial(*a)) else {
                chain.push(current);
                break;
            };
            match mapped.get(&a) {
                Some((next, _)) => {
                    seen.insert(current.id);
                    chain.push(current);
                    current = *next;
                }
                None => {
                    return Err(invalid_relation(format!(
                        "There was a problem connecting relation with id {} at position {}. The relation with id {a} needs to be connected first.",
                        current.id,
                        position_text(current, shown)
                    )));
                }
            }
        }
        sorted.extend(chain.into_iter().rev());
    }
    Ok(sorted)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn entry(id: i64, place: Place) -> Entry {
        Entry { id, place }
    }

    #[test]
    fn positions_are_placed_as_strapi_places_them() {
        let none = Positions::new();
        // rel-positions#1: links 1 (order 1) and 8 (order 2).
        let mut o = Orderer::new(vec![(1, Some(1.0)), (8, Some(2.0))], &none);
        o.connect(&[
            entry(3, Place::Start),
            entry(4, Place::End),
            entry(5, Place::Before(8)),
            entry(6, Place::After(1)),
        ])
        .unwrap();
        let ids: Vec<i64> = o.rels.iter().map(|r| r.id).collect();
        assert_eq!(ids, [3, 1, 6, 5, 8, 4]);
        let map = o.order_map();
        assert!((map[&3] - 0.745).abs() < 1e-9);
        assert!((map[&6] - (1.5 + 0.49 / 3.0)).abs() < 1e-9);
        assert!((map[&5] - (1.5 + 2.0 * 0.49 / 3.0)).abs() < 1e-9);
        assert!((map[&4] - 2.745).abs() < 1e-9);
    }

    #[test]
    fn a_missing_anchor_is_refused() {
        let none = Positions::new();
        let mut o = Orderer::new(vec![(1, Some(1.0))], &none);
        let e = o.connect(&[entry(3, Place::Before(7))]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "There was a problem connecting relation with id 3 at position {\"before\":7}. The relation with id 7 needs to be connected first."
        );
    }

    #[test]
    fn anchors_among_the_connected_entries_go_first() {
        let none = Positions::new();
        let mut o = Orderer::new(Vec::new(), &none);
        o.connect(&[
            entry(5, Place::Before(1)),
            entry(1, Place::Before(2)),
            entry(2, Place::End),
        ])
        .unwrap();
        let ids: Vec<i64> = o.rels.iter().map(|r| r.id).collect();
        assert_eq!(ids, [5, 1, 2]);
        let circular = Orderer::new(Vec::new(), &none)
            .connect(&[entry(5, Place::Before(6)), entry(6, Place::After(5))])
            .unwrap_err();
        assert!(circular.to_string().starts_with("A circular reference"));
        let twice = Orderer::new(Vec::new(), &none)
            .connect(&[entry(5, Place::Start), entry(5, Place::End)])
            .unwrap_err();
        assert!(twice.to_string().contains("already connected"));
    }
}

#[cfg(test)]
mod sql_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use sea_query::{MysqlQueryBuilder, PostgresQueryBuilder, SqliteQueryBuilder};

    #[test]
    fn renumbering_is_one_window_update() {
        let up = renumber_statement("articles_tags_lnk", "article_ord", "tag_id", &[1, 2]);
        assert_eq!(
            up.to_string(SqliteQueryBuilder),
            "UPDATE \"articles_tags_lnk\" SET \"article_ord\" = \"b\".\"src_order\" FROM (SELECT \"id\", \
             ROW_NUMBER() OVER ( PARTITION BY \"tag_id\" ORDER BY \"article_ord\" ASC ) AS \"src_order\" \
             FROM \"articles_tags_lnk\" WHERE \"tag_id\" IN (1, 2)) AS \"b\" \
             WHERE \"b\".\"id\" = \"articles_tags_lnk\".\"id\" \
             AND (\"articles_tags_lnk\".\"article_ord\" <> \"b\".\"src_order\" \
             OR \"articles_tags_lnk\".\"article_ord\" IS NULL)"
        );
        let up = renumber_statement("articles_tags_lnk", "tag_ord", "article_id", &[7]);
        assert!(
            up.to_string(PostgresQueryBuilder)
                .contains("WHERE \"article_id\" = 7) AS \"b\"")
        );
        assert_eq!(
            up.to_string(MysqlQueryBuilder),
            "UPDATE `articles_tags_lnk` JOIN (SELECT `id`, ROW_NUMBER() OVER ( PARTITION BY \
             `article_id` ORDER BY `tag_ord` ASC ) AS `src_order` FROM `articles_tags_lnk` \
             WHERE `article_id` = 7) AS `b` ON `b`.`id` = `articles_tags_lnk`.`id` \
             AND (`articles_tags_lnk`.`tag_ord` <> `b`.`src_order` \
             OR `articles_tags_lnk`.`tag_ord` IS NULL) \
             SET `articles_tags_lnk`.`tag_ord` = `b`.`src_order`"
        );
    }
}
