//! The canonical printer: a [`Query`] back to a query string (without the `?`).
//!
//! [`print()`] is the inverse of [`parse_query`](super::parse_query): for every `Query` the
//! parser produces, `parse_query(&print(&q, model), …) == Ok(q)` with the same permissions
//! and a configuration whose `with_count` is the default (`true`), provided the printed string
//! is within the size limits (`maxQueryLength`, 1000 parameters): it can be longer than the
//! request it came from, since `populate=*` and comma lists print one entry per item. It is
//! checked by a property test over generated queries (`runtime/tests/query_roundtrip.rs`), by
//! re-parsing every golden request, and by a fuzz target (`fuzz/`).
//!
//! # The canonical form
//!
//! One `Query` prints one way; the output is deterministic and only uses these spellings:
//!
//! * **Bracket notation with explicit indexes** for every nested value:
//!   `filters[$or][0][title][$eq]=a`, `sort[0]=author.name:desc`, `fields[0]=title`.
//! * **Filters**: every field condition names its operator (`[title][$eq]=a`, never the
//!   implicit `[title]=a`; `$in` and `$notIn` always hold an indexed list). A relation,
//!   component or media condition nests under the attribute name
//!   (`filters[author][name][$eq]=Ada`), `attr[$null]=true|false` is a [`RelatedNull`], and
//!   `filters[localizations][…]` a [`Localizations`] condition. A [`Value::Null`] is a key
//!   without `=` (`filters[title][$eq]`). Where the parser reads a list as an AND (an element
//!   of `$and`/`$or`, the value of `$not`), a conjunction that is just an `$and` prints as
//!   that list: the parser counts it one level less deep against `maxDepth` than
//!   `[$and][0][…]`. The root of `filters` is always an object (`filters[$and][0][…]`):
//!   real Strapi crashes on a top-level list.
//! * **Values**: numbers as JavaScript's `String(n)` prints them (`1.5`, `1e+21`, `1e-7`),
//!   datetimes as `toISOString()` (`2024-01-15T10:30:00.000Z`; outside years 0–9999, as epoch
//!   milliseconds), dates and times as stored (`2024-01-15`, `10:30:00.000`), booleans as
//!   `true`/`false`.
//! * **Locale**: absent for the default, `locale=*` for all, `locale=fr` for one code,
//!   `locale[0]=en&locale[1]=fr` for several (and for a single empty code).
//! * **Status**: absent when published, `status=draft` otherwise.
//! * **Populate**: always the object form, `populate[author]=true` when there are no options,
//!   `populate[author][fields][0]=name`, `[filters]…`, `[sort][0]=…`, nested
//!   `[populate][…]`, `populate[tags][count]=true`, and dynamic zones always with their
//!   component types listed (`populate[blocks][on][shared.quote]=true`).
//! * **Pagination**: always explicit, `pagination[page]=2&pagination[pageSize]=10` or
//!   `pagination[start]=5&pagination[limit]=3`, plus `pagination[withCount]=false` when the
//!   total is not wanted.
//! * **Percent-encoding**: every byte outside `A-Z a-z 0-9 - _ . ~ ! $ ' ( ) * , : ; @ / ?` is
//!   written `%XX`, which covers `%`, `&`, `=`, `+`, `#`, `[`, `]`, space, control characters
//!   and non-ASCII text.
//!
//! Parameters come in the order of the [`Query`] fields: `filters`, `locale`, `status`,
//! `publicationFilter`, `populate`, `fields`, `sort`, `pagination`, `_q`.
//!
//! # Filters that have several spellings
//!
//! A filter object can hold each key once, and the parser turns the conditions of one key into
//! consecutive conditions, so a [`Conjunction`] prints as an object only if its conditions can
//! be grouped into distinct keys in order. Some conditions fit under more than one key
//! (`$not: {title: …}` and `title: {$not: …}` parse to the same value; so do `$or` of one
//! operator on one field and that operator with a list), and the printer searches for a
//! grouping that works. A conjunction the parser cannot produce (two conditions on one
//! relation, say) is printed as `$and` of its conditions: the same meaning, but not the same
//! value when parsed back.
//!
//! [`RelatedNull`]: Condition::RelatedNull
//! [`Localizations`]: Condition::Localizations

