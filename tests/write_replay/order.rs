//! Order columns compared "for some tie-breaking", on PostgreSQL and MariaDB only.
//!
//! Strapi renumbers the order columns of link tables with `UPDATE … SET ord = ROW_NUMBER()
//! OVER (PARTITION BY <other end's id> ORDER BY ord)` (`cleanOrderColumns`), and the order
//! of components the same way. Rows that tie on `ord` in a partition are numbered in the
//! database's scan order: on PostgreSQL the physical order of the rows, which a restored
//! copy of the database does not keep, and on MariaDB an order that even varies between
//! identical runs. strata runs the same statement, so the recorded and the replayed
//! numbering of tied rows may differ, and from then on every later value in that partition
//! may differ too. SQLite's order is deterministic: there the replay stays strict (this
//! module is not used).
//!
//! The order columns ([`order_columns`]): in a `*_lnk` table every column `X_ord`,
//! partitioned by the other end's id column, the `_id` column that is not `X_id`
//! (`articles_tags_lnk`: `article_ord` by `tag_id`, `tag_ord` by `article_id`). A self
//! relation's table has `X_id` and `inv_X_id`: there `inv_X_ord` is partitioned by
//! `inv_X_id`, and `X_ord` by `X_id` when `inv_X_ord` exists too (a two-way many-to-many)
//! and else by `inv_X_id` (the inverse order of a two-way many-to-one, the only self
//! relation with one order column in the blog and ext models: `categories_parent_lnk`,
//! `category_ord` orders a parent's children, see `rel-self-category`). In a `*_cmps`
//! table, `order`, partitioned by `entity_id`.
//!
//! How a step is compared ([`Tolerance::step`]):
//! - everything but the order columns exactly, as on SQLite: the row sets
//!   (added/removed rows) and every other column ([`without_order`]);
//! - the order columns of each table the recorded or strata's changes touch, as states:
//!   the recorded state after the step (the recorded state before it plus the recorded
//!   changes) against strata's state after the step. Within each partition rows are
//!   grouped: rows equal before the step (in either state) share a group, and the rows
//!   added by the step form one group of their own. The two numberings agree when every
//!   group holds the same multiset of values in both: tied rows may swap their numbers,
//!   rows that were not tied keep their relative order, and a partition that one side
//!   renumbered and the other did not still fails.
//! - A row the step added with the value of a row it removed (a republish carries the
//!   old link's order) joins that row's group.
//! - Groups outlive the step: two tied rows numbered the other way round keep differing
//!   on the two sides (a later renumbering shifts both), so a group is kept until both
//!   sides give each of its rows the same value again. This is why the recorded state is kept
//!   here, step after step, rather than rebuilt from strata's state before the step: that
//!   one already holds the swapped numbers. After a step with any difference, the recorded
//!   state is reset to strata's, so that one difference is reported once.
//! - After a step that matches, strata's database is given the recorded numbering
//!   ([`Tolerance::alignment`], written by the replay): a tie broken the other way is then
//!   one step's difference, never a seed of later ones. Without it a tie MariaDB broke
//!   one way when recording and another way when replaying could surface many steps
//!   later, once renumberings had moved the swapped rows apart from their group (seen as
//!   flaky replays of `gen-i18n-lifecycle-15`, `-17`, `-22` and `-43`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::db::Snapshot;

/// A table's rows by primary key (as [`key_text`] writes it).
type Rows = BTreeMap<String, Map<String, Value>>;

/// The recorded state of the order tables and the groups of rows that may still differ by
/// a tie-breaking, carried from step to step of one replay.
#[derive(Clone)]
pub struct Tolerance {
    /// The recorded state of every table with an order column.
    recorded: BTreeMap<String, Rows>,
    /// Per (table, order column): the group of each row that is in one with others (a row
    /// not here is alone), by the group's label.
    groups: BTreeMap<(String, String), BTreeMap<String, String>>,
}

