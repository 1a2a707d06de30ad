//! The canonical printer is the inverse of the parser:
//!
//! * `generated_queries_round_trip`: for arbitrary valid `Query` values on the blog model
//!   (every operator, values of every attribute type, relations, components and media
//!   nested in filters, `$and`/`$or`/`$not`, populate with options, counts and dynamic zones,
//!   sort paths, fields, both pagination modes), `parse_query(print(q)) == Ok(q)`.
//! * `golden_requests_round_trip`: for every recorded Strapi request that parses,
//!   `parse(print(parse(raw))) == parse(raw)`.
//!
//! The generator builds a filter object the way the parser reads one: a list of keys, each
//! with the consecutive conditions that key gives (operators on a field, a relation's `$not`
//! and its own condition, `$and`, `$or`, `$not`, `localizations`), with no key twice.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::Config;
use serde_json::Value as Json;
use strata_runtime::query::print::print;
use strata_runtime::query::{
    Condition, Conjunction, Direction, FieldRef, LocaleSelector, Op, Operand, PageMode, Pagination,
    Permissions, Populate, PopulateEntry, PopulateKey, PopulateKind, PopulateOptions,
    PublicationFilter, Query, QueryConfig, SortKey, Status, Value, parse_query, values,
};
use strata_runtime::schema::{self, AttrId, AttributeKind, Model, ScalarType, Schema, SchemaId};

static MODEL: LazyLock<Model> = LazyLock::new(|| {
    schema::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/blog/schemas"))
        .expect("the blog model loads")
});

fn model() -> &'static Model {
    &MODEL
}

fn schema(id: SchemaId) -> &'static Schema {
    model().schema(id)
}

// ------------------------------------------------------------------------- the model's names

/// How a field's values are coerced (the parser's `ValueKind`, with the row id apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Text,
    Id,
    Number,
    BigInt,
    Bool,
    Date,
    Time,
    DateTime,
}

fn kind_of(s: &Schema, field: FieldRef) -> Kind {
    match field {
        FieldRef::Id => Kind::Id,
        FieldRef::DocumentId | FieldRef::Locale => Kind::Text,
        FieldRef::CreatedAt | FieldRef::UpdatedAt | FieldRef::PublishedAt => Kind::DateTime,
        FieldRef::Attr(id) => match s.attributes[id.index()].kind.scalar() {
            Some(ScalarType::Integer | ScalarType::Float | ScalarType::Decimal) => Kind::Number,
            Some(ScalarType::BigInteger) => Kind::BigInt,
            Some(ScalarType::Boolean) => Kind::Bool,
            Some(ScalarType::Date) => Kind::Date,
            Some(ScalarType::Time) => Kind::Time,
            Some(ScalarType::DateTime | ScalarType::Timestamp) => Kind::DateTime,
            _ => Kind::Text,
        },
    }
}

fn localized(s: &Schema) -> bool {
    s.is_content_type() && s.localized
}

/// Fields that `fields` may list (never `id` or `documentId`).
fn selectable(s: &Schema) -> Vec<FieldRef> {
    let mut out = Vec::new();
    if s.is_content_type() {
        out.extend([
            FieldRef::CreatedAt,
            FieldRef::UpdatedAt,
            FieldRef::PublishedAt,
        ]);
        if s.localized {
            out.push(FieldRef::Locale);
        }
    }
    out.extend(
        s.attributes
            .iter()
            .filter(|a| !a.private && matches!(a.kind, AttributeKind::Scalar(_)))
            .map(|a| FieldRef::Attr(a.id)),
    );
    out
}

/// Fields that filters and sort may name.
fn filterable(s: &Schema) -> Vec<FieldRef> {
    let mut out = vec![FieldRef::Id];
    if s.is_content_type() {
        out.push(FieldRef::DocumentId);
    }
    out.extend(selectable(s));
    out
}

