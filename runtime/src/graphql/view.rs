//! The content model as Strapi's GraphQL plugin sees it: each content type and component
//! with the attributes Strapi adds at boot (`createdAt`, `updatedAt`, `publishedAt`,
//! `locale`, `localizations`), the types of plugins strata does not store
//! (review workflows), and the shadow-CRUD rules that plugins set (what is disabled).

use crate::schema::{AttributeKind, Model, RelationKind, ScalarType, Schema, SchemaKind};

use super::names;

/// Whether a view is a collection type, a single type or a component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// `collectionType`.
    Collection,
    /// `singleType`.
    Single,
    /// A component.
    Component,
}

/// An attribute's GraphQL-relevant shape.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrShape {
    /// A scalar mapped to a GraphQL scalar (`String`, `Int`, `Long`, `JSON`…).
    Scalar(&'static str),
    /// An enumeration with its values.
    Enum(Vec<String>),
    /// A media field.
    Media {
        /// A list of files.
        multiple: bool,
    },
    /// A relation to another content type (by uid).
    Relation {
        /// The target's uid (`None`: a morph relation without a fixed target).
        target: Option<String>,
        /// `…Many`.
        to_many: bool,
        /// A polymorphic kind.
        morph: bool,
    },
    /// A component (by uid).
    Component {
        /// The component's uid.
        uid: String,
        /// A list.
        repeatable: bool,
    },
    /// A dynamic zone and its components' uids.
    Zone(Vec<String>),
}

/// One attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct AttrView {
    /// The attribute name.
    pub name: String,
    /// What it is.
    pub shape: AttrShape,
    /// `required: true`.
    pub required: bool,
    /// Private: not in output types nor filters.
    pub private: bool,
    /// Writable: in input types (unless its input is disabled).
    pub writable: bool,
    /// Its input is disabled by a plugin (i18n's `locale` on localized types).
    pub input_disabled: bool,
}

/// The shadow-CRUD switches a plugin sets on a type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Crud {
    /// Not in the schema at all.
    pub disabled: bool,
    /// No queries.
    pub no_queries: bool,
    /// No mutations.
    pub no_mutations: bool,
    /// No create, update or delete mutation (replaced by the plugin's own).
    pub no_write_actions: bool,
}

/// One content type or component.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeView {
    /// The uid.
    pub uid: String,
    /// The GraphQL type name (`Article`, `UploadFile`, `ComponentSharedSeo`).
    pub name: String,
    /// The plural type name for list queries (`Articles`, `UploadFiles`).
    pub plural_name: String,
    /// Collection, single or component.
    pub kind: ViewKind,
    /// Localized by i18n.
    pub localized: bool,
    /// The attributes, in Strapi's order.
    pub attrs: Vec<AttrView>,
    /// The plugin switches.
    pub crud: Crud,
}

/// Every type the plugin sees, in Strapi's order: components, then content types.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// The types.
    pub types: Vec<TypeView>,
}

impl View {
    /// The members of the dynamic zone whose input scalar is named `scalar`
    /// (`<Type><Attribute>DynamicZoneInput`), by GraphQL name; `None` for another name.
    pub fn zone_input_members(&self, scalar: &str) -> Option<Vec<&str>> {
        self.types.iter().find_map(|t| {
            t.attrs.iter().find_map(|a| match &a.shape {
                AttrShape::Zone(members)
                    if names::input_name(&names::zone_name(&t.name, &a.name)) == scalar =>
                {
                    Some(
                        members
                            .iter()
                            .filter_map(|uid| self.get(uid))
                            .map(|m| m.name.as_str())
                            .collect(),
                    )
                }
                _ => None,
            })
        })
    }

    /// Whether `name` is a component's GraphQL name (the plugin's `parseData` takes any).
    pub fn is_component_name(&self, name: &str) -> bool {
        self.types
            .iter()
            .any(|t| t.kind == ViewKind::Component && t.name == name)
    }

    /// The view of a model.
    pub fn of(model: &Model) -> Self {
        let mut types: Vec<TypeView> = model
            .components()
            .map(|c| component_view(model, c))
            .collect();
        // Strapi's component registry holds them in descending uid order (seen in the
        // `GenericMorph` members of the blog and LaunchPad recordings).
        types.sort_by(|a, b| b.uid.cmp(&a.uid));
        let (mut user, builtin): (Vec<&Schema>, Vec<&Schema>) = model
            .content_types()
            .partition(|s| s.origin == crate::schema::Origin::Api);
        // Strapi loads APIs folder by folder (`product` before `product-page`), where
        // uid order would put `api::product-page…` first.
        user.sort_by(|a, b| api_key(a.uid.as_str()).cmp(&api_key(b.uid.as_str())));
        let mut plugins: Vec<TypeView> = builtin
            .into_iter()
            .map(|s| content_type_view(model, s))
            .collect();
        plugins.extend(review_workflows());
        // Stable: each plugin's types keep the model's order.
        plugins.sort_by_key(|t| plugin_rank(plugin_of(&t.uid)));
        types.extend(plugins);
        types.extend(user.into_iter().map(|s| content_type_view(model, s)));
        View { types }
    }

