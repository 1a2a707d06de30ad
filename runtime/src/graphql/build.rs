//! The model-derived part of the schema, as Strapi's shadow CRUD builds it: per type its
//! enums, dynamic zones, filters input, input, object type, response collections,
//! queries and mutations; then the `GenericMorph` union of every type and component.

use super::ir::{FieldDef, InputDef, Kind, Registry, Ty};
use super::names;
use super::view::{AttrShape, AttrView, TypeView, View, ViewKind};

/// The description of the `locale` argument i18n adds to localized types' root fields.
const LOCALE_ARG: &str = "The locale to use for the query";

/// Registers every type of every enabled content type and component.
pub fn shadow_crud(view: &View, reg: &mut Registry) {
    for ty in view.enabled() {
        enums(ty, reg);
        zones(view, ty, reg);
        filters(view, ty, reg);
        input(view, ty, reg);
        reg.add(&ty.name, None, Kind::Object(object_fields(view, ty)));
        if ty.kind == ViewKind::Component {
            continue;
        }
        responses(ty, reg);
        if !ty.crud.no_queries {
            reg.extend_object("Query", queries(ty));
        }
        if !ty.crud.no_mutations && !ty.crud.no_write_actions {
            reg.extend_object("Mutation", mutations(ty));
        }
    }
    let members = view.enabled().map(|t| t.name.clone()).collect();
    reg.add("GenericMorph", None, Kind::Union(members));
}

fn enums(ty: &TypeView, reg: &mut Registry) {
    for attr in &ty.attrs {
        if let AttrShape::Enum(values) = &attr.shape {
            let values = values.iter().map(|v| names::enum_value(v)).collect();
            reg.add(
                names::enum_name(&ty.name, &attr.name),
                None,
                Kind::Enum(values),
            );
        }
    }
}

fn zones(view: &View, ty: &TypeView, reg: &mut Registry) {
    for attr in &ty.attrs {
        if let AttrShape::Zone(uids) = &attr.shape {
            let name = names::zone_name(&ty.name, &attr.name);
            let mut members: Vec<String> = uids
                .iter()
                .filter_map(|uid| view.get(uid).map(|c| c.name.clone()))
                .collect();
            members.push("Error".to_owned());
            reg.add(&name, None, Kind::Union(members));
            reg.add(
                names::input_name(&name),
                None,
                Kind::Scalar { specified_by: None },
            );
        }
    }
}

fn filters(view: &View, ty: &TypeView, reg: &mut Registry) {
    let name = names::filters_name(&ty.name);
    let mut fields = Vec::new();
    if ty.kind == ViewKind::Collection {
        fields.push(InputDef::new("documentId", Ty::named("IDFilterInput")));
    }
    for attr in ty.attrs.iter().filter(|a| !a.private) {
        let target = match &attr.shape {
            AttrShape::Scalar(scalar) => Some(names::scalar_filter_name(scalar)),
            AttrShape::Enum(_) => Some(names::scalar_filter_name("String")),
            AttrShape::Relation {
                target: Some(uid),
                morph: false,
                ..
            }
            | AttrShape::Component { uid, .. } => {
                view.get(uid).map(|t| names::filters_name(&t.name))
            }
            _ => None,
        };
        if let Some(target) = target {
            fields.push(InputDef::new(&attr.name, Ty::named(target)));
        }
    }
    fields.push(InputDef::new("and", Ty::list(&name)));
    fields.push(InputDef::new("or", Ty::list(&name)));
    fields.push(InputDef::new("not", Ty::named(&name)));
    reg.add(name, None, Kind::Input(fields));
}

fn input(view: &View, ty: &TypeView, reg: &mut Registry) {
    let mut fields = Vec::new();
    if ty.kind == ViewKind::Component {
        fields.push(InputDef::new("id", Ty::named("ID")));
    }
    for attr in ty.attrs.iter().filter(|a| a.writable && !a.input_disabled) {
        if let Some(field) = input_field(view, ty, attr) {
            fields.push(field);
        }
    }
    reg.add(names::input_name(&ty.name), None, Kind::Input(fields));
}

