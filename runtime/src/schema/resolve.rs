//! Turning schema files into a [`Model`]: parsing attributes, resolving uids to
//! [`SchemaId`]s, validating the model as a whole and computing its database layout.
//!
//! Every problem is collected; resolution goes on after an error so that one run reports
//! all mistakes. A [`Model`] is returned only when there were none.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::Condition;
use super::error::{Problem, SchemaError, SchemaErrors, json_type_name};
use super::load::{self, SourceFile};
use super::model::*;
use super::naming;
use super::{layout, tables};

/// Options for loading a content model.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Underlying scalar types of custom fields, by custom-field uid
    /// (`plugin::color-picker.color` → `string`). Strapi learns these from plugin code,
    /// which strata does not run; the well-known ones are built in (see
    /// [`KNOWN_CUSTOM_FIELDS`]), and a project adds its own here.
    pub custom_fields: HashMap<String, String>,
}

/// Custom fields whose underlying type strata knows without being told.
pub const KNOWN_CUSTOM_FIELDS: &[(&str, &str)] = &[("plugin::color-picker.color", "string")];

/// Attribute names that strata manages itself and that schemas may not use.
pub const RESERVED_ATTRIBUTE_NAMES: &[&str] = &[
    "id",
    "documentId",
    "locale",
    "localizations",
    "publishedAt",
    "createdAt",
    "updatedAt",
    "createdBy",
    "updatedBy",
];

/// Loads and validates the content model under `dir` (see [`load::find_root`] for the layouts).
pub fn load(dir: &Path) -> Result<Model, SchemaErrors> {
    load_with(dir, &LoadOptions::default())
}

/// [`load`] with options.
pub fn load_with(dir: &Path, options: &LoadOptions) -> Result<Model, SchemaErrors> {
    let mut errors = Vec::new();
    let sources = load::read_sources(dir, &mut errors);
    let model = Resolver::new(options, &mut errors).resolve(sources);
    if errors.is_empty() {
        Ok(model)
    } else {
        Err(SchemaErrors(errors))
    }
}

/// Loads a content model from schema files held in memory (see
/// [`load::embedded_sources`] for the paths); generated code uses this to carry its model.
pub fn load_embedded(files: &[(&str, &str)], options: &LoadOptions) -> Result<Model, SchemaErrors> {
    let mut errors = Vec::new();
    let sources = load::embedded_sources(files, &mut errors);
    let model = Resolver::new(options, &mut errors).resolve(sources);
    if errors.is_empty() {
        Ok(model)
    } else {
        Err(SchemaErrors(errors))
    }
}

/// A schema's header, read before any attribute is resolved.
struct Header {
    uid: String,
    kind: SchemaKind,
    origin: Origin,
    path: PathBuf,
    singular: String,
    plural: String,
    display: String,
    category: Option<String>,
    collection: String,
    draft_and_publish: bool,
    localized: bool,
    declared_indexes: Vec<DeclaredIndex>,
    attributes: Map<String, Value>,
}

struct Resolver<'a> {
    options: &'a LoadOptions,
    errors: &'a mut Vec<SchemaError>,
}

impl<'a> Resolver<'a> {
    fn new(options: &'a LoadOptions, errors: &'a mut Vec<SchemaError>) -> Self {
        Resolver { options, errors }
    }

    fn err(&mut self, file: &Path, path: impl Into<String>, problem: Problem) {
        self.errors.push(SchemaError {
            file: file.to_path_buf(),
            path: path.into(),
            problem,
        });
    }

