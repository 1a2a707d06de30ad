//! The typed, validated `Query`: what a Strapi v5 list or find-one request asks for, with
//! every name resolved against the content model and every value coerced to its attribute's
//! type.
//!
//! The AST is **canonical**: one meaning has one representation. Strapi's many spellings
//! (implicit `$eq`, arrays meaning OR, `$notNull`, `populate=*`, dot paths, comma lists…)
//! are normalised while parsing, so two requests that mean the same thing produce equal
//! values, and [`super::print`] can print any `Query` back to a string that parses to it.
//!
//! Canonical-form invariants (the parser produces them, the printer relies on them):
//! * a [`Conjunction`] is never empty, and `And`/`Or` lists are never empty;
//! * `$notNull: b` is stored as `$null: !b`;
//! * `$in`/`$notIn` always hold a list; `$between` exactly two values;
//! * populate entries are ordered by attribute position, `localizations` last;
//! * dynamic-zone populate always lists its component types explicitly;
//! * `fields` never lists `id` or `documentId` (they are always selected), has no duplicates,
//!   and is `None` when every field is selected.

use crate::schema::{AttrId, SchemaId};

/// A validated read query against one content type.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The content type queried.
    pub schema: SchemaId,
    /// `filters`, ANDed at the root. `None` when absent or empty.
    pub filters: Option<Conjunction>,
    /// `locale`.
    pub locale: LocaleSelector,
    /// `status`.
    pub status: Status,
    /// `publicationFilter` / `hasPublishedVersion`.
    pub publication_filter: Option<PublicationFilter>,
    /// `populate`.
    pub populate: Populate,
    /// `fields` (`None` = all scalar fields).
    pub fields: Option<Vec<FieldRef>>,
    /// `sort`, in priority order.
    pub sort: Vec<SortKey>,
    /// `pagination` (already clamped by the configured limits).
    pub pagination: Pagination,
    /// `_q`: full-text search over the searchable string columns.
    pub search: Option<String>,
}

impl Query {
    /// Restricts the query to one document (the find-one endpoints): ANDs
    /// `documentId = id` to the root filters.
    pub fn restrict_to_document(&mut self, document_id: &str) {
        let cond = Condition::Field {
            field: FieldRef::DocumentId,
            op: Op::Eq,
            operand: Operand::One(Value::Text(document_id.to_string())),
        };
        match &mut self.filters {
            Some(c) => c.0.push(cond),
            None => self.filters = Some(Conjunction(vec![cond])),
        }
    }
}

/// One of the columns a filter, sort or `fields` entry can name on a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldRef {
    /// `id`, the row id.
    Id,
    /// `documentId`.
    DocumentId,
    /// A scalar attribute.
    Attr(AttrId),
    /// `createdAt`.
    CreatedAt,
    /// `updatedAt`.
    UpdatedAt,
    /// `publishedAt`.
    PublishedAt,
    /// `locale` (localized types only).
    Locale,
}

/// The type a value must be coerced to, derived from the attribute (or system field) type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// Strings, texts, enumerations, uids, emails, documentId, locale.
    Text,
    /// integer, float, decimal and the row id.
    Number,
    /// biginteger (kept as a decimal string of digits).
    BigInt,
    /// boolean.
    Boolean,
    /// date (`YYYY-MM-DD`).
    Date,
    /// time (`HH:mm:ss.SSS`).
    Time,
    /// datetime, timestamp and the managed timestamps (epoch milliseconds).
    DateTime,
    /// json and blocks.
    Json,
}

/// A coerced filter value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL (a key without `=`, e.g. `filters[title][$eq]`).
    Null,
    /// A string.
    Text(String),
    /// A JSON number (integer, float, decimal, id).
    Number(f64),
    /// A biginteger, as its decimal digits with an optional sign.
    BigInt(String),
    /// A boolean.
    Bool(bool),
    /// A date, `YYYY-MM-DD`.
    Date(String),
    /// A time, normalised to `HH:mm:ss.SSS`.
    Time(String),
    /// A datetime as epoch milliseconds (UTC).
    DateTime(i64),
}

/// Filter operators on a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `$eq` (and implicit equality).
    Eq,
    /// `$eqi`.
    Eqi,
    /// `$ne`.
    Ne,
    /// `$nei`.
    Nei,
    /// `$lt`.
    Lt,
    /// `$lte`.
    Lte,
    /// `$gt`.
    Gt,
    /// `$gte`.
    Gte,
    /// `$in` (and implicit `$in` for arrays).
    In,
    /// `$notIn`.
    NotIn,
    /// `$contains`.
    Contains,
    /// `$notContains`.
    NotContains,
    /// `$containsi`.
    Containsi,
    /// `$notContainsi`.
    NotContainsi,
    /// `$startsWith`.
    StartsWith,
    /// `$startsWithi`.
    StartsWithi,
    /// `$endsWith`.
    EndsWith,
    /// `$endsWithi`.
    EndsWithi,
    /// `$between`.
    Between,
    /// `$null` (`$notNull: b` is stored as `$null: !b`).
    Null,
}