/// The order columns of `table` among `columns`, each with the column that partitions it.
pub fn order_columns<'a>(
    table: &str,
    columns: impl IntoIterator<Item = &'a String>,
) -> Vec<(String, String)> {
    let columns: BTreeSet<&str> = columns.into_iter().map(String::as_str).collect();
    if table.ends_with("_cmps") {
        return match columns.contains("order") && columns.contains("entity_id") {
            true => vec![("order".to_string(), "entity_id".to_string())],
            false => Vec::new(),
        };
    }
    if !table.ends_with("_lnk") {
        return Vec::new();
    }
    let ids: Vec<&str> = columns
        .iter()
        .copied()
        .filter(|c| c.ends_with("_id"))
        .collect();
    let ords = columns.iter().filter_map(|c| c.strip_suffix("_ord"));
    ords.filter_map(|stem| {
        let own = format!("{stem}_id");
        let partition = match stem.strip_prefix("inv_") {
            // A self relation's inverse order (two-way many-to-many).
            Some(_) => own.clone(),
            None if ids.contains(&format!("inv_{own}").as_str()) => {
                match columns.contains(format!("inv_{stem}_ord").as_str()) {
                    true => own.clone(),
                    false => format!("inv_{own}"),
                }
            }
            None => {
                let others: Vec<&&str> = ids.iter().filter(|c| **c != own).collect();
                match others.as_slice() {
                    [one] => one.to_string(),
                    _ => return None,
                }
            }
        };
        columns
            .contains(partition.as_str())
            .then(|| (format!("{stem}_ord"), partition))
    })
    .collect()
}

/// The order columns of every `*_lnk` and `*_cmps` table (with what partitions each), by
/// table. A table's columns are its columns before and after a step and those of the rows
/// `diffs` add or remove.
pub type OrderTables = BTreeMap<String, Vec<(String, String)>>;

/// [`OrderTables`] of a step from `before` to `after` whose changes are `diffs`.
pub fn order_tables(
    before: &Snapshot,
    after: &Snapshot,
    diffs: &[&Map<String, Value>],
) -> OrderTables {
    let mut columns: BTreeMap<&String, BTreeSet<String>> = BTreeMap::new();
    for snapshot in [before, after] {
        for (table, t) in &snapshot.0 {
            let set = columns.entry(table).or_default();
            set.extend(t.columns.iter().cloned());
        }
    }
    for diff in diffs {
        for (table, d) in diff.iter() {
            let set = columns.entry(table).or_default();
            for section in ["added", "removed"] {
                let rows = d[section].as_array().into_iter().flatten();
                set.extend(
                    rows.filter_map(Value::as_object)
                        .flat_map(|r| r.keys().cloned()),
                );
            }
        }
    }
    columns
        .into_iter()
        .map(|(table, set)| (table.clone(), order_columns(table, &set)))
        .filter(|(_, ords)| !ords.is_empty())
        .collect()
}

/// A normalised table diff without the order columns of `tables` (in added and removed
/// rows and in changes; a change of order columns only is dropped).
pub fn without_order(diff: &Map<String, Value>, tables: &OrderTables) -> Map<String, Value> {
    let mut out = Map::new();
    for (table, d) in diff {
        let (Some(ords), Some(d)) = (tables.get(table), d.as_object()) else {
            out.insert(table.clone(), d.clone());
            continue;
        };
        let drop: BTreeSet<&String> = ords.iter().map(|(c, _)| c).collect();
        let mut sections = Map::new();
        for (section, items) in d {
            let Some(list) = items.as_array() else {
                sections.insert(section.clone(), items.clone());
                continue;
            };
            let rows: Vec<Value> = list
                .iter()
                .filter_map(|item| {
                    let mut item = item.as_object()?.clone();
                    let cells = match item.get_mut("changed") {
                        Some(Value::Object(c)) if section == "changed" => c,
                        _ => &mut item,
                    };
                    cells.retain(|c, _| !drop.contains(c));
                    let empty = section == "changed"
                        && item["changed"].as_object().is_some_and(Map::is_empty);
                    (!empty).then_some(Value::Object(item))
                })
                .collect();
            if !rows.is_empty() {
                sections.insert(section.clone(), Value::Array(rows));
            }
        }
        if !sections.is_empty() {
            out.insert(table.clone(), Value::Object(sections));
        }
    }
    out
}