use std::fmt::Write as _;

use super::ast::*;
use super::values;
use crate::schema::{AttrId, AttributeKind, Model, Schema, SchemaId};

/// Prints `query` (a query on one of `model`'s schemas) as its canonical query string, without
/// the leading `?`. See the [module documentation](self) for the form and the guarantee.
pub fn print(query: &Query, model: &Model) -> String {
    let printer = Printer { model };
    let schema = model.schema(query.schema);
    let mut top: Vec<(&str, Node)> = Vec::new();
    if let Some(filters) = &query.filters {
        top.push(("filters", printer.filters_root(schema, filters)));
    }
    match &query.locale {
        LocaleSelector::Default => {}
        LocaleSelector::All => top.push(("locale", Node::text("*"))),
        LocaleSelector::Codes(codes) => top.push(("locale", locale_node(codes))),
    }
    if query.status == Status::Draft {
        top.push(("status", Node::text("draft")));
    }
    if let Some(p) = query.publication_filter {
        top.push(("publicationFilter", Node::text(p.as_str())));
    }
    if !query.populate.is_empty() {
        top.push(("populate", printer.populate(schema, &query.populate)));
    }
    if let Some(fields) = &query.fields {
        top.push(("fields", fields_node(schema, fields)));
    }
    if !query.sort.is_empty() {
        top.push(("sort", printer.sort(schema, &query.sort)));
    }
    top.push(("pagination", pagination_node(&query.pagination)));
    if let Some(q) = &query.search {
        top.push(("_q", Node::text(q)));
    }
    let mut out = String::new();
    for (key, node) in &top {
        let mut prefix = String::new();
        encode_into(&mut prefix, key);
        emit(&mut out, &mut prefix, node);
    }
    out
}

/// A qs value being printed: what `qs.parse` gives back for the printed pairs.
#[derive(Debug, Clone)]
enum Node {
    /// A key without `=`.
    Null,
    /// `key=value`.
    Str(String),
    /// `key[k]…` for each entry, in order.
    Map(Vec<(String, Node)>),
    /// `key[0]…`, `key[1]…`, …
    List(Vec<Node>),
}

impl Node {
    fn text(s: &str) -> Node {
        Node::Str(s.to_string())
    }

    fn flag(b: bool) -> Node {
        Node::text(if b { "true" } else { "false" })
    }
}

/// Writes the pairs of `node` under the (already encoded) key `prefix`.
fn emit(out: &mut String, prefix: &mut String, node: &Node) {
    match node {
        Node::Null | Node::Str(_) => {
            if !out.is_empty() {
                out.push('&');
            }
            out.push_str(prefix);
            if let Node::Str(v) = node {
                out.push('=');
                encode_into(out, v);
            }
        }
        Node::Map(entries) => {
            for (key, value) in entries {
                let len = prefix.len();
                prefix.push('[');
                encode_into(prefix, key);
                prefix.push(']');
                emit(out, prefix, value);
                prefix.truncate(len);
            }
        }
        Node::List(items) => {
            for (i, value) in items.iter().enumerate() {
                let len = prefix.len();
                let _ = write!(prefix, "[{i}]");
                emit(out, prefix, value);
                prefix.truncate(len);
            }
        }
    }
}

/// Percent-encodes `s` (as UTF-8) onto `out`: everything but the characters that mean nothing
/// to qs or to a URL's query part.
fn encode_into(out: &mut String, s: &str) {
    for b in s.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_'
                    | b'.'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b','
                    | b':'
                    | b';'
                    | b'@'
                    | b'/'
                    | b'?'
            );
        if keep {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
}