impl Op {
    /// Every operator with its query-string spelling.
    pub const ALL: [(Op, &'static str); 20] = [
        (Op::Eq, "$eq"),
        (Op::Eqi, "$eqi"),
        (Op::Ne, "$ne"),
        (Op::Nei, "$nei"),
        (Op::Lt, "$lt"),
        (Op::Lte, "$lte"),
        (Op::Gt, "$gt"),
        (Op::Gte, "$gte"),
        (Op::In, "$in"),
        (Op::NotIn, "$notIn"),
        (Op::Contains, "$contains"),
        (Op::NotContains, "$notContains"),
        (Op::Containsi, "$containsi"),
        (Op::NotContainsi, "$notContainsi"),
        (Op::StartsWith, "$startsWith"),
        (Op::StartsWithi, "$startsWithi"),
        (Op::EndsWith, "$endsWith"),
        (Op::EndsWithi, "$endsWithi"),
        (Op::Between, "$between"),
        (Op::Null, "$null"),
    ];

    /// The query-string spelling, e.g. `$containsi`.
    pub fn as_str(self) -> &'static str {
        Op::ALL
            .iter()
            .find(|(op, _)| *op == self)
            .map(|(_, s)| *s)
            .unwrap_or("$eq")
    }

    /// Parses a spelling (case-sensitive, like Strapi). `$notNull` is not included: the
    /// parser turns it into `$null` with the opposite value.
    pub fn parse(s: &str) -> Option<Op> {
        Op::ALL.iter().find(|(_, n)| *n == s).map(|(op, _)| *op)
    }

    /// Operators whose value is converted to the column type (the others bind text).
    pub fn casts(self) -> bool {
        matches!(
            self,
            Op::Eq
                | Op::Ne
                | Op::Lt
                | Op::Lte
                | Op::Gt
                | Op::Gte
                | Op::In
                | Op::NotIn
                | Op::Between
        )
    }
}

/// The right-hand side of a field condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// One value (`$eq`, `$lt`, `$contains`, …).
    One(Value),
    /// A list (`$in`, `$notIn`), at least one value.
    List(Vec<Value>),
    /// Two bounds (`$between`).
    Range(Value, Value),
    /// The `$null` flag: true = IS NULL.
    Flag(bool),
}

/// A list of conditions that must all hold (a filter object: sibling keys are ANDed).
#[derive(Debug, Clone, PartialEq)]
pub struct Conjunction(pub Vec<Condition>);

impl Conjunction {
    /// Whether some condition, at any depth of `$and`/`$or`/`$not`, goes through a
    /// relation, component, media or `localizations`: where Strapi's query joins another
    /// table.
    pub fn goes_through_related(&self) -> bool {
        self.0.iter().any(|cond| match cond {
            Condition::Related { .. } | Condition::RelatedNull { .. } => true,
            Condition::Localizations(_) => true,
            Condition::And(items) | Condition::Or(items) => {
                items.iter().any(Conjunction::goes_through_related)
            }
            Condition::Not(inner) => inner.goes_through_related(),
            Condition::Field { .. } => false,
        })
    }
}

/// One condition of a filter.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `$and: [...]`: every element holds.
    And(Vec<Conjunction>),
    /// `$or: [...]`: at least one element holds.
    Or(Vec<Conjunction>),
    /// `$not: {...}`: the conjunction does not hold (SQL three-valued NOT).
    Not(Conjunction),
    /// A comparison on a column of the current schema.
    Field {
        /// The column.
        field: FieldRef,
        /// The operator.
        op: Op,
        /// The coerced operand.
        operand: Operand,
    },
    /// Some related row (relation, component or media) matches the conjunction.
    Related {
        /// The relation, component or media attribute.
        attr: AttrId,
        /// The schema of the related rows.
        target: SchemaId,
        /// The condition on one related row.
        filter: Conjunction,
    },
    /// `attr[$null]`: the entry has no related row (true) or has one (false).
    RelatedNull {
        /// The relation, component or media attribute.
        attr: AttrId,
        /// True = no related row.
        is_null: bool,
    },
    /// `filters[localizations][…]`: some other-locale row of the same document matches.
    Localizations(Conjunction),
}

/// The `locale` parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocaleSelector {
    /// Absent or empty: the default locale (on localized types).
    Default,
    /// `locale=*`: every locale.
    All,
    /// One or more codes (`locale=fr`, `locale[0]=en&locale[1]=fr`).
    Codes(Vec<String>),
}

/// The `status` parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The published rows (the default).
    Published,
    /// The draft rows (any value other than `published`, as Strapi does when not strict).
    Draft,
}

/// `publicationFilter` (and the deprecated `hasPublishedVersion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublicationFilter {
    /// `never-published`.
    NeverPublished,
    /// `has-published-version`.
    HasPublishedVersion,
    /// `modified`.
    Modified,
    /// `unmodified`.
    Unmodified,
    /// `never-published-document`.
    NeverPublishedDocument,
    /// `has-published-version-document`.
    HasPublishedVersionDocument,
    /// `published-without-draft`.
    PublishedWithoutDraft,
    /// `published-with-draft`.
    PublishedWithDraft,
}