/// Relations, components and media that filters and sort may follow, with their targets.
fn followable(s: &Schema) -> Vec<(AttrId, SchemaId)> {
    s.attributes
        .iter()
        .filter(|a| !a.private)
        .filter_map(|a| match &a.kind {
            AttributeKind::Relation(rel) if !rel.kind.is_morph() => rel.target.map(|t| (a.id, t)),
            AttributeKind::Component(c) => Some((a.id, c.component)),
            AttributeKind::Media(_) => model().upload_file().map(|f| (a.id, f.id)),
            _ => None,
        })
        .collect()
}

#[derive(Debug, Clone)]
enum PopTarget {
    /// A relation: rows or a count.
    Relation(SchemaId),
    /// A component, media or `localizations` (whose `count` Strapi ignores): rows.
    Rows(SchemaId),
    /// A dynamic zone's component types.
    Zone(Vec<SchemaId>),
}

fn populatable(s: &Schema) -> Vec<(PopulateKey, PopTarget)> {
    let mut out: Vec<(PopulateKey, PopTarget)> = s
        .attributes
        .iter()
        .filter(|a| !a.private)
        .filter_map(|a| {
            let target = match &a.kind {
                AttributeKind::Relation(rel) if !rel.kind.is_morph() => {
                    PopTarget::Relation(rel.target?)
                }
                AttributeKind::Component(c) => PopTarget::Rows(c.component),
                AttributeKind::Media(_) => PopTarget::Rows(model().upload_file()?.id),
                AttributeKind::DynamicZone(z) => {
                    let mut cs = z.components.clone();
                    cs.sort();
                    PopTarget::Zone(cs)
                }
                _ => return None,
            };
            Some((PopulateKey::Attr(a.id), target))
        })
        .collect();
    if localized(s) {
        out.push((PopulateKey::Localizations, PopTarget::Rows(s.id)));
    }
    out
}

// ------------------------------------------------------------------------------------ values

/// Strings with what needs encoding: qs's separators, `%`, spaces, control and non-ASCII
/// characters.
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-z]{0,6}",
        3 => "[ -~]{0,8}",
        2 => prop::collection::vec(any::<char>(), 0..6).prop_map(String::from_iter),
        1 => "(%5[bBdD]|%2[0-9]|\\+|&|=|\\]=|\\[\\]){1,4}",
    ]
    .boxed()
}

fn number() -> BoxedStrategy<f64> {
    use prop::num::f64::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    prop_oneof![
        3 => (-1000i32..1000).prop_map(f64::from),
        1 => POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO,
    ]
    .boxed()
}

/// A value of `kind` as a cast operator (`$eq`, `$lt`, `$in`, …) leaves it; the other
/// operators keep text.
fn value(kind: Kind, cast: bool) -> BoxedStrategy<Value> {
    let typed = if !cast {
        text().prop_map(Value::Text).boxed()
    } else {
        match kind {
            Kind::Text => text().prop_map(Value::Text).boxed(),
            Kind::Number => number().prop_map(Value::Number).boxed(),
            Kind::Id => prop_oneof![
                3 => (0u32..100_000).prop_map(|n| Value::Number(f64::from(n))),
                1 => text()
                    .prop_filter("ids that are not numbers stay text", |s| {
                        values::js_number(s).is_none()
                    })
                    .prop_map(Value::Text),
            ]
            .boxed(),
            Kind::BigInt => "[+-]?[0-9]{1,22}".prop_map(Value::BigInt).boxed(),
            Kind::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
            Kind::Date => (0u32..=9999, 1u32..=12, 1u32..=28)
                .prop_map(|(y, m, d)| Value::Date(format!("{y:04}-{m:02}-{d:02}")))
                .boxed(),
            Kind::Time => (0u32..24, 0u32..60, 0u32..60, 0u32..1000)
                .prop_map(|(h, m, s, ms)| Value::Time(format!("{h:02}:{m:02}:{s:02}.{ms:03}")))
                .boxed(),
            Kind::DateTime => prop_oneof![
                // Years 0 to 9999 print as ISO strings, the others as epoch milliseconds.
                4 => (-62_167_219_200_000i64..253_402_300_800_000).prop_map(Value::DateTime),
                1 => any::<i64>().prop_map(Value::DateTime),
            ]
            .boxed(),
        }
    };
    prop_oneof![9 => typed, 1 => Just(Value::Null)].boxed()
}