fn input_field(view: &View, ty: &TypeView, attr: &AttrView) -> Option<InputDef> {
    let id_or_ids = |many: bool| {
        if many {
            Ty::list("ID")
        } else {
            Ty::named("ID")
        }
    };
    let ty = match &attr.shape {
        AttrShape::Enum(_) => Ty::named(names::enum_name(&ty.name, &attr.name)),
        AttrShape::Scalar(scalar) => Ty::named(*scalar),
        AttrShape::Media { multiple } => {
            view.get("plugin::upload.file")?;
            id_or_ids(*multiple)
        }
        AttrShape::Relation {
            target: Some(uid),
            to_many,
            morph: false,
        } => {
            view.get(uid)?;
            id_or_ids(*to_many)
        }
        AttrShape::Relation { .. } => return None,
        AttrShape::Component { uid, repeatable } => {
            let name = names::input_name(&view.get(uid)?.name);
            if *repeatable {
                Ty::list(name)
            } else {
                Ty::named(name)
            }
        }
        AttrShape::Zone(_) => Ty::List(Box::new(Ty::nn(names::input_name(&names::zone_name(
            &ty.name, &attr.name,
        ))))),
    };
    Some(InputDef::new(&attr.name, ty))
}

/// `getContentTypeArgs(target, { isNested: true })` of a list field.
fn nested_args(target: &TypeView) -> Vec<InputDef> {
    match target.kind {
        ViewKind::Single => Vec::new(),
        _ => list_args(target),
    }
}

/// `filters`, `pagination` and `sort`.
fn list_args(target: &TypeView) -> Vec<InputDef> {
    vec![
        InputDef::new("filters", Ty::named(names::filters_name(&target.name))),
        InputDef::new("pagination", Ty::named("PaginationArg")).default(serde_json::json!({})),
        InputDef::new("sort", Ty::list("String")).default(serde_json::json!([])),
    ]
}

/// `status`, `hasPublishedVersion` and `publicationFilter`.
fn publication_args() -> Vec<InputDef> {
    vec![
        InputDef::new("status", Ty::named("PublicationStatus")).default_enum("PUBLISHED"),
        InputDef::new("hasPublishedVersion", Ty::named("Boolean")),
        InputDef::new("publicationFilter", Ty::named("PublicationFilter")),
    ]
}

fn object_fields(view: &View, ty: &TypeView) -> Vec<FieldDef> {
    let id = if ty.kind == ViewKind::Component {
        "id"
    } else {
        "documentId"
    };
    let mut fields = vec![FieldDef::new(id, Ty::nn("ID"))];
    for attr in ty.attrs.iter().filter(|a| !a.private) {
        fields.extend(attr_fields(view, ty, attr));
    }
    fields
}

fn required(attr: &AttrView, ty: Ty) -> Ty {
    if attr.required { ty.non_null() } else { ty }
}

fn attr_fields(view: &View, ty: &TypeView, attr: &AttrView) -> Vec<FieldDef> {
    let field = |t: Ty| vec![FieldDef::new(&attr.name, required(attr, t))];
    match &attr.shape {
        AttrShape::Enum(_) => field(Ty::named(names::enum_name(&ty.name, &attr.name))),
        AttrShape::Scalar(scalar) => field(Ty::named(*scalar)),
        AttrShape::Component { uid, repeatable } => component_field(view, attr, uid, *repeatable),
        AttrShape::Zone(_) => field(Ty::list(names::zone_name(&ty.name, &attr.name))),
        AttrShape::Media { multiple } => match view.get("plugin::upload.file") {
            Some(file) => related_fields(attr, file, *multiple),
            None => Vec::new(),
        },
        AttrShape::Relation {
            target: None,
            to_many,
            morph: true,
        } => field(if *to_many {
            Ty::list("GenericMorph")
        } else {
            Ty::named("GenericMorph")
        }),
        AttrShape::Relation {
            target: Some(uid),
            to_many,
            morph: false,
        } => match view.get(uid) {
            Some(target) => related_fields(attr, target, *to_many),
            None => Vec::new(),
        },
        AttrShape::Relation { .. } => Vec::new(),
    }
}