    /// The enabled type with this uid.
    pub fn get(&self, uid: &str) -> Option<&TypeView> {
        self.types.iter().find(|t| t.uid == uid && !t.crud.disabled)
    }

    /// The enabled types.
    pub fn enabled(&self) -> impl Iterator<Item = &TypeView> {
        self.types.iter().filter(|t| !t.crud.disabled)
    }
}

fn component_view(model: &Model, schema: &Schema) -> TypeView {
    let name = names::component_name(schema.uid.as_str());
    TypeView {
        uid: schema.uid.to_string(),
        plural_name: name.clone(),
        name,
        kind: ViewKind::Component,
        localized: false,
        attrs: schema
            .attributes
            .iter()
            .map(|a| attr_view(model, a))
            .collect(),
        crud: Crud::default(),
    }
}

fn content_type_view(model: &Model, schema: &Schema) -> TypeView {
    let uid = schema.uid.to_string();
    let plugin = plugin_of(&uid);
    let mut attrs: Vec<AttrView> = schema
        .attributes
        .iter()
        .map(|a| attr_view(model, a))
        .collect();
    if uid == "plugin::upload.file" {
        public_related(&mut attrs);
    }
    attrs.extend(system_attrs(&uid, schema.localized));
    TypeView {
        name: names::type_name(plugin, &schema.singular_name),
        plural_name: names::type_name(plugin, &schema.plural_name),
        kind: match schema.kind {
            SchemaKind::SingleType => ViewKind::Single,
            _ => ViewKind::Collection,
        },
        localized: schema.localized,
        attrs,
        crud: crud_of(&uid),
        uid,
    }
}

/// strata's built-in upload file marks `related` private so that REST never shows it;
/// Strapi's own schema does not, and its GraphQL type has `related: [GenericMorph]`.
fn public_related(attrs: &mut [AttrView]) {
    for attr in attrs.iter_mut().filter(|a| a.name == "related") {
        attr.private = false;
    }
}

/// A user content type's `(api, name)` from `api::<api>.<name>`.
fn api_key(uid: &str) -> (&str, &str) {
    let rest = uid.strip_prefix("api::").unwrap_or(uid);
    rest.split_once('.').unwrap_or((rest, ""))
}

/// The order in which Strapi registers its plugins' content types (so the root fields
/// come in Strapi's order); unknown plugins last.
fn plugin_rank(plugin: Option<&str>) -> usize {
    const ORDER: [&str; 4] = ["upload", "i18n", "review-workflows", "users-permissions"];
    plugin
        .and_then(|p| ORDER.iter().position(|o| *o == p))
        .unwrap_or(ORDER.len())
}

/// The plugin part of a uid (`users-permissions` of `plugin::users-permissions.user`).
fn plugin_of(uid: &str) -> Option<&str> {
    uid.strip_prefix("plugin::")
        .and_then(|rest| rest.split('.').next())
}

/// The switches Strapi's own plugins set (upload, i18n, users-permissions).
fn crud_of(uid: &str) -> Crud {
    match uid {
        "plugin::upload.folder" => Crud {
            disabled: true,
            ..Crud::default()
        },
        "plugin::upload.file" | "plugin::i18n.locale" => Crud {
            no_mutations: true,
            ..Crud::default()
        },
        "plugin::users-permissions.permission" => Crud {
            no_queries: true,
            no_mutations: true,
            ..Crud::default()
        },
        "plugin::users-permissions.user" | "plugin::users-permissions.role" => Crud {
            no_write_actions: true,
            ..Crud::default()
        },
        _ => Crud {
            disabled: uid.starts_with("admin::"),
            ..Crud::default()
        },
    }
}