// ----------------------------------------------------------------------------------- filters

/// The operators that take one value.
const SINGLE_OPS: [Op; 16] = [
    Op::Eq,
    Op::Eqi,
    Op::Ne,
    Op::Nei,
    Op::Lt,
    Op::Lte,
    Op::Gt,
    Op::Gte,
    Op::Contains,
    Op::NotContains,
    Op::Containsi,
    Op::NotContainsi,
    Op::StartsWith,
    Op::StartsWithi,
    Op::EndsWith,
    Op::EndsWithi,
];

fn field(f: FieldRef, op: Op, operand: Operand) -> Condition {
    Condition::Field {
        field: f,
        op,
        operand,
    }
}

/// One key of a filter object and the consecutive conditions the parser reads from it.
type KeyGroup = BoxedStrategy<(String, Vec<Condition>)>;

/// Keeps the first of each key and flattens the conditions.
fn dedupe(groups: Vec<(String, Vec<Condition>)>) -> Vec<Condition> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (key, conds) in groups {
        if !seen.contains(&key) {
            seen.push(key);
            out.extend(conds);
        }
    }
    out
}

/// One operator key of a field's object and the conditions it gives.
fn op_item(f: FieldRef, kind: Kind, nesting: u32) -> KeyGroup {
    // Both values are drawn so that shrinking never has to regenerate one.
    let single = (
        prop::sample::select(SINGLE_OPS.to_vec()),
        value(kind, true),
        value(kind, false),
    )
        .prop_map(move |(op, cast, text)| {
            let v = if op.casts() { cast } else { text };
            (op.as_str().to_string(), vec![field(f, op, Operand::One(v))])
        });
    let null = any::<bool>().prop_map(move |b| {
        (
            "$null".to_string(),
            vec![field(f, Op::Null, Operand::Flag(b))],
        )
    });
    let not_null = any::<bool>().prop_map(move |b| {
        (
            "$notNull".to_string(),
            vec![field(f, Op::Null, Operand::Flag(!b))],
        )
    });
    let list = (
        prop::sample::select(vec![Op::In, Op::NotIn]),
        prop::collection::vec(value(kind, true), 1..4),
    )
        .prop_map(move |(op, vs)| {
            (
                op.as_str().to_string(),
                vec![field(f, op, Operand::List(vs))],
            )
        });
    let between = (value(kind, true), value(kind, true)).prop_map(move |(lo, hi)| {
        (
            "$between".to_string(),
            vec![field(f, Op::Between, Operand::Range(lo, hi))],
        )
    });
    // `field[$op][0]=a&field[$op][1]=b`: an `$or` of one operator.
    let alternatives = (
        prop::sample::select(SINGLE_OPS.to_vec()),
        prop::collection::vec((value(kind, true), value(kind, false)), 1..3),
    )
        .prop_map(move |(op, vs)| {
            let alts = vs
                .into_iter()
                .map(|(cast, text)| {
                    let v = if op.casts() { cast } else { text };
                    Conjunction(vec![field(f, op, Operand::One(v))])
                })
                .collect();
            (op.as_str().to_string(), vec![Condition::Or(alts)])
        });
    let mut options: Vec<(u32, KeyGroup)> = vec![
        (6, single.boxed()),
        (1, null.boxed()),
        (1, not_null.boxed()),
        (2, list.boxed()),
        (1, between.boxed()),
        (1, alternatives.boxed()),
    ];
    if nesting > 0 {
        let not = prop::collection::vec(op_item(f, kind, nesting - 1), 1..3).prop_map(|items| {
            (
                "$not".to_string(),
                vec![Condition::Not(Conjunction(dedupe(items)))],
            )
        });
        options.push((1, not.boxed()));
    }
    Union::new_weighted(options).boxed()
}