/// A value as a key: numbers by value (`1 == 1.0`), anything else as JSON.
fn value_text(v: &Value) -> String {
    match v {
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(x)) if x.fract() == 0.0 && x.abs() < 9.0e15 => (x as i64).to_string(),
            (None, Some(x)) => x.to_string(),
            (None, None) => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// A row's key: its primary key values (`pk`), from a row or a change's `key`.
fn key_text(pk: &[String], row: &Map<String, Value>) -> String {
    let values: Vec<String> = pk
        .iter()
        .map(|c| value_text(row.get(c).unwrap_or(&Value::Null)))
        .collect();
    values.join(",")
}

/// The rows of `table` in `snapshot`, by key (none: no such table).
fn rows_of(snapshot: &Snapshot, table: &str) -> Rows {
    let Some(t) = snapshot.0.get(table) else {
        return Rows::new();
    };
    t.rows()
        .iter()
        .map(|r| (key_text(&t.pk, r), r.clone()))
        .collect()
}

/// `before` with a table's recorded changes (`diff`, the recording's shape) applied.
fn apply(before: &Rows, pk: &[String], diff: &Value) -> Rows {
    let mut rows = before.clone();
    let items = |section: &str| diff[section].as_array().cloned().unwrap_or_default();
    for row in items("removed") {
        if let Some(r) = row.as_object() {
            rows.remove(&key_text(pk, r));
        }
    }
    for row in items("added") {
        if let Some(r) = row.as_object() {
            rows.insert(key_text(pk, r), r.clone());
        }
    }
    for change in items("changed") {
        let Some(key) = change["key"].as_object() else {
            continue;
        };
        let Some(row) = rows.get_mut(&key_text(pk, key)) else {
            continue;
        };
        for (column, pair) in change["changed"].as_object().into_iter().flatten() {
            row.insert(column.clone(), pair[1].clone());
        }
    }
    rows
}

impl Tolerance {
    /// The recorded state before step 1: the database strata replays on (the same seed).
    pub fn new(start: &Snapshot) -> Tolerance {
        let tables = order_tables(start, start, &[]);
        Tolerance {
            recorded: tables
                .keys()
                .map(|t| (t.clone(), rows_of(start, t)))
                .collect(),
            groups: BTreeMap::new(),
        }
    }

    /// The recorded state reset to strata's `after`: after a step with a difference (so that
    /// it is reported once), or after strata's database was given the recorded numbering
    /// ([`Tolerance::alignment`]).
    pub fn resync(&mut self, after: &Snapshot) {
        let tables: Vec<String> = self.recorded.keys().cloned().collect();
        for t in tables {
            self.recorded.insert(t.clone(), rows_of(after, &t));
        }
        self.groups.clear();
    }

    /// The first difference of strata's order columns (those of `tables`) after a step
    /// (`before` → `after`, its changes `actual`) from the recorded ones (`recorded`: the
    /// step's recorded changes, documentIds mapped), and the state for the next step.
    pub fn step(
        &self,
        tables: &OrderTables,
        recorded: &Map<String, Value>,
        before: &Snapshot,
        after: &Snapshot,
        actual: &Map<String, Value>,
    ) -> (Option<String>, Tolerance) {
        let mut next = self.clone();
        let mut found = None;
        let touched: BTreeSet<&String> = recorded.keys().chain(actual.keys()).collect();
        for table in touched {
            let Some(ords) = tables.get(table) else {
                continue;
            };
            let Some(pk) = after.0.get(table).or(before.0.get(table)).map(|t| &t.pk) else {
                continue;
            };
            let recorded_before = match self.recorded.get(table) {
                Some(rows) => rows.clone(),
                None => rows_of(before, table),
            };
            let none = Value::Null;
            let recorded_after = apply(&recorded_before, pk, recorded.get(table).unwrap_or(&none));
            let sides = Sides {
                recorded_before: &recorded_before,
                recorded_after: &recorded_after,
                strata_before: &rows_of(before, table),
                strata_after: &rows_of(after, table),
            };
            for (column, partition) in ords {
                let groups = next
                    .groups
                    .entry((table.clone(), column.clone()))
                    .or_default();
                let difference = sides.compare(groups, column, partition);
                if found.is_none() {
                    found = difference.map(|d| format!("{table}.{column} {d}"));
                }
            }
            next.recorded.insert(table.clone(), recorded_after);
        }
        (found, next)
    }
}

/// An order value strata's database numbers otherwise than the recorded state: `column`
/// of the row of `table` whose primary key is `key` is to hold `value`.
#[derive(Debug, PartialEq)]
pub struct Alignment {
    pub table: String,
    pub key: Vec<(String, Value)>,
    pub column: String,
    pub value: Value,
}

impl Tolerance {
    /// The order values in which strata's database (`after`) differs from the recorded
    /// state, over the rows both hold in the same partition: after a step that matched
    /// "for some tie-breaking", writing them makes strata's database hold the recorded
    /// numbering, so that the next step starts where the recording's did.
    pub fn alignment(&self, after: &Snapshot) -> Vec<Alignment> {
        let mut out = Vec::new();
        for (table, recorded) in &self.recorded {
            let Some(t) = after.0.get(table) else {
                continue;
            };
            let strata = rows_of(after, table);
            for (column, partition) in order_columns(table, &t.columns) {
                for (key, want) in recorded {
                    let Some(got) = strata.get(key) else {
                        continue;
                    };
                    let cell = |r: &Map<String, Value>, c: &str| r.get(c).cloned();
                    let value = cell(want, &column).unwrap_or(Value::Null);
                    let moved = value_text(&value)
                        != value_text(&cell(got, &column).unwrap_or(Value::Null));
                    let same_partition = cell(want, &partition).map(|v| value_text(&v))
                        == cell(got, &partition).map(|v| value_text(&v));
                    if moved && same_partition {
                        let key =
                            t.pk.iter()
                                .map(|c| (c.clone(), cell(got, c).unwrap_or(Value::Null)));
                        out.push(Alignment {
                            table: table.clone(),
                            key: key.collect(),
                            column: column.clone(),
                            value,
                        });
                    }
                }
            }
        }
        out
    }
}

/// One table's rows before and after a step, recorded and strata's.
struct Sides<'a> {
    recorded_before: &'a Rows,
    recorded_after: &'a Rows,
    strata_before: &'a Rows,
    strata_after: &'a Rows,
}