    fn resolve(mut self, mut sources: Vec<SourceFile>) -> Model {
        // Content types first (user, then built-in), then components; each group by uid.
        sources.sort_by_key(|s| {
            let group = match s.origin {
                Origin::Api => 0,
                Origin::BuiltIn => 1,
                Origin::Component => 2,
            };
            (group, s.uid.clone())
        });
        let headers: Vec<Header> = sources.into_iter().filter_map(|s| self.header(s)).collect();

        let mut by_uid = HashMap::new();
        let mut by_plural: HashMap<String, SchemaId> = HashMap::new();
        let mut by_singular: HashMap<String, SchemaId> = HashMap::new();
        let mut by_collection: HashMap<String, SchemaId> = HashMap::new();
        for (i, h) in headers.iter().enumerate() {
            let id = SchemaId(i as u32);
            by_uid.insert(Uid::new(h.uid.as_str()), id);
            if h.kind != SchemaKind::Component {
                self.unique_name(
                    &headers,
                    &mut by_singular,
                    h,
                    id,
                    "singularName",
                    &h.singular,
                    "$.info.singularName",
                );
                self.unique_name(
                    &headers,
                    &mut by_plural,
                    h,
                    id,
                    "pluralName",
                    &h.plural,
                    "$.info.pluralName",
                );
            }
            self.unique_name(
                &headers,
                &mut by_collection,
                h,
                id,
                "collectionName",
                &h.collection,
                "$.collectionName",
            );
        }
        // A singular name must not shadow another type's plural name either: both are
        // REST paths (`/api/<plural>` and `/api/<singular>` for single types).
        for (i, h) in headers.iter().enumerate() {
            if h.kind == SchemaKind::Component {
                continue;
            }
            if let Some(other) = by_plural.get(&h.singular)
                && other.index() != i
            {
                let other_uid = headers[other.index()].uid.clone();
                self.err(
                    &h.path,
                    "$.info.singularName",
                    Problem::Duplicate {
                        what: "singularName (used as another type's pluralName)",
                        name: h.singular.clone(),
                        other: other_uid,
                    },
                );
            }
        }

        let mut schemas: Vec<Schema> = Vec::with_capacity(headers.len());
        for (i, h) in headers.iter().enumerate() {
            let attributes = self.attributes(h, &headers, &by_uid);
            let attribute_index = attributes.iter().map(|a| (a.name.clone(), a.id)).collect();
            schemas.push(Schema {
                id: SchemaId(i as u32),
                uid: Uid::new(h.uid.as_str()),
                kind: h.kind,
                origin: h.origin.clone(),
                source: h.path.clone(),
                singular_name: h.singular.clone(),
                plural_name: h.plural.clone(),
                display_name: h.display.clone(),
                category: h.category.clone(),
                collection_name: h.collection.clone(),
                draft_and_publish: h.draft_and_publish,
                localized: h.localized,
                attributes,
                attribute_index,
                declared_indexes: h.declared_indexes.clone(),
                layout: tables::SchemaLayout::default(),
            });
        }

        self.check_relation_pairs(&schemas);
        self.check_component_cycles(&schemas);

        let mut model = Model {
            schemas,
            by_uid,
            by_plural: by_plural
                .into_iter()
                .filter(|(_, id)| headers[id.index()].kind != SchemaKind::Component)
                .collect(),
            by_singular,
        };
        for e in layout::compute(&mut model) {
            self.errors.push(e);
        }
        model
    }

    #[allow(clippy::too_many_arguments)]
    fn unique_name(
        &mut self,
        headers: &[Header],
        index: &mut HashMap<String, SchemaId>,
        h: &Header,
        id: SchemaId,
        what: &'static str,
        name: &str,
        path: &str,
    ) {
        if let Some(other) = index.get(name) {
            let other_uid = headers[other.index()].uid.clone();
            self.err(
                &h.path,
                path,
                Problem::Duplicate {
                    what,
                    name: name.to_string(),
                    other: other_uid,
                },
            );
        } else {
            index.insert(name.to_string(), id);
        }
    }