thread_local! {
    static CONJ: RefCell<HashMap<(SchemaId, u32, bool), BoxedStrategy<Conjunction>>> =
        RefCell::new(HashMap::new());
    static POP: RefCell<HashMap<(SchemaId, u32), BoxedStrategy<Populate>>> =
        RefCell::new(HashMap::new());
}

/// A non-empty filter object on `s`, nested `depth` levels at most. `under_relation`: the
/// object sits directly under a relation key, where `$not` means something else.
fn conjunction(s: SchemaId, depth: u32, under_relation: bool) -> BoxedStrategy<Conjunction> {
    let key = (s, depth, under_relation);
    if let Some(found) = CONJ.with(|c| c.borrow().get(&key).cloned()) {
        return found;
    }
    let strategy = prop::collection::vec(group(s, depth, under_relation), 1..4)
        .prop_map(|groups| Conjunction(dedupe(groups)))
        .boxed();
    CONJ.with(|c| c.borrow_mut().insert(key, strategy.clone()));
    strategy
}

/// One key of a filter object on `s` and the conditions it gives.
fn group(s: SchemaId, depth: u32, under_relation: bool) -> KeyGroup {
    let sc = schema(s);
    let mut options: Vec<(u32, KeyGroup)> = Vec::new();
    let fields: Vec<KeyGroup> = filterable(sc)
        .into_iter()
        .map(|f| {
            let name = field_name(sc, f);
            prop::collection::vec(op_item(f, kind_of(sc, f), 2), 1..4)
                .prop_map(move |items| (name.clone(), dedupe(items)))
                .boxed()
        })
        .collect();
    options.push((8, Union::new(fields).boxed()));
    if depth > 0 {
        let d = depth - 1;
        let relations: Vec<KeyGroup> = followable(sc)
            .into_iter()
            .map(|(attr, target)| {
                let name = sc.attributes[attr.index()].name.clone();
                let related = move |filter| Condition::Related {
                    attr,
                    target,
                    filter,
                };
                let null_name = name.clone();
                prop_oneof![
                    1 => any::<bool>().prop_map(move |is_null| {
                        (null_name.clone(), vec![Condition::RelatedNull { attr, is_null }])
                    }),
                    4 => (
                        prop::option::of(conjunction(target, d, false)),
                        prop::option::of(conjunction(target, d, true)),
                        conjunction(target, d, true),
                    )
                        .prop_map(move |(not, own, fallback)| {
                            let mut conds = Vec::new();
                            let has_not = not.is_some();
                            if let Some(inner) = not {
                                conds.push(Condition::Not(Conjunction(vec![related(inner)])));
                            }
                            match own {
                                Some(filter) => conds.push(related(filter)),
                                None if !has_not => conds.push(related(fallback)),
                                None => {}
                            }
                            (name.clone(), conds)
                        }),
                ]
                .boxed()
            })
            .collect();
        if !relations.is_empty() {
            options.push((3, Union::new(relations).boxed()));
        }
        let list = || prop::collection::vec(conjunction(s, d, false), 1..3);
        options.push((
            1,
            list()
                .prop_map(|parts| ("$and".to_string(), vec![Condition::And(parts)]))
                .boxed(),
        ));
        options.push((
            1,
            list()
                .prop_map(|parts| ("$or".to_string(), vec![Condition::Or(parts)]))
                .boxed(),
        ));
        if !under_relation {
            options.push((
                1,
                conjunction(s, d, false)
                    .prop_map(|c| ("$not".to_string(), vec![Condition::Not(c)]))
                    .boxed(),
            ));
        }
        if localized(sc) {
            options.push((
                1,
                conjunction(s, d, false)
                    .prop_map(|c| {
                        (
                            "localizations".to_string(),
                            vec![Condition::Localizations(c)],
                        )
                    })
                    .boxed(),
            ));
        }
    }
    Union::new_weighted(options).boxed()
}