/// A number as JavaScript's `Number.prototype.toString()` prints it: the shortest digits that
/// read back as the same `f64`, in plain notation for magnitudes from 1e-6 up to (not
/// including) 1e21, and as `de±n` / `d.ddde±n` outside.
fn js_number(v: f64) -> String {
    if !v.is_finite() {
        // Not produced by the parser; print what JavaScript would.
        return values::js_number_string(v);
    }
    if v == 0.0 {
        return "0".into();
    }
    // `{:e}` gives the shortest round-trip digits: `d.ddde±x`.
    let sci = format!("{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let Ok(exp) = exp.parse::<i64>() else {
        return values::js_number_string(v);
    };
    let k = digits.len() as i64;
    let n = exp + 1;
    let mut out = String::new();
    if v < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        let _ = write!(out, "{int}.{frac}");
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            let _ = write!(out, ".{rest}");
        }
        let sign = if n - 1 < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{}", (n - 1).abs());
    }
    out
}

fn value_node(v: &Value) -> Node {
    match v {
        Value::Null => Node::Null,
        Value::Text(s) | Value::BigInt(s) | Value::Date(s) | Value::Time(s) => Node::text(s),
        Value::Number(n) => Node::Str(js_number(*n)),
        Value::Bool(b) => Node::flag(*b),
        Value::DateTime(ms) => {
            let iso = values::iso_string(*ms);
            // Years outside 0–9999 print as `+YYYYYY-…`, which the parser does not read:
            // print the epoch milliseconds it does read instead.
            if iso.starts_with(|c: char| c.is_ascii_digit()) {
                Node::Str(iso)
            } else {
                Node::Str(ms.to_string())
            }
        }
    }
}

fn operand_node(operand: &Operand) -> Node {
    match operand {
        Operand::One(v) => value_node(v),
        Operand::List(items) => Node::List(items.iter().map(value_node).collect()),
        Operand::Range(lo, hi) => Node::List(vec![value_node(lo), value_node(hi)]),
        Operand::Flag(b) => Node::flag(*b),
    }
}

fn attr_name(schema: &Schema, id: AttrId) -> &str {
    schema
        .attributes
        .get(id.index())
        .map_or("", |a| a.name.as_str())
}

fn field_name(schema: &Schema, field: FieldRef) -> &str {
    match field {
        FieldRef::Id => "id",
        FieldRef::DocumentId => "documentId",
        FieldRef::Attr(id) => attr_name(schema, id),
        FieldRef::CreatedAt => "createdAt",
        FieldRef::UpdatedAt => "updatedAt",
        FieldRef::PublishedAt => "publishedAt",
        FieldRef::Locale => "locale",
    }
}

fn locale_node(codes: &[String]) -> Node {
    match codes {
        // `locale` given as an object: the parser keeps no code (non-strict mode).
        [] => Node::Map(vec![("none".into(), Node::Null)]),
        [one] if !one.is_empty() => Node::text(one),
        _ => Node::List(codes.iter().map(|c| Node::text(c)).collect()),
    }
}

fn fields_node(schema: &Schema, fields: &[FieldRef]) -> Node {
    if fields.is_empty() {
        // `fields=`: only `id` and `documentId`.
        return Node::text("");
    }
    Node::List(
        fields
            .iter()
            .map(|f| Node::text(field_name(schema, *f)))
            .collect(),
    )
}

fn pagination_node(p: &Pagination) -> Node {
    let mut entries = match p.mode {
        PageMode::Page => vec![
            ("page".to_string(), Node::Str(p.page().to_string())),
            ("pageSize".to_string(), Node::Str(p.limit.to_string())),
        ],
        PageMode::Offset => vec![
            ("start".to_string(), Node::Str(p.start.to_string())),
            ("limit".to_string(), Node::Str(p.limit.to_string())),
        ],
    };
    if !p.with_count {
        entries.push(("withCount".into(), Node::flag(false)));
    }
    Node::Map(entries)
}

/// Where a conjunction is printed. Directly under a relation, component or media key the
/// parser reads `$not`, `$null`, `$notNull` and operators differently, so those keys are not
/// available there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Plain,
    Related,
}