/// The attributes Strapi adds to every content type, in its order; `createdBy` and
/// `updatedBy` are left out (private, and their target is an admin type).
fn system_attrs(uid: &str, localized: bool) -> Vec<AttrView> {
    let stamp = |name: &str, writable: bool| AttrView {
        name: name.to_owned(),
        shape: AttrShape::Scalar("DateTime"),
        required: false,
        private: false,
        writable,
        input_disabled: false,
    };
    vec![
        stamp("createdAt", false),
        stamp("updatedAt", false),
        stamp("publishedAt", true),
        AttrView {
            name: "locale".to_owned(),
            shape: AttrShape::Scalar("String"),
            required: false,
            private: !localized,
            writable: true,
            input_disabled: localized,
        },
        AttrView {
            name: "localizations".to_owned(),
            shape: AttrShape::Relation {
                target: Some(uid.to_owned()),
                to_many: true,
                morph: false,
            },
            required: false,
            private: !localized,
            writable: false,
            input_disabled: localized,
        },
    ]
}

fn attr_view(model: &Model, attr: &crate::schema::Attribute) -> AttrView {
    let shape = match &attr.kind {
        AttributeKind::Scalar(ScalarType::Enumeration { values }) => {
            AttrShape::Enum(values.clone())
        }
        AttributeKind::Scalar(scalar) => AttrShape::Scalar(graphql_scalar(scalar)),
        AttributeKind::Media(media) => AttrShape::Media {
            multiple: media.multiple,
        },
        AttributeKind::Relation(rel) => AttrShape::Relation {
            target: rel.target_uid.as_ref().map(|u| u.to_string()),
            to_many: rel.kind.is_to_many(),
            morph: rel.kind.is_morph(),
        },
        AttributeKind::Component(c) => AttrShape::Component {
            uid: model.schema(c.component).uid.to_string(),
            repeatable: c.repeatable,
        },
        AttributeKind::DynamicZone(z) => AttrShape::Zone(
            z.components
                .iter()
                .map(|id| model.schema(*id).uid.to_string())
                .collect(),
        ),
    };
    AttrView {
        name: attr.name.clone(),
        shape,
        required: attr.required,
        private: attr.private,
        writable: true,
        input_disabled: false,
    }
}

/// Strapi's `SCALARS_ASSOCIATIONS`: a scalar attribute type → its GraphQL scalar.
pub fn graphql_scalar(scalar: &ScalarType) -> &'static str {
    match scalar {
        ScalarType::String
        | ScalarType::Text
        | ScalarType::RichText
        | ScalarType::Email
        | ScalarType::Password
        | ScalarType::Uid { .. }
        | ScalarType::Enumeration { .. } => "String",
        ScalarType::Blocks | ScalarType::Json => "JSON",
        ScalarType::Integer => "Int",
        ScalarType::BigInteger => "Long",
        ScalarType::Float | ScalarType::Decimal => "Float",
        ScalarType::Boolean => "Boolean",
        ScalarType::Date => "Date",
        ScalarType::Time => "Time",
        ScalarType::DateTime | ScalarType::Timestamp => "DateTime",
    }
}

/// Review workflows' two content types, which every Strapi 5 has and strata does not
/// store: they are in Strapi's GraphQL schema all the same.
fn review_workflows() -> Vec<TypeView> {
    const WORKFLOW: &str = "plugin::review-workflows.workflow";
    const STAGE: &str = "plugin::review-workflows.workflow-stage";
    let attr = |name: &str, shape: AttrShape, required: bool| AttrView {
        name: name.to_owned(),
        shape,
        required,
        private: false,
        writable: true,
        input_disabled: false,
    };
    let relation = |target: &str, kind: RelationKind| AttrShape::Relation {
        target: Some(target.to_owned()),
        to_many: kind.is_to_many(),
        morph: false,
    };
    let workflow = vec![
        attr("name", AttrShape::Scalar("String"), true),
        attr("stages", relation(STAGE, RelationKind::OneToMany), false),
        attr(
            "stageRequiredToPublish",
            relation(STAGE, RelationKind::OneToOne),
            false,
        ),
        attr("contentTypes", AttrShape::Scalar("JSON"), true),
    ];
    let stage = vec![
        attr("name", AttrShape::Scalar("String"), false),
        attr("color", AttrShape::Scalar("String"), false),
        attr(
            "workflow",
            relation(WORKFLOW, RelationKind::ManyToOne),
            false,
        ),
        attr(
            "permissions",
            relation("admin::permission", RelationKind::ManyToMany),
            false,
        ),
    ];
    [
        (WORKFLOW, "workflow", "workflows", workflow),
        (STAGE, "workflow-stage", "workflow-stages", stage),
    ]
    .into_iter()
    .map(|(uid, singular, plural, mut attrs)| {
        attrs.extend(system_attrs(uid, false));
        TypeView {
            uid: uid.to_owned(),
            name: names::type_name(Some("review-workflows"), singular),
            plural_name: names::type_name(Some("review-workflows"), plural),
            kind: ViewKind::Collection,
            localized: false,
            attrs,
            crud: Crud::default(),
        }
    })
    .collect()
}