fn field_name(s: &Schema, f: FieldRef) -> String {
    match f {
        FieldRef::Id => "id".into(),
        FieldRef::DocumentId => "documentId".into(),
        FieldRef::Attr(id) => s.attributes[id.index()].name.clone(),
        FieldRef::CreatedAt => "createdAt".into(),
        FieldRef::UpdatedAt => "updatedAt".into(),
        FieldRef::PublishedAt => "publishedAt".into(),
        FieldRef::Locale => "locale".into(),
    }
}

// ------------------------------------------------------------------ fields, sort, populate

fn fields(s: SchemaId) -> BoxedStrategy<Vec<FieldRef>> {
    let all = selectable(schema(s));
    let n = all.len();
    prop::sample::subsequence(all, 0..=n).prop_shuffle().boxed()
}

fn sort_key(s: SchemaId, steps: u32) -> BoxedStrategy<SortKey> {
    let sc = schema(s);
    let leaf = (
        prop::sample::select(filterable(sc)),
        prop::sample::select(vec![Direction::Asc, Direction::Desc]),
    )
        .prop_map(|(field, direction)| SortKey::new(Vec::new(), field, direction))
        .boxed();
    let follow = followable(sc);
    if steps == 0 || follow.is_empty() {
        return leaf;
    }
    let deeper: Vec<BoxedStrategy<SortKey>> = follow
        .into_iter()
        .map(|(attr, target)| {
            sort_key(target, steps - 1)
                .prop_map(move |mut k| {
                    k.path.insert(0, (attr, target));
                    k
                })
                .boxed()
        })
        .collect();
    prop_oneof![2 => leaf, 1 => Union::new(deeper)].boxed()
}

fn options(s: SchemaId, level: u32) -> BoxedStrategy<PopulateOptions> {
    let populate = if level < 2 {
        populate(s, level + 1)
    } else {
        Just(Populate::default()).boxed()
    };
    (
        prop::option::weighted(0.3, fields(s)),
        prop::option::weighted(0.2, conjunction(s, 1, false)),
        prop::collection::vec(sort_key(s, 1), 0..3),
        populate,
    )
        .prop_map(|(fields, filters, sort, populate)| PopulateOptions {
            fields,
            filters,
            sort,
            populate,
        })
        .boxed()
}

fn populate(s: SchemaId, level: u32) -> BoxedStrategy<Populate> {
    let key = (s, level);
    if let Some(found) = POP.with(|c| c.borrow().get(&key).cloned()) {
        return found;
    }
    let entries: Vec<BoxedStrategy<Option<PopulateEntry>>> = populatable(schema(s))
        .into_iter()
        .map(|(key, target)| {
            let kind = match target {
                PopTarget::Relation(t) => prop_oneof![
                    3 => options(t, level).prop_map(move |options| PopulateKind::Rows {
                        target: t,
                        options,
                    }),
                    1 => prop::option::of(conjunction(t, 1, false))
                        .prop_map(move |filters| PopulateKind::Count { target: t, filters }),
                ]
                .boxed(),
                PopTarget::Rows(t) => options(t, level)
                    .prop_map(move |options| PopulateKind::Rows { target: t, options })
                    .boxed(),
                PopTarget::Zone(components) => components
                    .into_iter()
                    .map(|c| {
                        prop::option::weighted(0.5, options(c, level + 1))
                            .prop_map(move |o| o.map(|o| (c, o)))
                            .boxed()
                    })
                    .collect::<Vec<_>>()
                    .prop_map(|list| PopulateKind::Zone(list.into_iter().flatten().collect()))
                    .boxed(),
            };
            prop::option::weighted(0.25, kind)
                .prop_map(move |k| k.map(|kind| PopulateEntry { key, kind }))
                .boxed()
        })
        .collect();
    let strategy = entries
        .prop_map(|list| Populate(list.into_iter().flatten().collect()))
        .boxed();
    POP.with(|c| c.borrow_mut().insert(key, strategy.clone()));
    strategy
}