impl Sides<'_> {
    /// Compares `column` partition by partition (`partition`), updating the groups of rows
    /// that may differ by a tie-breaking; the first difference.
    fn compare(
        &self,
        groups: &mut BTreeMap<String, String>,
        column: &str,
        partition: &str,
    ) -> Option<String> {
        let cell = |r: &Map<String, Value>, c: &str| value_text(r.get(c).unwrap_or(&Value::Null));
        // Rows tied before the step, on either side, join one group.
        for rows in [self.recorded_before, self.strata_before] {
            let mut ties: BTreeMap<(String, String), Vec<&String>> = BTreeMap::new();
            for (key, row) in rows {
                let at = (cell(row, partition), cell(row, column));
                ties.entry(at).or_default().push(key);
            }
            for keys in ties.values().filter(|k| k.len() > 1) {
                merge(groups, keys);
            }
        }
        // The rows the step added, partition by partition, join one group.
        let mut added: BTreeMap<String, Vec<&String>> = BTreeMap::new();
        for (after, before) in [
            (self.recorded_after, self.recorded_before),
            (self.strata_after, self.strata_before),
        ] {
            for (key, row) in after.iter().filter(|(k, _)| !before.contains_key(*k)) {
                added.entry(cell(row, partition)).or_default().push(key);
            }
        }
        for keys in added.values_mut() {
            keys.sort();
            keys.dedup();
            merge(groups, keys);
        }
        // A row the step added with the value of a row it removed, in the same partition
        // (a republish gives the new link the old link's order), continues that row's
        // group: the tie-breaking that numbered the old row numbers it.
        for (after, before) in [
            (self.recorded_after, self.recorded_before),
            (self.strata_after, self.strata_before),
        ] {
            for (key, row) in after.iter().filter(|(k, _)| !before.contains_key(*k)) {
                let at = (cell(row, partition), cell(row, column));
                let carried: Vec<&String> = before
                    .iter()
                    .filter(|(k, old)| {
                        !after.contains_key(*k)
                            && groups.contains_key(*k)
                            && (cell(old, partition), cell(old, column)) == at
                    })
                    .map(|(k, _)| k)
                    .collect();
                for gone in carried {
                    merge(groups, &[gone, key]);
                }
            }
        }
        // Partition → group → (recorded values, strata's values), over the rows both hold
        // in the same partition (other differences are the strict comparison's).
        type Values = (Vec<String>, Vec<String>);
        let mut partitions: BTreeMap<String, BTreeMap<String, Values>> = BTreeMap::new();
        let mut numberings: BTreeMap<String, Vec<(&String, String, String)>> = BTreeMap::new();
        for (key, want) in self.recorded_after {
            let Some(got) = self.strata_after.get(key) else {
                continue;
            };
            let at = cell(want, partition);
            if at != cell(got, partition) {
                continue;
            }
            let group = groups.get(key).unwrap_or(key).clone();
            let (w, g) = (cell(want, column), cell(got, column));
            let entry = partitions.entry(at.clone()).or_default();
            let values = entry.entry(group).or_default();
            values.0.push(w.clone());
            values.1.push(g.clone());
            numberings.entry(at).or_default().push((key, w, g));
        }
        for rows in numberings.values_mut() {
            rows.sort_by(|p, q| (p.0.len(), p.0).cmp(&(q.0.len(), q.0)));
        }
        let mut found = None;
        for (at, by_group) in &partitions {
            let differs = by_group.values().any(|(w, g)| {
                let (mut ws, mut gs) = (w.clone(), g.clone());
                ws.sort();
                gs.sort();
                ws != gs && !within_one_block(w, g)
            });
            let rows = &numberings[at];
            if differs && found.is_none() {
                let list = |strata: bool| {
                    let shown: Vec<String> = rows
                        .iter()
                        .map(|r| format!("{}: {}", r.0, if strata { &r.2 } else { &r.1 }))
                        .collect();
                    format!("{{{}}}", shown.join(", "))
                };
                found = Some(format!(
                    "where {partition} = {at}: no tie-breaking gives strata's numbering; \
                     expected (by id) {}, got {}",
                    list(false),
                    list(true)
                ));
            }
            // A group whose rows have the same values on both sides is over.
            for (key, want, got) in rows {
                if want == got
                    && let Some(label) = groups.get(*key).cloned()
                {
                    let members: Vec<&String> = rows
                        .iter()
                        .filter(|r| groups.get(r.0) == Some(&label))
                        .map(|r| r.0)
                        .collect();
                    let same = members
                        .iter()
                        .all(|m| rows.iter().any(|r| r.0 == *m && r.1 == r.2));
                    if same {
                        groups.retain(|_, l| *l != label);
                    }
                }
            }
        }
        found
    }
}