fn component_field(view: &View, attr: &AttrView, uid: &str, repeatable: bool) -> Vec<FieldDef> {
    let Some(component) = view.get(uid) else {
        return Vec::new();
    };
    let (ty, args) = if repeatable {
        (Ty::list(&component.name), list_args(component))
    } else {
        (Ty::named(&component.name), Vec::new())
    };
    vec![FieldDef::new(&attr.name, required(attr, ty)).args(args)]
}

/// A relation or media field: `x` alone for one, `x_connection` and `x` for many.
fn related_fields(attr: &AttrView, target: &TypeView, many: bool) -> Vec<FieldDef> {
    if !many {
        return vec![FieldDef::new(
            &attr.name,
            required(attr, Ty::named(&target.name)),
        )];
    }
    let args = nested_args(target);
    let connection = Ty::named(names::relation_collection_name(&target.name));
    vec![
        FieldDef::new(
            format!("{}_connection", attr.name),
            required(attr, connection),
        )
        .args(args.clone()),
        FieldDef::new(&attr.name, Ty::list(&target.name).non_null()).args(args),
    ]
}

fn responses(ty: &TypeView, reg: &mut Registry) {
    let nodes = || FieldDef::new("nodes", Ty::List(Box::new(Ty::nn(&ty.name))).non_null());
    reg.add(
        names::entity_response_name(&ty.name),
        None,
        Kind::Object(vec![FieldDef::new("data", Ty::named(&ty.name))]),
    );
    reg.add(
        names::response_collection_name(&ty.name),
        None,
        Kind::Object(vec![
            nodes(),
            FieldDef::new("pageInfo", Ty::nn("Pagination")),
        ]),
    );
    reg.add(
        names::relation_collection_name(&ty.name),
        None,
        Kind::Object(vec![nodes()]),
    );
}

/// i18n's `locale` argument on a localized type's root fields.
fn with_locale(ty: &TypeView, mut args: Vec<InputDef>) -> Vec<InputDef> {
    if ty.localized {
        args.push(InputDef::new("locale", Ty::named("I18NLocaleCode")).describe(LOCALE_ARG));
    }
    args
}

fn queries(ty: &TypeView) -> Vec<FieldDef> {
    let one = names::lower_first(&ty.name);
    if ty.kind == ViewKind::Single {
        return vec![
            FieldDef::new(one, Ty::named(&ty.name)).args(with_locale(ty, publication_args())),
        ];
    }
    let many = names::lower_first(&ty.plural_name);
    let mut one_args = vec![InputDef::new("documentId", Ty::nn("ID"))];
    one_args.extend(publication_args());
    let mut list = list_args(ty);
    list.extend(publication_args());
    let list = with_locale(ty, list);
    vec![
        FieldDef::new(one, Ty::named(&ty.name)).args(with_locale(ty, one_args)),
        FieldDef::new(
            format!("{many}_connection"),
            Ty::named(names::response_collection_name(&ty.name)),
        )
        .args(list.clone()),
        FieldDef::new(many, Ty::list(&ty.name).non_null()).args(list),
    ]
}

fn mutations(ty: &TypeView) -> Vec<FieldDef> {
    let status =
        || InputDef::new("status", Ty::named("PublicationStatus")).default_enum("PUBLISHED");
    let data = || InputDef::new("data", Ty::nn(names::input_name(&ty.name)));
    let document_id = || InputDef::new("documentId", Ty::nn("ID"));
    let entity = || Ty::named(&ty.name);
    let deleted = || Ty::named("DeleteMutationResponse");
    let field = |prefix: &str, t: Ty, args: Vec<InputDef>| {
        FieldDef::new(format!("{prefix}{}", ty.name), t).args(with_locale(ty, args))
    };
    if ty.kind == ViewKind::Single {
        return vec![
            field("update", entity(), vec![status(), data()]),
            field("delete", deleted(), Vec::new()),
        ];
    }
    vec![
        field("create", entity(), vec![status(), data()]),
        field("update", entity(), vec![document_id(), status(), data()]),
        field("delete", deleted(), vec![document_id()]),
    ]
}