// ------------------------------------------------------------------------------- the query

fn locale(s: SchemaId) -> BoxedStrategy<LocaleSelector> {
    if localized(schema(s)) {
        let code = text().prop_filter("`*` means every locale", |c| c != "*");
        prop_oneof![
            3 => Just(LocaleSelector::Default),
            1 => Just(LocaleSelector::All),
            3 => prop::collection::vec(code, 1..4).prop_map(LocaleSelector::Codes),
            1 => Just(LocaleSelector::Codes(Vec::new())),
        ]
        .boxed()
    } else {
        // Non-localized types ignore `locale`: the parser always gives `Default`.
        Just(LocaleSelector::Default).boxed()
    }
}

fn pagination() -> BoxedStrategy<Pagination> {
    // Within `QueryConfig::default()`'s clamping: page size and limit 1 to 100.
    prop_oneof![
        (1u64..=1000, 1u64..=100, any::<bool>()).prop_map(|(page, size, with_count)| {
            Pagination {
                mode: PageMode::Page,
                start: (page - 1) * size,
                limit: size,
                with_count,
            }
        }),
        (0u64..=1_000_000, 1u64..=100, any::<bool>()).prop_map(|(start, limit, with_count)| {
            Pagination {
                mode: PageMode::Offset,
                start,
                limit,
                with_count,
            }
        }),
    ]
    .boxed()
}