/// Puts the rows `keys` and the rows of their groups into one group.
fn merge(groups: &mut BTreeMap<String, String>, keys: &[&String]) {
    if keys.len() < 2 {
        return;
    }
    let labels: BTreeSet<String> = keys
        .iter()
        .map(|k| groups.get(*k).cloned().unwrap_or_else(|| (*k).clone()))
        .collect();
    let Some(label) = labels.iter().next().cloned() else {
        return;
    };
    for label_of in groups.values_mut() {
        if labels.contains(label_of) {
            *label_of = label.clone();
        }
    }
    for key in keys {
        groups.insert((*key).clone(), label.clone());
    }
    // A row that labelled its own group (and so was not in the map) keeps it.
    for l in &labels {
        groups.entry(l.clone()).or_insert_with(|| label.clone());
    }
}

/// Whether the rows of one group that the two sides number differently (`want` and `got`,
/// row by row) all hold numbers of one block as wide as the group: the numbering of a tie
/// whose numbers a later statement of the same step overwrote in part (the renumbering
/// gave the tied rows 2 and 3 in either order, then an upsert set one of them to 2:
/// one side keeps {2, 2}, the other {2, 3}; `cmp-update-with-ids#2` on MariaDB). The rows
/// that differ hold distinct numbers on each side, as a renumbering gives them.
fn within_one_block(want: &[String], got: &[String]) -> bool {
    let differing: Vec<(&String, &String)> = want.iter().zip(got).filter(|(w, g)| w != g).collect();
    // A renumbering gives the rows it numbers distinct numbers, on each side.
    for side in [0, 1] {
        let mut values: Vec<&String> = differing
            .iter()
            .map(|(w, g)| if side == 0 { *w } else { *g })
            .collect();
        values.sort();
        if values.windows(2).any(|p| p[0] == p[1]) {
            return false;
        }
    }
    let mut numbers = Vec::new();
    for (w, g) in differing {
        match (w.parse::<f64>(), g.parse::<f64>()) {
            (Ok(w), Ok(g)) => numbers.extend([w, g]),
            _ => return false,
        }
    }
    let (lo, hi) = numbers
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), n| (lo.min(*n), hi.max(*n)));
    !numbers.is_empty() && hi - lo < want.len() as f64
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::db::{Snapshot, Source, Table, diff};
    use super::*;

    #[test]
    fn an_overwritten_tie_stays_in_its_block() {
        let texts = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // Two tied rows numbered 2 and 3 either way, then one of them set to 2.
        assert!(within_one_block(&texts(&["2", "2"]), &texts(&["2", "3"])));
        // A number outside the group's block is a real difference.
        assert!(!within_one_block(&texts(&["1", "5"]), &texts(&["1", "2"])));
        assert!(!within_one_block(&texts(&["a", "2"]), &texts(&["b", "2"])));
    }

    /// A row `(id, article_id, tag_id, article_ord)`.
    type Link = (i64, i64, i64, f64);

    /// `articles_tags_lnk` holding `rows` (`tag_ord` 1).
    fn links(rows: &[Link]) -> Snapshot {
        let rows: Vec<Value> = rows
            .iter()
            .map(|(id, article, tag, ord)| {
                json!({"id": id, "article_id": article, "tag_id": tag,
                    "article_ord": ord, "tag_ord": 1.0})
            })
            .collect();
        let columns = ["id", "article_id", "tag_id", "article_ord", "tag_ord"];
        let table = Table::new(
            vec!["id".to_string()],
            columns.map(str::to_string).to_vec(),
            Source::Json(Value::Array(rows).to_string()),
        );
        Snapshot(BTreeMap::from([("articles_tags_lnk".to_string(), table)]))
    }

    /// Replays `steps` (each: the recorded state after it, strata's) from `start`: the
    /// first difference of each step.
    fn replay(start: &[Link], steps: &[(&[Link], &[Link])]) -> Vec<Option<String>> {
        let mut tolerance = Tolerance::new(&links(start));
        let (mut recorded_state, mut strata_state) = (links(start), links(start));
        let mut out = Vec::new();
        for (recorded, strata) in steps {
            let (recorded, strata) = (links(recorded), links(strata));
            let recorded_diff = diff(&recorded_state, &recorded);
            let strata_diff = diff(&strata_state, &strata);
            let tables = order_tables(&strata_state, &strata, &[&recorded_diff, &strata_diff]);
            let (found, next) = tolerance.step(
                &tables,
                &recorded_diff,
                &strata_state,
                &strata,
                &strata_diff,
            );
            tolerance = next;
            if found.is_some() {
                tolerance.resync(&strata);
            }
            out.push(found);
            (recorded_state, strata_state) = (recorded, strata);
        }
        out
    }

    #[test]
    fn partitions_are_the_other_ends() {
        let cols = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let pairs = |table: &str, names: &[&str]| {
            let mut found = order_columns(table, &cols(names));
            found.sort();
            found
                .into_iter()
                .map(|(c, p)| format!("{c} by {p}"))
                .collect::<Vec<_>>()
        };
        let tags = ["id", "article_id", "tag_id", "article_ord", "tag_ord"];
        assert_eq!(
            pairs("articles_tags_lnk", &tags),
            ["article_ord by tag_id", "tag_ord by article_id"]
        );
        let parent = ["id", "category_id", "inv_category_id", "category_ord"];
        assert_eq!(
            pairs("categories_parent_lnk", &parent),
            ["category_ord by inv_category_id"]
        );
        let related = ["id", "tag_id", "inv_tag_id", "tag_ord", "inv_tag_ord"];
        assert_eq!(
            pairs("tags_related_lnk", &related),
            ["inv_tag_ord by inv_tag_id", "tag_ord by tag_id"]
        );
        let cmps = [
            "id",
            "entity_id",
            "cmp_id",
            "component_type",
            "field",
            "order",
        ];
        assert_eq!(pairs("articles_cmps", &cmps), ["order by entity_id"]);
        assert!(pairs("articles_editor_lnk", &["id", "article_id", "user_id"]).is_empty());
        assert!(pairs("articles", &["id", "title_ord", "x_id"]).is_empty());
    }

    #[test]
    fn tied_rows_may_swap_their_numbers() {
        let start = [
            (1, 10, 5, 1.0),
            (2, 11, 5, 3.0),
            (3, 12, 5, 3.0),
            (4, 13, 5, 4.0),
        ];
        let recorded = [
            (1, 10, 5, 1.0),
            (2, 11, 5, 2.0),
            (3, 12, 5, 3.0),
            (4, 13, 5, 4.0),
        ];
        let strata = [
            (1, 10, 5, 1.0),
            (2, 11, 5, 3.0),
            (3, 12, 5, 2.0),
            (4, 13, 5, 4.0),
        ];
        assert_eq!(replay(&start, &[(&recorded, &strata)]), [None]);
    }

    #[test]
    fn rows_not_tied_may_not_swap() {
        let start = [(1, 10, 5, 1.0), (2, 11, 5, 2.0), (3, 12, 5, 3.0)];
        let recorded = [
            (1, 10, 5, 1.0),
            (2, 11, 5, 2.0),
            (3, 12, 5, 3.0),
            (4, 13, 5, 4.0),
        ];
        let strata = [
            (1, 10, 5, 2.0),
            (2, 11, 5, 1.0),
            (3, 12, 5, 3.0),
            (4, 13, 5, 4.0),
        ];
        let found = replay(&start, &[(&recorded, &strata)]);
        let message = found[0].as_deref().unwrap();
        assert!(
            message.contains("articles_tags_lnk.article_ord where tag_id = 5"),
            "{message}"
        );
        assert!(
            message.contains(
                "expected (by id) {1: 1, 2: 2, 3: 3, 4: 4}, got {1: 2, 2: 1, 3: 3, 4: 4}"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_renumbering_strata_skips_fails() {
        let start = [(1, 10, 5, 1.0), (2, 11, 5, 1.0), (3, 12, 5, 1.0)];
        let recorded = [(1, 10, 5, 1.0), (2, 11, 5, 2.0), (3, 12, 5, 3.0)];
        let found = replay(&start, &[(&recorded, &start)]);
        assert!(found[0].is_some());
    }

    #[test]
    fn added_rows_are_a_group_of_their_own() {
        let start = [(1, 10, 5, 1.0)];
        let recorded = [(1, 10, 5, 1.0), (2, 11, 5, 2.0), (3, 12, 5, 3.0)];
        let strata = [(1, 10, 5, 1.0), (2, 11, 5, 3.0), (3, 12, 5, 2.0)];
        assert_eq!(replay(&start, &[(&recorded, &strata)]), [None]);
        let wrong = [(1, 10, 5, 3.0), (2, 11, 5, 1.0), (3, 12, 5, 2.0)];
        assert!(replay(&start, &[(&recorded, &wrong)])[0].is_some());
    }

    /// Two tied rows numbered the other way stay so: a later renumbering shifts both, and
    /// is still a valid numbering, until both sides agree again.
    #[test]
    fn a_swap_is_carried_until_the_sides_agree() {
        let start = [(1, 10, 5, 1.0), (2, 11, 5, 2.0), (3, 12, 5, 2.0)];
        // Step 1: renumbered, the tie broken both ways.
        let r1 = [(1, 10, 5, 1.0), (2, 11, 5, 2.0), (3, 12, 5, 3.0)];
        let s1 = [(1, 10, 5, 1.0), (2, 11, 5, 3.0), (3, 12, 5, 2.0)];
        // Step 2: row 1 removed, the rest shifted.
        let r2 = [(2, 11, 5, 1.0), (3, 12, 5, 2.0)];
        let s2 = [(2, 11, 5, 2.0), (3, 12, 5, 1.0)];
        // Step 3: both set explicitly (the sides agree again); step 4: swapped, a failure.
        let r3 = [(2, 11, 5, 1.0), (3, 12, 5, 2.0)];
        let s4 = [(2, 11, 5, 2.0), (3, 12, 5, 1.0)];
        let found = replay(&start, &[(&r1, &s1), (&r2, &s2), (&r3, &r3), (&r3, &s4)]);
        assert_eq!(found[..3], [None, None, None]);
        assert!(found[3].is_some());
    }

    /// A tie broken both ways, then a step that replaces one of the tied rows by a new row
    /// with its value (a republish): the new row continues the old one's group.
    #[test]
    fn a_carried_value_continues_its_group() {
        let start = [(1, 10, 5, 1.0), (2, 11, 5, 1.0)];
        let r1 = [(1, 10, 5, 1.0), (2, 11, 5, 2.0)];
        let s1 = [(1, 10, 5, 2.0), (2, 11, 5, 1.0)];
        // Row 2 is replaced by row 3, which keeps row 2's value on each side.
        let r2 = [(1, 10, 5, 1.0), (3, 12, 5, 2.0)];
        let s2 = [(1, 10, 5, 2.0), (3, 12, 5, 1.0)];
        let found = replay(&start, &[(&r1, &s1), (&r2, &s2)]);
        assert_eq!(found, [None, None]);
        // Without the carry (row 3 a value of its own on strata's side) it still fails.
        let s2 = [(1, 10, 5, 2.0), (3, 12, 5, 3.0)];
        let found = replay(&start, &[(&r1, &s1), (&r2, &s2)]);
        assert!(found[1].is_some());
    }

    /// After a tie broken the other way, strata's rows are given the recorded numbers, and
    /// only those that differ; a row in another partition on strata's side is left alone.
    #[test]
    fn alignment_gives_the_recorded_numbering() {
        let start = [(1, 10, 5, 1.0), (2, 11, 5, 1.0), (3, 12, 6, 1.0)];
        let recorded = [(1, 10, 5, 1.0), (2, 11, 5, 2.0), (3, 12, 6, 1.0)];
        let strata = [(1, 10, 5, 2.0), (2, 11, 5, 1.0), (3, 12, 7, 4.0)];
        let (before, after) = (links(&start), links(&strata));
        let recorded_diff = diff(&before, &links(&recorded));
        let strata_diff = diff(&before, &after);
        let tables = order_tables(&before, &after, &[&recorded_diff, &strata_diff]);
        let tolerance = Tolerance::new(&before);
        let (found, next) = tolerance.step(&tables, &recorded_diff, &before, &after, &strata_diff);
        assert_eq!(found, None);
        let values = next.alignment(&after);
        let shown: Vec<String> = values
            .iter()
            .map(|a| format!("{} {:?} {}={}", a.table, a.key, a.column, a.value))
            .collect();
        assert_eq!(
            shown,
            [
                r#"articles_tags_lnk [("id", Number(1))] article_ord=1.0"#,
                r#"articles_tags_lnk [("id", Number(2))] article_ord=2.0"#,
            ]
        );
    }

    #[test]
    fn order_columns_leave_the_strict_diff() {
        let before = links(&[(1, 10, 5, 1.0), (2, 11, 5, 1.0)]);
        let after = links(&[(1, 10, 5, 2.0), (3, 12, 6, 1.0)]);
        let d = diff(&before, &after);
        let tables = order_tables(&before, &after, &[&d]);
        let stripped = without_order(&d, &tables);
        assert_eq!(
            Value::Object(stripped),
            json!({"articles_tags_lnk": {
                "added": [{"id": 3, "article_id": 12, "tag_id": 6}],
                "removed": [{"id": 2, "article_id": 11, "tag_id": 5}]
            }})
        );
    }
}