impl PublicationFilter {
    /// Every value with its spelling, in Strapi's order (used in its error message).
    pub const ALL: [(PublicationFilter, &'static str); 8] = [
        (PublicationFilter::NeverPublished, "never-published"),
        (
            PublicationFilter::HasPublishedVersion,
            "has-published-version",
        ),
        (PublicationFilter::Modified, "modified"),
        (PublicationFilter::Unmodified, "unmodified"),
        (
            PublicationFilter::NeverPublishedDocument,
            "never-published-document",
        ),
        (
            PublicationFilter::HasPublishedVersionDocument,
            "has-published-version-document",
        ),
        (
            PublicationFilter::PublishedWithoutDraft,
            "published-without-draft",
        ),
        (
            PublicationFilter::PublishedWithDraft,
            "published-with-draft",
        ),
    ];

    /// The spelling.
    pub fn as_str(self) -> &'static str {
        PublicationFilter::ALL
            .iter()
            .find(|(p, _)| *p == self)
            .map(|(_, s)| *s)
            .unwrap_or("modified")
    }
}

/// What to populate at one level.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Populate(pub Vec<PopulateEntry>);

impl Populate {
    /// True when nothing is populated.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether an entry populates something under what it populates (a relation's
    /// relations, a component's, a zone item's).
    pub fn reaches_past_first_level(&self) -> bool {
        self.0.iter().any(|e| match &e.kind {
            PopulateKind::Rows { options, .. } => !options.populate.is_empty(),
            PopulateKind::Count { .. } => false,
            PopulateKind::Zone(items) => items.iter().any(|(_, o)| !o.populate.is_empty()),
        })
    }
}

/// One populated attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct PopulateEntry {
    /// Which attribute.
    pub key: PopulateKey,
    /// How.
    pub kind: PopulateKind,
}

/// The populated attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PopulateKey {
    /// A relation, media, component or dynamic-zone attribute.
    Attr(AttrId),
    /// The virtual `localizations` relation of localized types.
    Localizations,
}

/// How an attribute is populated.
#[derive(Debug, Clone, PartialEq)]
pub enum PopulateKind {
    /// A relation, media, component or `localizations`: the related rows with options.
    Rows {
        /// The schema of the related rows.
        target: SchemaId,
        /// Nested `fields`/`filters`/`sort`/`populate`.
        options: PopulateOptions,
    },
    /// `count: true`: `{"count": N}` instead of the rows.
    Count {
        /// The schema of the related rows.
        target: SchemaId,
        /// Nested `filters` still apply to the count.
        filters: Option<Conjunction>,
    },
    /// A dynamic zone: the listed component types, each with its options; items of
    /// unlisted types are omitted.
    Zone(Vec<(SchemaId, PopulateOptions)>),
}

/// Options of a populated relation, media or component.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PopulateOptions {
    /// `fields` (`None` = all scalar fields).
    pub fields: Option<Vec<FieldRef>>,
    /// `filters` on the related rows.
    pub filters: Option<Conjunction>,
    /// `sort` of the related rows (replaces the link order).
    pub sort: Vec<SortKey>,
    /// Nested populate.
    pub populate: Populate,
}

/// One sort key: a column of the queried schema or of a related schema.
#[derive(Debug, Clone, PartialEq)]
pub struct SortKey {
    /// Relations, components or media followed to reach the column (empty = own column).
    pub path: Vec<(AttrId, SchemaId)>,
    /// The column.
    pub field: FieldRef,
    /// The direction.
    pub direction: Direction,
    /// How many leading hops of `path` go through the same joined rows as the key before
    /// (0: rows of its own). Strapi joins a relation once per sort object, so the keys of
    /// `sort[articles][title]=asc&sort[articles][views]=desc` read one row of `articles`
    /// per root row, the first by both keys, where `sort=articles.title,articles.views:desc`
    /// joins `articles` twice and reads each key's first value on its own.
    pub shared_hops: usize,
}

impl SortKey {
    /// A key with joined rows of its own.
    pub fn new(path: Vec<(AttrId, SchemaId)>, field: FieldRef, direction: Direction) -> SortKey {
        SortKey {
            path,
            field,
            direction,
            shared_hops: 0,
        }
    }
}

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Ascending.
    Asc,
    /// Descending.
    Desc,
}

/// Pagination, after Strapi's clamping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pagination {
    /// Page or offset mode (decides the meta shape).
    pub mode: PageMode,
    /// Rows to skip.
    pub start: u64,
    /// Rows to return (≥ 1).
    pub limit: u64,
    /// Whether `total` (and `pageCount`) are computed and returned.
    pub with_count: bool,
}

/// Which pagination parameters the request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageMode {
    /// `page`/`pageSize` (or none): meta `{page, pageSize, pageCount, total}`.
    Page,
    /// `start`/`limit`: meta `{start, limit, total}`.
    Offset,
}

impl Pagination {
    /// The page number shown in page-mode meta: `floor(start / limit) + 1`.
    pub fn page(&self) -> u64 {
        self.start / self.limit.max(1) + 1
    }
}