/// A query on content type `s`.
fn query_on(s: SchemaId) -> BoxedStrategy<Query> {
    (
        (
            prop::option::weighted(0.7, conjunction(s, 3, false)),
            locale(s),
            prop::sample::select(vec![Status::Published, Status::Draft]),
            prop::option::of(prop::sample::select(
                PublicationFilter::ALL
                    .iter()
                    .map(|(p, _)| *p)
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            populate(s, 0),
            prop::option::of(fields(s)),
            prop::collection::vec(sort_key(s, 2), 0..4),
            pagination(),
            prop::option::of(text().prop_filter("`_q=` is no search", |q| !q.is_empty())),
        ),
    )
        .prop_map(
            move |(
                (filters, locale, status, publication_filter),
                (populate, fields, sort, pagination, search),
            )| Query {
                schema: s,
                filters,
                locale,
                status,
                publication_filter,
                populate,
                fields,
                sort,
                pagination,
                search,
            },
        )
        .boxed()
}

/// A query on any content type of the blog model (the user types and the built-ins).
fn query() -> BoxedStrategy<Query> {
    Union::new(model().content_types().map(|s| query_on(s.id))).boxed()
}

proptest! {
    // Shrinking a query tree takes many steps: allow them (each is a print and a parse).
    #![proptest_config(Config {
        cases: 512,
        max_shrink_iters: 50_000,
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn generated_queries_round_trip(q in query()) {
        let model = model();
        let printed = print(&q, model);
        let config = QueryConfig::default();
        // Generated queries stay far below the limits; skip the rare giant one.
        prop_assume!(printed.len() <= config.limits.max_query_length);
        prop_assume!(printed.split('&').count() <= 1000);
        let parsed = parse_query(&printed, model, q.schema, &Permissions::all(model), &config);
        prop_assert_eq!(parsed, Ok(q), "printed: {}", printed);
    }
}

/// Keys of one sort object share their relations' joins (`shared_hops`), and print back
/// as sort objects, the whole list as objects (Strapi refuses a list of both kinds with
/// `Invalid key 0`, as parsing does here).
#[test]
fn sort_objects_keep_their_shared_joins() {
    let model = model();
    let authors = model.by_uid("api::author.author").unwrap().id;
    let config = QueryConfig::default();
    let all = Permissions::all(model);
    let raw = "sort[0][articles][author][name]=desc&sort[0][articles][title]=asc\
               &sort[0][name]=asc&sort[1][articles][views]=desc";
    let q = parse_query(raw, model, authors, &all, &config).unwrap();
    let shared: Vec<usize> = q.sort.iter().map(|k| k.shared_hops).collect();
    assert_eq!(shared, [0, 1, 0, 0]);
    let printed = print(&q, model);
    assert_eq!(parse_query(&printed, model, authors, &all, &config), Ok(q));
    assert!(
        printed.contains("sort[0][articles][author][name]=desc"),
        "{printed}"
    );
    assert!(
        printed.contains("sort[2][articles][views]=desc"),
        "{printed}"
    );
    // The same keys as strings join each relation on its own.
    let apart = parse_query(
        "sort[0]=articles.author.name:desc&sort[1]=articles.title",
        model,
        authors,
        &all,
        &config,
    )
    .unwrap();
    assert!(apart.sort.iter().all(|k| k.shared_hops == 0));
    let mixed = parse_query(
        "sort[0]=bio:desc&sort[1][name]=asc",
        model,
        authors,
        &all,
        &config,
    );
    assert!(mixed.is_err());
}

// ----------------------------------------------------------------------------------- goldens

/// The public role of the recording (as in `tests/query_goldens.rs` at the repository root):
/// `find` on article, author, category, tag and users.
fn public_permissions(model: &Model) -> Permissions {
    let mut p = Permissions::none(model);
    for uid in [
        "api::article.article",
        "api::author.author",
        "api::category.category",
        "api::tag.tag",
        "plugin::users-permissions.user",
    ] {
        p.allow(model.by_uid(uid).unwrap().id);
    }
    p
}

/// Percent-encodes what the recording's compare.py encodes: everything outside `!`..`~`.
fn encode(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        if ('!'..='~').contains(&c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// The schema a request path (`/api/<plural>[/<id>]`) addresses.
fn route(model: &Model, path: &str) -> Option<SchemaId> {
    let rest = path.strip_prefix("/api/")?;
    let name = rest.split('/').next()?;
    model
        .by_plural(name)
        .or_else(|| model.by_singular(name))
        .map(|s| s.id)
}

#[test]
fn golden_requests_round_trip() {
    let model = model();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/blog/goldens");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let config = QueryConfig::default();
    let permission_sets = [public_permissions(model), Permissions::all(model)];
    let (mut checked, mut failures) = (0, Vec::new());
    for file in &files {
        let golden: Json = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let line = encode(golden["line"].as_str().unwrap());
        let (path, raw) = line.split_once('?').unwrap_or((&line, ""));
        let Some(schema) = route(model, path) else {
            continue;
        };
        let mut parsed_once = false;
        for perms in &permission_sets {
            let Ok(q) = parse_query(raw, model, schema, perms, &config) else {
                continue;
            };
            parsed_once = true;
            let printed = print(&q, model);
            let again = parse_query(&printed, model, schema, perms, &config);
            if again.as_ref() != Ok(&q) {
                failures.push(format!(
                    "{}: {line}\n   printed {printed}\n   first  {q:?}\n   again  {again:?}",
                    file.display()
                ));
            }
        }
        if parsed_once {
            checked += 1;
        }
    }
    println!(
        "golden round trip: {checked} of {} goldens parse and round-trip",
        files.len()
    );
    assert!(checked > 150, "only {checked} goldens parsed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Spellings the goldens do not cover, where the printer has to pick among several keys or
/// fall back on less common forms.
const TRICKY: &[(&str, &str)] = &[
    // A `$not` that must stay a `$not` key because its field comes back later.
    (
        "articles",
        "filters[$not][title][$eq]=a&filters[views][$eq]=1&filters[title][$ne]=b",
    ),
    // Two ORs: one from an operator list, one from `$or`.
    (
        "articles",
        "filters[title][$eq][0]=a&filters[title][$eq][1]=b&filters[$or][0][title][$eq]=c",
    ),
    (
        "articles",
        "filters[title][$null]=true&filters[title][$notNull]=true",
    ),
    ("articles", "filters[title]=a&filters[title]=b"),
    ("articles", "filters[0][title]=a&filters[1][views]=2"),
    (
        "articles",
        "filters[$or][0][0][title]=a&filters[$or][1][views]=3",
    ),
    (
        "articles",
        "filters[views][$between][0]&filters[views][$between][1]=3",
    ),
    (
        "articles",
        "filters[eventAt][$eq]=-99999999999999999&filters[createdAt][$lt]=99999999999999999",
    ),
    (
        "articles",
        "filters[rating][$eq]=1e21&filters[price][$lt]=0.0000001&filters[views][$gt]=-0",
    ),
    (
        "articles",
        "filters[wordCount][$eq]=%2B12&filters[startTime][$eq]=10:30:00.5",
    ),
    (
        "articles",
        "filters[publishDate][$eq]=2024-02-29T10:00:00Z&filters[featured][$eq]=yes",
    ),
    // Id operators right under a relation come after its other conditions.
    (
        "articles",
        "filters[author][id][$eq]=1&filters[author][name][$eq]=x&filters[author][$gt]=5",
    ),
    (
        "articles",
        "filters[author][$not][name][$eq]=x&filters[author][name][$eq]=y",
    ),
    (
        "articles",
        "filters[author][name][$not][$eq]=x&filters[author][$or][0][id]=2",
    ),
    (
        "articles",
        "filters[tags][$not][name][$eq]=javascript&filters[category][$null]",
    ),
    (
        "articles",
        "filters[seo][social][$null]=false&filters[localizations][title][$not][$eq]=x",
    ),
    ("articles", "filters[title][$not]=x&filters[id][$in]=abc"),
    (
        "articles",
        "filters[title][$contains]=a%26b%3Dc%2Bd%23e%5Bf%5Dg%25h%20i%C3%A9%01",
    ),
    ("articles", "_q=a]%3Db&locale=x]&sort=title:desc,views"),
    ("articles", "populate[blocks][on][shared.quote]=false"),
    (
        "articles",
        "populate[blocks]=true&populate[seo][populate]=*&populate[tags][count]=true",
    ),
    (
        "articles",
        "populate[blocks][populate]=*&populate[localizations][count]=1",
    ),
    (
        "articles",
        "populate=*&fields=title,slug,title&locale[0]=&locale[1]=fr",
    ),
    (
        "articles",
        "locale[a]=b&status=nonsense&hasPublishedVersion=true",
    ),
    (
        "articles",
        "pagination[start]=7&pagination[limit]=1000&pagination[withCount]=f",
    ),
    ("articles", "pagination[page]=0&pagination[pageSize]=0"),
    (
        "authors",
        "filters[articles][$null]=0&sort[articles][title]=desc&sort[name]=asc",
    ),
    (
        "users",
        "filters[role][name][$eq]=x&populate[role][populate][users][count]=true",
    ),
];

#[test]
fn tricky_spellings_round_trip() {
    let model = model();
    let perms = Permissions::all(model);
    let config = QueryConfig::default();
    for (plural, raw) in TRICKY {
        let schema = model.by_plural(plural).unwrap().id;
        let q = parse_query(raw, model, schema, &perms, &config)
            .unwrap_or_else(|e| panic!("{raw} does not parse: {e}"));
        let printed = print(&q, model);
        assert_eq!(
            parse_query(&printed, model, schema, &perms, &config),
            Ok(q),
            "{raw}\nprinted {printed}"
        );
    }
    // A list longer than qs's array limit (100) and a sort of more than 100 keys.
    let mut many: String = (0..150)
        .map(|i| format!("filters[views][$in][{i}]={i}"))
        .collect::<Vec<_>>()
        .join("&");
    many.push_str("&sort=");
    many.push_str(&vec!["title:desc"; 120].join(","));
    let schema = model.by_plural("articles").unwrap().id;
    let q = parse_query(&many, model, schema, &perms, &config).unwrap();
    let printed = print(&q, model);
    assert_eq!(parse_query(&printed, model, schema, &perms, &config), Ok(q));
}