/// One key of a filter object being built.
#[derive(Debug, Clone)]
struct Entry {
    key: String,
    node: Node,
    open: Open,
}

/// Whether later conditions may still go under an entry's key (only while it is the last key,
/// so that the parser sees them in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// Operators on this field.
    Field(FieldRef),
    /// A relation key holding only `$not`: the relation's own condition may follow.
    RelationNot(AttrId),
    /// Nothing more.
    Closed,
}

/// A way to put one condition into the object being built.
enum Placement {
    /// A new key at the end.
    Push(Entry),
    /// One more entry in the last key's object; `open` is its new state.
    Extend(String, Node, Open),
}

/// How many placements one conjunction may try before giving up on grouping it.
const SEARCH_BUDGET: usize = 4096;

struct Printer<'m> {
    model: &'m Model,
}

impl Printer<'_> {
    /// A conjunction as a filter object.
    fn conjunction(&self, schema: &Schema, conj: &Conjunction, ctx: Ctx) -> Node {
        Node::Map(self.conjunction_entries(schema, conj, ctx))
    }

    /// The value of a `filters` parameter: always an object. Strapi's own parser accepts a
    /// top-level list too, but its document service crashes on it (`filters[0][…]` gives a
    /// 500 on Strapi 5.54), so the canonical form spells a root AND as `filters[$and][0][…]`,
    /// which both read alike.
    fn filters_root(&self, schema: &Schema, conj: &Conjunction) -> Node {
        self.conjunction(schema, conj, Ctx::Plain)
    }

    /// A conjunction where the parser also reads a list (the root of `filters`, an element of
    /// `$and`/`$or`, the value of `$not`): one that is only an `$and` prints as that list,
    /// `[0][…]&[1][…]`, which the parser reads as the same value one level less deep than
    /// `[$and][0][…]` (it counts depth against `maxDepth`).
    fn element(&self, schema: &Schema, conj: &Conjunction) -> Node {
        match conj.0.as_slice() {
            [Condition::And(parts)] if !parts.is_empty() => {
                Node::List(parts.iter().map(|c| self.element(schema, c)).collect())
            }
            _ => self.conjunction(schema, conj, Ctx::Plain),
        }
    }

    fn conjunction_entries(
        &self,
        schema: &Schema,
        conj: &Conjunction,
        ctx: Ctx,
    ) -> Vec<(String, Node)> {
        let conds = conj.0.as_slice();
        let mut budget = SEARCH_BUDGET;
        if let Some(entries) = self.search(schema, ctx, conds, Vec::new(), &mut budget) {
            return finish_entries(entries);
        }
        if ctx == Ctx::Related
            && let Some(entries) = self.with_id_operators(schema, conds, &mut budget)
        {
            return entries;
        }
        // Not a conjunction the parser produces: print the same meaning as `$and`.
        let parts = conds
            .iter()
            .map(|c| {
                let mut budget = SEARCH_BUDGET;
                let entries = self
                    .search(
                        schema,
                        Ctx::Plain,
                        std::slice::from_ref(c),
                        Vec::new(),
                        &mut budget,
                    )
                    .unwrap_or_default();
                Node::Map(finish_entries(entries))
            })
            .collect();
        vec![("$and".into(), Node::List(parts))]
    }

    /// Under a relation, operators next to the attribute names apply to the related row's
    /// id and come after the other conditions: `author[name][$eq]=a&author[$gt]=3`.
    fn with_id_operators(
        &self,
        schema: &Schema,
        conds: &[Condition],
        budget: &mut usize,
    ) -> Option<Vec<(String, Node)>> {
        for split in (0..conds.len()).rev() {
            let (head, tail) = conds.split_at(split);
            let mut ops: Vec<(String, Node)> = Vec::new();
            let mut ok = true;
            for c in tail {
                match self.op_entry(FieldRef::Id, c, &ops) {
                    Some((k, _)) if matches!(k.as_str(), "$not" | "$null" | "$notNull") => {
                        ok = false;
                    }
                    Some(e) => ops.push(e),
                    None => ok = false,
                }
                if !ok {
                    break;
                }
            }
            if !ok {
                // A longer tail cannot work either once this one fails.
                return None;
            }
            if let Some(entries) = self.search(schema, Ctx::Related, head, Vec::new(), budget) {
                let mut out = finish_entries(entries);
                out.extend(ops);
                return Some(out);
            }
        }
        None
    }

    /// Depth-first search for a grouping of `conds` into keys, from the state `entries`.
    fn search(
        &self,
        schema: &Schema,
        ctx: Ctx,
        conds: &[Condition],
        mut entries: Vec<Entry>,
        budget: &mut usize,
    ) -> Option<Vec<Entry>> {
        let Some((first, rest)) = conds.split_first() else {
            return Some(entries);
        };
        let mut options = self.placements(schema, ctx, &entries, first);
        while !options.is_empty() {
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            let placement = options.remove(0);
            let attempt = if options.is_empty() {
                std::mem::take(&mut entries)
            } else {
                entries.clone()
            };
            if let Some(done) = self.search(schema, ctx, rest, apply(attempt, placement), budget) {
                return Some(done);
            }
        }
        None
    }

    /// Every way to place `cond` after `entries`, best first.
    fn placements(
        &self,
        schema: &Schema,
        ctx: Ctx,
        entries: &[Entry],
        cond: &Condition,
    ) -> Vec<Placement> {
        let mut out = Vec::new();
        let taken = |key: &str| entries.iter().any(|e| e.key == key);
        let last = entries.last();
        // Under a field key, as one of its operators.
        if let Some(field) = lead_field(cond) {
            let key = field_name(schema, field);
            match last {
                Some(e) if e.key == key && e.open == Open::Field(field) => {
                    if let Node::Map(ops) = &e.node
                        && let Some((k, n)) = self.op_entry(field, cond, ops)
                    {
                        out.push(Placement::Extend(k, n, Open::Field(field)));
                    }
                }
                _ if !taken(key) => {
                    if let Some(op) = self.op_entry(field, cond, &[]) {
                        out.push(Placement::Push(Entry {
                            key: key.to_string(),
                            node: Node::Map(vec![op]),
                            open: Open::Field(field),
                        }));
                    }
                }
                _ => {}
            }
        }
        match cond {
            Condition::Field { .. } => {}
            Condition::Or(parts) => {
                if !taken("$or") {
                    out.push(self.closed("$or", self.list(schema, parts)));
                }
            }
            Condition::And(parts) => {
                if !taken("$and") {
                    out.push(self.closed("$and", self.list(schema, parts)));
                }
            }
            Condition::Not(inner) => {
                // `attr[$not][…]` under a relation key, before the relation's own condition.
                if let [
                    Condition::Related {
                        attr,
                        target,
                        filter,
                    },
                ] = inner.0.as_slice()
                {
                    let key = attr_name(schema, *attr);
                    if !taken(key) {
                        let ts = self.model.schema(*target);
                        out.push(Placement::Push(Entry {
                            key: key.to_string(),
                            node: Node::Map(vec![(
                                "$not".into(),
                                self.conjunction(ts, filter, Ctx::Plain),
                            )]),
                            open: Open::RelationNot(*attr),
                        }));
                    }
                }
                if ctx == Ctx::Plain && !taken("$not") {
                    out.push(self.closed("$not", self.element(schema, inner)));
                }
            }
            Condition::Related {
                attr,
                target,
                filter,
            } => {
                let key = attr_name(schema, *attr);
                let ts = self.model.schema(*target);
                match last {
                    Some(e) if e.key == key && e.open == Open::RelationNot(*attr) => {
                        let entries = self.conjunction_entries(ts, filter, Ctx::Related);
                        out.push(Placement::Extend(
                            String::new(),
                            Node::Map(entries),
                            Open::Closed,
                        ));
                    }
                    _ if !taken(key) => out.push(Placement::Push(Entry {
                        key: key.to_string(),
                        node: self.conjunction(ts, filter, Ctx::Related),
                        open: Open::Closed,
                    })),
                    _ => {}
                }
            }
            Condition::RelatedNull { attr, is_null } => {
                let key = attr_name(schema, *attr);
                if !taken(key) {
                    out.push(
                        self.closed(key, Node::Map(vec![("$null".into(), Node::flag(*is_null))])),
                    );
                }
            }
            Condition::Localizations(inner) => {
                if !taken("localizations") {
                    out.push(
                        self.closed("localizations", self.conjunction(schema, inner, Ctx::Plain)),
                    );
                }
            }
        }
        out
    }

    fn closed(&self, key: &str, node: Node) -> Placement {
        Placement::Push(Entry {
            key: key.to_string(),
            node,
            open: Open::Closed,
        })
    }

    fn list(&self, schema: &Schema, parts: &[Conjunction]) -> Node {
        Node::List(parts.iter().map(|c| self.element(schema, c)).collect())
    }

    /// `cond` as one operator entry of `field`'s object, given the entries `ops` it already has.
    fn op_entry(
        &self,
        field: FieldRef,
        cond: &Condition,
        ops: &[(String, Node)],
    ) -> Option<(String, Node)> {
        let free = |key: &str| !ops.iter().any(|(k, _)| k == key);
        match cond {
            Condition::Field {
                field: f,
                op,
                operand,
            } if *f == field => {
                if *op == Op::Null {
                    let is_null = matches!(operand, Operand::Flag(true));
                    if free("$null") {
                        Some(("$null".into(), Node::flag(is_null)))
                    } else if free("$notNull") {
                        Some(("$notNull".into(), Node::flag(!is_null)))
                    } else {
                        None
                    }
                } else {
                    let key = op.as_str();
                    free(key).then(|| (key.to_string(), operand_node(operand)))
                }
            }
            // `field[$op][0]=a&field[$op][1]=b` is an `$or` of `field[$op]`.
            Condition::Or(parts) => {
                let mut op = None;
                let mut items = Vec::with_capacity(parts.len());
                for part in parts {
                    let [
                        Condition::Field {
                            field: f,
                            op: o,
                            operand: Operand::One(v),
                        },
                    ] = part.0.as_slice()
                    else {
                        return None;
                    };
                    let single = !matches!(o, Op::In | Op::NotIn | Op::Between | Op::Null);
                    if *f != field || !single || op.is_some_and(|p| p != *o) {
                        return None;
                    }
                    op = Some(*o);
                    items.push(value_node(v));
                }
                let key = op?.as_str();
                free(key).then(|| (key.to_string(), Node::List(items)))
            }
            Condition::Not(inner) if free("$not") && !inner.0.is_empty() => {
                let mut sub: Vec<(String, Node)> = Vec::new();
                for c in &inner.0 {
                    let e = self.op_entry(field, c, &sub)?;
                    sub.push(e);
                }
                Some(("$not".into(), Node::Map(sub)))
            }
            _ => None,
        }
    }

    /// `populate` as an object.
    fn populate(&self, schema: &Schema, populate: &Populate) -> Node {
        let mut entries = Vec::with_capacity(populate.0.len());
        for entry in &populate.0 {
            let key = match entry.key {
                PopulateKey::Attr(id) => attr_name(schema, id).to_string(),
                PopulateKey::Localizations => "localizations".to_string(),
            };
            let node = match &entry.kind {
                PopulateKind::Rows { target, options } => {
                    self.options(self.model.schema(*target), options)
                }
                PopulateKind::Count { target, filters } => {
                    let mut m = vec![("count".to_string(), Node::flag(true))];
                    if let Some(f) = filters {
                        let ts = self.model.schema(*target);
                        m.push(("filters".into(), self.filters_root(ts, f)));
                    }
                    Node::Map(m)
                }
                PopulateKind::Zone(list) => self.zone(schema, entry.key, list),
            };
            entries.push((key, node));
        }
        Node::Map(entries)
    }

    fn zone(
        &self,
        schema: &Schema,
        key: PopulateKey,
        list: &[(SchemaId, PopulateOptions)],
    ) -> Node {
        // A zone populated without `on` lists every component (its items may be of any):
        // printed as that form, `true` or `populate=*` (which the parser reads back as
        // every component, each with all its own populated, `populate_all`).
        let mut every: Vec<SchemaId> = self.model.components().map(|c| c.id).collect();
        every.sort_unstable();
        let mut ids: Vec<SchemaId> = list.iter().map(|(c, _)| *c).collect();
        ids.sort_unstable();
        if !list.is_empty() && ids == every {
            if list.iter().all(|(_, o)| *o == PopulateOptions::default()) {
                return Node::flag(true);
            }
            let only_populate = |o: &PopulateOptions| {
                o.fields.is_none() && o.filters.is_none() && o.sort.is_empty()
            };
            if list.iter().all(|(_, o)| only_populate(o)) {
                return Node::Map(vec![("populate".into(), Node::text("*"))]);
            }
        }
        // `on` takes the zone's own members only.
        let members = match key {
            PopulateKey::Attr(id) => match schema.attributes.get(id.index()).map(|a| &a.kind) {
                Some(AttributeKind::DynamicZone(z)) => Some(&z.components),
                _ => None,
            },
            PopulateKey::Localizations => None,
        };
        let list: Vec<&(SchemaId, PopulateOptions)> = list
            .iter()
            .filter(|(c, _)| members.is_none_or(|m| m.contains(c)))
            .collect();
        if list.is_empty() {
            // Populated with no component type: one type switched off.
            let first = match key {
                PopulateKey::Attr(id) => match schema.attributes.get(id.index()).map(|a| &a.kind) {
                    Some(AttributeKind::DynamicZone(z)) => z.components.first().copied(),
                    _ => None,
                },
                PopulateKey::Localizations => None,
            };
            return match first {
                Some(c) => Node::Map(vec![(
                    "on".into(),
                    Node::Map(vec![(
                        self.model.schema(c).uid.as_str().to_string(),
                        Node::flag(false),
                    )]),
                )]),
                None => Node::flag(true),
            };
        }
        let frags = list
            .into_iter()
            .map(|(c, options)| {
                let cs = self.model.schema(*c);
                (cs.uid.as_str().to_string(), self.options(cs, options))
            })
            .collect();
        Node::Map(vec![("on".into(), Node::Map(frags))])
    }

    /// The options of one populated attribute (`true` when there are none).
    fn options(&self, schema: &Schema, options: &PopulateOptions) -> Node {
        let mut m = Vec::new();
        if let Some(fields) = &options.fields {
            m.push(("fields".to_string(), fields_node(schema, fields)));
        }
        if let Some(filters) = &options.filters {
            m.push(("filters".to_string(), self.filters_root(schema, filters)));
        }
        if !options.sort.is_empty() {
            m.push(("sort".to_string(), self.sort(schema, &options.sort)));
        }
        if !options.populate.is_empty() {
            m.push((
                "populate".to_string(),
                self.populate(schema, &options.populate),
            ));
        }
        if m.is_empty() {
            Node::flag(true)
        } else {
            Node::Map(m)
        }
    }

    /// `sort` as an indexed list of `path.to.field:asc|desc`; keys that share joined rows
    /// ([`SortKey::shared_hops`]) as one object of the list, which is how they were given.
    fn sort(&self, schema: &Schema, keys: &[SortKey]) -> Node {
        let runs: Vec<&[SortKey]> = keys.chunk_by(|_, next| next.shared_hops > 0).collect();
        if runs.iter().all(|r| r.len() == 1) {
            let items: Vec<String> = keys.iter().map(|k| self.sort_key(schema, k)).collect();
            // qs turns lists of more than 100 entries into objects; one comma list reads
            // the same.
            if items.len() > 100 {
                return Node::Str(items.join(","));
            }
            return Node::List(items.into_iter().map(Node::Str).collect());
        }
        // Strapi takes a list of strings or a list of objects, not both.
        Node::List(
            runs.into_iter()
                .map(|run| self.sort_object(schema, run))
                .collect(),
        )
    }

    /// Keys sharing joined rows as one sort object: `{articles: {title: "asc", …}}`.
    fn sort_object(&self, schema: &Schema, keys: &[SortKey]) -> Node {
        let mut root: Vec<(String, Node)> = Vec::new();
        for key in keys {
            let mut names = Vec::with_capacity(key.path.len() + 1);
            let mut cur = schema;
            for (attr, target) in &key.path {
                names.push(attr_name(cur, *attr).to_string());
                cur = self.model.schema(*target);
            }
            names.push(field_name(cur, key.field).to_string());
            let direction = match key.direction {
                Direction::Asc => "asc",
                Direction::Desc => "desc",
            };
            insert_sort_leaf(&mut root, &names, direction);
        }
        Node::Map(root)
    }

    fn sort_key(&self, schema: &Schema, key: &SortKey) -> String {
        let mut out = String::new();
        let mut cur = schema;
        for (attr, target) in &key.path {
            out.push_str(attr_name(cur, *attr));
            out.push('.');
            cur = self.model.schema(*target);
        }
        out.push_str(field_name(cur, key.field));
        out.push_str(match key.direction {
            Direction::Asc => ":asc",
            Direction::Desc => ":desc",
        });
        out
    }
}