    fn header(&mut self, s: SourceFile) -> Option<Header> {
        let path = s.path.clone();
        let Value::Object(mut root) = s.json else {
            self.err(
                &path,
                "$",
                Problem::WrongType {
                    expected: "an object",
                    found: json_type_name(&s.json),
                },
            );
            return None;
        };
        let info = match root.get("info") {
            Some(Value::Object(m)) => m.clone(),
            Some(other) => {
                let found = json_type_name(other);
                self.err(
                    &path,
                    "$.info",
                    Problem::WrongType {
                        expected: "an object",
                        found,
                    },
                );
                Map::new()
            }
            None => Map::new(),
        };
        let attributes = match root.remove("attributes") {
            Some(Value::Object(m)) => m,
            Some(other) => {
                self.err(
                    &path,
                    "$.attributes",
                    Problem::WrongType {
                        expected: "an object",
                        found: json_type_name(&other),
                    },
                );
                Map::new()
            }
            None => {
                self.err(&path, "$", Problem::Missing("attributes"));
                Map::new()
            }
        };
        let display = self
            .opt_str(&path, &info, "$.info", "displayName")
            .unwrap_or_default();

        let (kind, singular, plural, category, collection) =
            if let Some((category, stem)) = s.component.clone() {
                let collection = match self.opt_str(&path, &root, "$", "collectionName") {
                    Some(c) => c,
                    None => {
                        self.err(&path, "$", Problem::Missing("collectionName"));
                        format!("components_{}_{}", category, stem)
                    }
                };
                (
                    SchemaKind::Component,
                    stem.clone(),
                    stem,
                    Some(category),
                    collection,
                )
            } else {
                let kind = match self.opt_str(&path, &root, "$", "kind").as_deref() {
                    None | Some("collectionType") => SchemaKind::CollectionType,
                    Some("singleType") => SchemaKind::SingleType,
                    Some(other) => {
                        self.err(&path, "$.kind", Problem::UnknownKind(other.to_string()));
                        SchemaKind::CollectionType
                    }
                };
                let singular = match self.opt_str(&path, &info, "$.info", "singularName") {
                    Some(s) => s,
                    None => {
                        self.err(&path, "$.info", Problem::Missing("singularName"));
                        String::new()
                    }
                };
                let plural = match self.opt_str(&path, &info, "$.info", "pluralName") {
                    Some(s) => s,
                    None => {
                        self.err(&path, "$.info", Problem::Missing("pluralName"));
                        String::new()
                    }
                };
                for (key, name) in [("singularName", &singular), ("pluralName", &plural)] {
                    if !name.is_empty() && !is_kebab_name(name) {
                        self.err(
                            &path,
                            format!("$.info.{key}"),
                            Problem::InvalidName(
                                name.clone(),
                                "use lower-case letters, digits and dashes, starting with a letter",
                            ),
                        );
                    }
                }
                let collection = self
                    .opt_str(&path, &root, "$", "collectionName")
                    .unwrap_or_else(|| default_collection_name(&s.uid, &singular));
                (kind, singular, plural, None, collection)
            };

        let is_component = kind == SchemaKind::Component;
        let draft_and_publish = !is_component
            && root
                .get("options")
                .and_then(|o| o.get("draftAndPublish"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
        let localized = !is_component && localized_flag(&root).unwrap_or(false);

        let declared_indexes = root
            .get("indexes")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|ix| {
                        Some(DeclaredIndex {
                            name: ix.get("name")?.as_str()?.to_string(),
                            columns: ix
                                .get("columns")?
                                .as_array()?
                                .iter()
                                .filter_map(|c| c.as_str().map(str::to_string))
                                .collect(),
                            unique: ix.get("type").and_then(Value::as_str) == Some("unique"),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();

        Some(Header {
            uid: s.uid,
            kind,
            origin: s.origin,
            path,
            singular,
            plural,
            display,
            category,
            collection,
            draft_and_publish,
            localized,
            declared_indexes,
            attributes,
        })
    }

    fn opt_str(
        &mut self,
        file: &Path,
        obj: &Map<String, Value>,
        at: &str,
        key: &str,
    ) -> Option<String> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                let found = json_type_name(other);
                self.err(
                    file,
                    format!("{at}.{key}"),
                    Problem::WrongType {
                        expected: "a string",
                        found,
                    },
                );
                None
            }
        }
    }

    fn attributes(
        &mut self,
        h: &Header,
        headers: &[Header],
        by_uid: &HashMap<Uid, SchemaId>,
    ) -> Vec<Attribute> {
        let mut out = Vec::with_capacity(h.attributes.len());
        for (name, value) in &h.attributes {
            let at = format!("$.attributes.{name}");
            if RESERVED_ATTRIBUTE_NAMES.contains(&name.as_str()) {
                self.err(&h.path, at.clone(), Problem::ReservedName(name.clone()));
                continue;
            }
            if name.is_empty() {
                self.err(
                    &h.path,
                    at.clone(),
                    Problem::InvalidName(name.clone(), "attribute names cannot be empty"),
                );
                continue;
            }
            let Value::Object(obj) = value else {
                self.err(
                    &h.path,
                    at,
                    Problem::WrongType {
                        expected: "an object",
                        found: json_type_name(value),
                    },
                );
                continue;
            };
            let id = AttrId(out.len() as u32);
            if let Some(attr) = self.attribute(h, headers, by_uid, id, name, obj, &at) {
                out.push(attr);
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn attribute(
        &mut self,
        h: &Header,
        headers: &[Header],
        by_uid: &HashMap<Uid, SchemaId>,
        id: AttrId,
        name: &str,
        obj: &Map<String, Value>,
        at: &str,
    ) -> Option<Attribute> {
        let file = h.path.as_path();
        let Some(type_name) = self.opt_str(file, obj, at, "type") else {
            self.err(file, at, Problem::Missing("type"));
            return None;
        };
        let mut custom_field = None;
        let type_name = if type_name == "customField" {
            let cf = self.opt_str(file, obj, at, "customField");
            let Some(cf) = cf else {
                self.err(file, at, Problem::Missing("customField"));
                return None;
            };
            let underlying = self
                .options
                .custom_fields
                .get(&cf)
                .cloned()
                .or_else(|| {
                    KNOWN_CUSTOM_FIELDS
                        .iter()
                        .find(|(k, _)| *k == cf)
                        .map(|(_, t)| (*t).to_string())
                })
                // A schema may also spell the underlying type out itself.
                .or_else(|| {
                    obj.get("options")
                        .and_then(|o| o.get("type"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
            let Some(underlying) = underlying else {
                self.err(
                    file,
                    format!("{at}.customField"),
                    Problem::CustomFieldWithoutType(cf),
                );
                return None;
            };
            custom_field = Some(cf);
            underlying
        } else {
            type_name
        };

        let flag = |k: &str, default: bool| obj.get(k).and_then(Value::as_bool).unwrap_or(default);
        let kind = match type_name.as_str() {
            "media" => AttributeKind::Media(Media {
                multiple: flag("multiple", false),
                allowed_types: obj
                    .get("allowedTypes")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
            }),
            "relation" => AttributeKind::Relation(self.relation(file, by_uid, headers, obj, at)?),
            "component" => {
                let uid = self.opt_str(file, obj, at, "component");
                let Some(uid) = uid else {
                    self.err(file, at, Problem::Missing("component"));
                    return None;
                };
                let component = match by_uid.get(uid.as_str()) {
                    Some(id) if headers[id.index()].kind == SchemaKind::Component => *id,
                    Some(_) => {
                        self.err(file, format!("{at}.component"), Problem::NotAComponent(uid));
                        return None;
                    }
                    None => {
                        self.err(
                            file,
                            format!("{at}.component"),
                            Problem::UnknownComponent(uid),
                        );
                        return None;
                    }
                };
                AttributeKind::Component(ComponentField {
                    component,
                    repeatable: flag("repeatable", false),
                    min: obj.get("min").and_then(Value::as_u64),
                    max: obj.get("max").and_then(Value::as_u64),
                })
            }
            "dynamiczone" => {
                if h.kind == SchemaKind::Component {
                    self.err(file, at, Problem::ZoneInComponent);
                    return None;
                }
                let list = match obj.get("components") {
                    Some(Value::Array(list)) => list.clone(),
                    Some(other) => {
                        self.err(
                            file,
                            format!("{at}.components"),
                            Problem::WrongType {
                                expected: "an array of component uids",
                                found: json_type_name(other),
                            },
                        );
                        return None;
                    }
                    None => {
                        self.err(file, at, Problem::Missing("components"));
                        return None;
                    }
                };
                let mut components = Vec::new();
                for (i, v) in list.iter().enumerate() {
                    let p = format!("{at}.components[{i}]");
                    let Some(uid) = v.as_str() else {
                        self.err(
                            file,
                            p,
                            Problem::WrongType {
                                expected: "a component uid",
                                found: json_type_name(v),
                            },
                        );
                        continue;
                    };
                    match by_uid.get(uid) {
                        Some(id) if headers[id.index()].kind == SchemaKind::Component => {
                            components.push(*id)
                        }
                        Some(_) => self.err(file, p, Problem::NotAComponent(uid.to_string())),
                        None => self.err(file, p, Problem::UnknownZoneComponent(uid.to_string())),
                    }
                }
                AttributeKind::DynamicZone(DynamicZone {
                    components,
                    min: obj.get("min").and_then(Value::as_u64),
                    max: obj.get("max").and_then(Value::as_u64),
                })
            }
            other => match scalar_type(other, obj) {
                Some(Ok(s)) => AttributeKind::Scalar(s),
                Some(Err(problem)) => {
                    self.err(file, format!("{at}.enum"), problem);
                    return None;
                }
                None => {
                    self.err(
                        file,
                        format!("{at}.type"),
                        Problem::UnknownAttributeType(other.to_string()),
                    );
                    return None;
                }
            },
        };

        let column = match &kind {
            AttributeKind::Scalar(_) => match naming::column_name(name) {
                Ok(c) => Some(c),
                Err(e) => {
                    self.err(file, at, Problem::Naming(e.to_string()));
                    None
                }
            },
            _ => None,
        };
        let is_password = matches!(kind, AttributeKind::Scalar(ScalarType::Password));
        let condition = match obj.get("conditions").map(Condition::parse) {
            None => None,
            Some(Ok(c)) => c,
            Some(Err(e)) => {
                self.err(file, format!("{at}.conditions"), Problem::Condition(e));
                return None;
            }
        };
        Some(Attribute {
            id,
            name: name.to_string(),
            kind,
            private: flag("private", false) || is_password,
            required: flag("required", false),
            unique: flag("unique", false),
            localized: localized_flag(obj),
            configurable: flag("configurable", true),
            searchable: flag("searchable", true),
            default: obj.get("default").cloned(),
            constraints: Constraints {
                min: obj.get("min").and_then(as_number),
                max: obj.get("max").and_then(as_number),
                min_length: obj.get("minLength").and_then(Value::as_u64),
                max_length: obj.get("maxLength").and_then(Value::as_u64),
                regex: obj.get("regex").and_then(Value::as_str).map(str::to_string),
            },
            custom_field,
            column,
            condition,
        })
    }

    fn relation(
        &mut self,
        file: &Path,
        by_uid: &HashMap<Uid, SchemaId>,
        headers: &[Header],
        obj: &Map<String, Value>,
        at: &str,
    ) -> Option<Relation> {
        let Some(kind_name) = self.opt_str(file, obj, at, "relation") else {
            self.err(file, at, Problem::Missing("relation"));
            return None;
        };
        let Some(kind) = RelationKind::parse(&kind_name) else {
            self.err(
                file,
                format!("{at}.relation"),
                Problem::UnknownRelation(kind_name),
            );
            return None;
        };
        let target_uid = self.opt_str(file, obj, at, "target");
        let target = match (&target_uid, kind) {
            (None, RelationKind::MorphToOne | RelationKind::MorphToMany) => None,
            (None, _) => {
                self.err(file, at, Problem::Missing("target"));
                return None;
            }
            (Some(uid), _) => match by_uid.get(uid.as_str()) {
                Some(id) if headers[id.index()].kind == SchemaKind::Component => {
                    self.err(
                        file,
                        format!("{at}.target"),
                        Problem::TargetIsComponent(uid.clone()),
                    );
                    return None;
                }
                Some(id) => Some(*id),
                None => {
                    self.err(
                        file,
                        format!("{at}.target"),
                        Problem::UnknownTarget(uid.clone()),
                    );
                    return None;
                }
            },
        };
        let inversed_by = self.opt_str(file, obj, at, "inversedBy");
        let mapped_by = self.opt_str(file, obj, at, "mappedBy");
        let side = match (inversed_by, mapped_by) {
            (Some(_), Some(_)) => {
                self.err(
                    file,
                    at,
                    Problem::RelationMismatch(
                        "a relation cannot have both `inversedBy` and `mappedBy`".into(),
                    ),
                );
                return None;
            }
            (Some(i), None) => RelationSide::Owner { inversed_by: i },
            (None, Some(m)) => RelationSide::Inverse { mapped_by: m },
            (None, None) => RelationSide::OneWay,
        };
        if kind == RelationKind::OneToMany && matches!(side, RelationSide::Owner { .. }) {
            self.err(
                file,
                format!("{at}.inversedBy"),
                Problem::RelationMismatch(
                    "a two-way oneToMany must be the `mappedBy` side; declare the manyToOne side with `inversedBy`".into(),
                ),
            );
            return None;
        }
        Some(Relation {
            kind,
            target,
            target_uid: target_uid.map(Uid::new),
            side,
            storage: tables::RelationStorage::None,
        })
    }

    /// Both sides of every two-way relation must name each other, target each other and
    /// have mirrored cardinalities.
    fn check_relation_pairs(&mut self, schemas: &[Schema]) {
        for schema in schemas {
            for attr in &schema.attributes {
                let AttributeKind::Relation(rel) = &attr.kind else {
                    continue;
                };
                let Some(target) = rel.target else { continue };
                let at = format!("$.attributes.{}", attr.name);
                let (other_name, key, expect_other_side) = match &rel.side {
                    RelationSide::OneWay => continue,
                    RelationSide::Owner { inversed_by } => (inversed_by, "inversedBy", "mappedBy"),
                    RelationSide::Inverse { mapped_by } => (mapped_by, "mappedBy", "inversedBy"),
                };
                let target_schema = &schemas[target.index()];
                let problem = match target_schema.attribute(other_name) {
                    None => Some(format!(
                        "`{key}: \"{other_name}\"` names an attribute that `{}` does not have",
                        target_schema.uid
                    )),
                    Some(other) => match &other.kind {
                        AttributeKind::Relation(orel) => {
                            let back = match &orel.side {
                                RelationSide::Owner { inversed_by }
                                    if expect_other_side == "inversedBy" =>
                                {
                                    Some(inversed_by)
                                }
                                RelationSide::Inverse { mapped_by }
                                    if expect_other_side == "mappedBy" =>
                                {
                                    Some(mapped_by)
                                }
                                _ => None,
                            };
                            if back != Some(&attr.name) {
                                Some(format!(
                                    "`{key}: \"{other_name}\"` expects `{}.{other_name}` to declare `{expect_other_side}: \"{}\"`",
                                    target_schema.uid, attr.name
                                ))
                            } else if orel.target != Some(schema.id) {
                                Some(format!(
                                    "`{}.{other_name}` targets `{}`, not `{}`",
                                    target_schema.uid,
                                    orel.target_uid
                                        .as_ref()
                                        .map(Uid::as_str)
                                        .unwrap_or("nothing"),
                                    schema.uid
                                ))
                            } else if orel.kind != rel.kind.inverse() {
                                Some(format!(
                                    "`{}` is {} but `{}.{other_name}` is {}; the other side must be {}",
                                    attr.name,
                                    rel.kind.as_str(),
                                    target_schema.uid,
                                    orel.kind.as_str(),
                                    rel.kind.inverse().as_str()
                                ))
                            } else {
                                None
                            }
                        }
                        _ => Some(format!(
                            "`{key}: \"{other_name}\"` names `{}.{other_name}`, which is not a relation",
                            target_schema.uid
                        )),
                    },
                };
                if let Some(p) = problem {
                    self.err(
                        &schema.source,
                        format!("{at}.{key}"),
                        Problem::RelationMismatch(p),
                    );
                }
            }
        }
    }

    /// A component may not contain itself, directly or through other components.
    fn check_component_cycles(&mut self, schemas: &[Schema]) {
        let edges = |s: &Schema| -> Vec<SchemaId> {
            s.attributes
                .iter()
                .flat_map(|a| match &a.kind {
                    AttributeKind::Component(c) => vec![c.component],
                    AttributeKind::DynamicZone(z) => z.components.clone(),
                    _ => Vec::new(),
                })
                .collect()
        };
        let mut reported: BTreeSet<Vec<SchemaId>> = BTreeSet::new();
        for start in schemas.iter().filter(|s| s.kind == SchemaKind::Component) {
            // Iterative DFS keeping the current path; bounded by the number of schemas.
            let mut stack: Vec<(SchemaId, usize)> = vec![(start.id, 0)];
            let mut on_path: Vec<SchemaId> = vec![start.id];
            while let Some((node, next)) = stack.last().copied() {
                let outs = edges(&schemas[node.index()]);
                if next >= outs.len() {
                    stack.pop();
                    on_path.pop();
                    continue;
                }
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                let child = outs[next];
                if child == start.id {
                    let mut cycle = on_path.clone();
                    let mut key = cycle.clone();
                    key.sort();
                    if reported.insert(key) {
                        cycle.push(start.id);
                        let text = cycle
                            .iter()
                            .map(|id| schemas[id.index()].uid.to_string())
                            .collect::<Vec<_>>()
                            .join(" → ");
                        self.err(&start.source, "$.attributes", Problem::ComponentCycle(text));
                    }
                } else if !on_path.contains(&child) {
                    stack.push((child, 0));
                    on_path.push(child);
                }
            }
        }
    }
}

fn scalar_type(name: &str, obj: &Map<String, Value>) -> Option<Result<ScalarType, Problem>> {
    let target_field = obj
        .get("targetField")
        .and_then(Value::as_str)
        .map(str::to_string);
    let values: Vec<String> = obj
        .get("enum")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if name == "enumeration" && values.is_empty() {
        return Some(Err(Problem::EmptyEnum));
    }
    ScalarType::from_name(name, target_field, values).map(Ok)
}

fn as_number(v: &Value) -> Option<serde_json::Number> {
    match v {
        Value::Number(n) => Some(n.clone()),
        _ => None,
    }
}

fn localized_flag(obj: &Map<String, Value>) -> Option<bool> {
    obj.get("pluginOptions")?
        .get("i18n")?
        .get("localized")?
        .as_bool()
}

/// Strapi's default `collectionName` when a schema omits it: the singular name for API
/// types, `<plugin>_<singular>` for plugin types.
fn default_collection_name(uid: &str, singular: &str) -> String {
    match uid.strip_prefix("plugin::") {
        Some(rest) => {
            let plugin = rest.split('.').next().unwrap_or(rest);
            format!("{plugin}_{singular}").to_lowercase()
        }
        None => singular.to_string(),
    }
}

/// Strapi's rule for singular and plural names: kebab-case, starting with a letter.
fn is_kebab_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