/// Puts `direction` at `names` (relations, then the field) in a sort object, under the
/// entries already there for the same relations.
fn insert_sort_leaf(level: &mut Vec<(String, Node)>, names: &[String], direction: &str) {
    let [name, rest @ ..] = names else {
        return;
    };
    if rest.is_empty() {
        level.push((name.clone(), Node::text(direction)));
        return;
    }
    let at = match level.iter().position(|(n, _)| n == name) {
        Some(i) => i,
        None => {
            level.push((name.clone(), Node::Map(Vec::new())));
            level.len() - 1
        }
    };
    if let Node::Map(next) = &mut level[at].1 {
        insert_sort_leaf(next, rest, direction);
    }
}

/// The field whose operators `cond` can be printed among, if any.
fn lead_field(cond: &Condition) -> Option<FieldRef> {
    match cond {
        Condition::Field { field, .. } => Some(*field),
        Condition::Or(parts) => parts.first().and_then(|c| c.0.first()).and_then(lead_field),
        Condition::Not(inner) => inner.0.first().and_then(lead_field),
        _ => None,
    }
}

fn apply(mut entries: Vec<Entry>, placement: Placement) -> Vec<Entry> {
    match placement {
        Placement::Push(e) => entries.push(e),
        Placement::Extend(key, node, open) => {
            if let Some(last) = entries.last_mut() {
                last.open = open;
                if let Node::Map(m) = &mut last.node {
                    if key.is_empty() {
                        // A whole object merged in (a relation's condition after its `$not`).
                        if let Node::Map(more) = node {
                            m.extend(more);
                        }
                    } else {
                        m.push((key, node));
                    }
                }
            }
        }
    }
    entries
}

fn finish_entries(entries: Vec<Entry>) -> Vec<(String, Node)> {
    entries.into_iter().map(|e| (e.key, e.node)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_javascript_does() {
        for (v, s) in [
            (0.0, "0"),
            (-0.0, "0"),
            (25.0, "25"),
            (-5.0, "-5"),
            (1.5, "1.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (123_456_789_012_345_680_000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (-2.5e-8, "-2.5e-8"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (9_007_199_254_740_993.0, "9007199254740992"),
        ] {
            assert_eq!(js_number(v), s, "{v:?}");
            assert_eq!(values::js_number(s), Some(if v == 0.0 { 0.0 } else { v }));
        }
    }

    #[test]
    fn encoding_covers_the_characters_qs_reads() {
        let mut out = String::new();
        encode_into(&mut out, "a b&c=d+e#f[g]h%i\u{1}é$:,");
        assert_eq!(out, "a%20b%26c%3Dd%2Be%23f%5Bg%5Dh%25i%01%C3%A9$:,");
    }
}
