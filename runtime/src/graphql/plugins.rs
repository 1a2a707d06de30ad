//! The parts of Strapi's schema that do not come from the content model: the GraphQL
//! plugin's scalars and internal types (pagination, publication status and filter, the
//! scalar filter inputs), i18n's locale scalar, and the types, queries and mutations the
//! upload and users-permissions plugins register by hand. Their names that depend on a
//! type (`UploadFile`, `UsersPermissionsRoleInput`) are built by the same naming rules.

use super::ir::{FieldDef, InputDef, Kind, Registry, Ty};
use super::names;
use super::view::View;

const JSON_DESCRIPTION: &str = "The `JSON` scalar type represents JSON values as specified by [ECMA-404](http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf).";
const JSON_URL: &str = "http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf";
const DATETIME_DESCRIPTION: &str = "A date-time string at UTC, such as 2007-12-03T10:15:30Z, compliant with the `date-time` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of dates and times using the Gregorian calendar.";
const DATE_DESCRIPTION: &str = "A date string, such as 2007-12-03, compliant with the `full-date` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of dates and times using the Gregorian calendar.";
const TIME_DESCRIPTION: &str = "A time string with format HH:mm:ss.SSS";
const LONG_DESCRIPTION: &str =
    "The `BigInt` scalar type represents non-fractional signed whole numeric values.";
const LOCALE_DESCRIPTION: &str = "A string used to identify an i18n locale";

/// The scalars Strapi's filters exist for, in its order (the keys of
/// `GRAPHQL_SCALAR_OPERATORS`).
const FILTERED_SCALARS: [&str; 10] = [
    "ID", "Boolean", "String", "Int", "Long", "Float", "Date", "Time", "DateTime", "JSON",
];

/// Strapi's filter operators as GraphQL names them (REST's, without `$`), in order;
/// `and`, `or`, `in`, `notIn` and `between` take lists, `not` the filter itself, `null`
/// and `notNull` booleans.
pub const OPERATORS: [&str; 22] = [
    "and",
    "or",
    "not",
    "eq",
    "eqi",
    "ne",
    "nei",
    "startsWith",
    "endsWith",
    "contains",
    "notContains",
    "containsi",
    "notContainsi",
    "gt",
    "gte",
    "lt",
    "lte",
    "null",
    "notNull",
    "in",
    "notIn",
    "between",
];

/// The values of `PublicationFilter`.
const PUBLICATION_FILTERS: [&str; 8] = [
    "NEVER_PUBLISHED",
    "HAS_PUBLISHED_VERSION",
    "MODIFIED",
    "UNMODIFIED",
    "NEVER_PUBLISHED_DOCUMENT",
    "HAS_PUBLISHED_VERSION_DOCUMENT",
    "PUBLISHED_WITHOUT_DRAFT",
    "PUBLISHED_WITH_DRAFT",
];

/// The GraphQL plugin's scalars and internal types, and i18n's scalar.
pub fn internals(reg: &mut Registry) {
    let scalar = |reg: &mut Registry, name: &str, description: &str, url: Option<&str>| {
        let specified_by = url.map(str::to_owned);
        reg.add(name, Some(description), Kind::Scalar { specified_by });
    };
    scalar(reg, "JSON", JSON_DESCRIPTION, Some(JSON_URL));
    scalar(reg, "DateTime", DATETIME_DESCRIPTION, None);
    scalar(reg, "Time", TIME_DESCRIPTION, None);
    scalar(reg, "Date", DATE_DESCRIPTION, None);
    scalar(reg, "Long", LONG_DESCRIPTION, None);
    object(
        reg,
        "Error",
        vec![
            field("code", Ty::nn("String")),
            field("message", Ty::named("String")),
        ],
    );
    let int = || Ty::nn("Int");
    object(
        reg,
        "Pagination",
        vec![
            field("total", int()),
            field("page", int()),
            field("pageSize", int()),
            field("pageCount", int()),
        ],
    );
    object(
        reg,
        "DeleteMutationResponse",
        vec![field("documentId", Ty::nn("ID"))],
    );
    reg.add(
        "PublicationStatus",
        None,
        Kind::Enum(vec!["DRAFT".into(), "PUBLISHED".into()]),
    );
    let filters = PUBLICATION_FILTERS
        .iter()
        .map(|v| (*v).to_owned())
        .collect();
    reg.add("PublicationFilter", None, Kind::Enum(filters));
    for scalar in FILTERED_SCALARS {
        scalar_filter(reg, scalar);
    }
}

/// i18n's `I18NLocaleCode` scalar (registered by its extension, after upload's).
pub fn i18n(reg: &mut Registry) {
    let description = Some(LOCALE_DESCRIPTION);
    reg.add(
        "I18NLocaleCode",
        description,
        Kind::Scalar { specified_by: None },
    );
}

/// `PaginationArg`, which Strapi's schema gets when an argument first names it (after
/// every registered type).
pub fn pagination_arg(reg: &mut Registry) {
    let page = ["page", "pageSize", "start", "limit"].map(|n| input(n, Ty::named("Int")));
    reg.add("PaginationArg", None, Kind::Input(page.to_vec()));
}

fn scalar_filter(reg: &mut Registry, scalar: &str) {
    let name = names::scalar_filter_name(scalar);
    let fields = OPERATORS
        .iter()
        .map(|op| {
            let ty = match *op {
                "and" | "or" | "in" | "notIn" | "between" => Ty::list(scalar),
                "not" => Ty::named(&name),
                "null" | "notNull" => Ty::named("Boolean"),
                _ => Ty::named(scalar),
            };
            input(op, ty)
        })
        .collect();
    reg.add(name, None, Kind::Input(fields));
}

fn field(name: &str, ty: Ty) -> FieldDef {
    FieldDef::new(name, ty)
}

fn input(name: &str, ty: Ty) -> InputDef {
    InputDef::new(name, ty)
}

fn object(reg: &mut Registry, name: &str, fields: Vec<FieldDef>) {
    reg.add(name, None, Kind::Object(fields));
}

/// The upload plugin's `FileInfoInput` and its two mutations.
pub fn upload(view: &View, reg: &mut Registry) {
    let Some(file) = view.get("plugin::upload.file") else {
        return;
    };
    let info = ["name", "alternativeText", "caption"].map(|n| input(n, Ty::named("String")));
    reg.add("FileInfoInput", None, Kind::Input(info.to_vec()));
    let id = || input("id", Ty::nn("ID"));
    reg.extend_object(
        "Mutation",
        vec![
            field("updateUploadFile", Ty::nn(&file.name))
                .args(vec![id(), input("info", Ty::named("FileInfoInput"))]),
            field("deleteUploadFile", Ty::named(&file.name)).args(vec![id()]),
        ],
    );
}

/// The users-permissions plugin's own types, `me`, and its mutations (which replace
/// the shadow CRUD's create, update and delete of users and roles).
pub fn users_permissions(view: &View, reg: &mut Registry) {
    let (Some(user), Some(role)) = (
        view.get("plugin::users-permissions.user"),
        view.get("plugin::users-permissions.role"),
    ) else {
        return;
    };
    users_permissions_types(reg);
    reg.extend_object("Query", vec![field("me", Ty::named("UsersPermissionsMe"))]);
    let mut mutations = role_mutations(&names::input_name(&role.name));
    mutations.extend(user_mutations(user));
    mutations.extend(auth_mutations());
    reg.extend_object("Mutation", mutations);
}

fn users_permissions_types(reg: &mut Registry) {
    let s = |n: &str| field(n, Ty::named("String"));
    let b = |n: &str| field(n, Ty::named("Boolean"));
    let id = |n: &str| field(n, Ty::nn("ID"));
    object(
        reg,
        "UsersPermissionsMe",
        vec![
            id("id"),
            id("documentId"),
            field("username", Ty::nn("String")),
            s("email"),
            b("confirmed"),
            b("blocked"),
            field("role", Ty::named("UsersPermissionsMeRole")),
        ],
    );
    object(
        reg,
        "UsersPermissionsMeRole",
        vec![
            id("id"),
            field("name", Ty::nn("String")),
            s("description"),
            s("type"),
        ],
    );
    let required = |n: &str| input(n, Ty::nn("String"));
    let register = ["username", "email", "password"].map(required);
    reg.add(
        "UsersPermissionsRegisterInput",
        None,
        Kind::Input(register.to_vec()),
    );
    let provider = required("provider").default(serde_json::json!("local"));
    let login = vec![required("identifier"), required("password"), provider];
    reg.add("UsersPermissionsLoginInput", None, Kind::Input(login));
    let ok = || vec![field("ok", Ty::nn("Boolean"))];
    object(reg, "UsersPermissionsPasswordPayload", ok());
    object(
        reg,
        "UsersPermissionsLoginPayload",
        vec![s("jwt"), field("user", Ty::nn("UsersPermissionsMe"))],
    );
    for payload in ["Create", "Update", "Delete"] {
        object(reg, &format!("UsersPermissions{payload}RolePayload"), ok());
    }
}

fn role_mutations(role_input: &str) -> Vec<FieldDef> {
    let id = || input("id", Ty::nn("ID"));
    let data = || input("data", Ty::nn(role_input));
    let payload = |p: &str| Ty::named(format!("UsersPermissions{p}RolePayload"));
    vec![
        field("createUsersPermissionsRole", payload("Create"))
            .args(vec![data()])
            .describe("Create a new role"),
        field("updateUsersPermissionsRole", payload("Update"))
            .args(vec![id(), data()])
            .describe("Update an existing role"),
        field("deleteUsersPermissionsRole", payload("Delete"))
            .args(vec![id()])
            .describe("Delete an existing role"),
    ]
}

fn user_mutations(user: &super::view::TypeView) -> Vec<FieldDef> {
    let id = || input("id", Ty::nn("ID"));
    let data = || input("data", Ty::nn(names::input_name(&user.name)));
    let response = || Ty::nn(names::entity_response_name(&user.name));
    vec![
        field("createUsersPermissionsUser", response())
            .args(vec![data()])
            .describe("Create a new user"),
        field("updateUsersPermissionsUser", response())
            .args(vec![id(), data()])
            .describe("Update an existing user"),
        field("deleteUsersPermissionsUser", response())
            .args(vec![id()])
            .describe("Delete an existing user"),
    ]
}

fn auth_mutations() -> Vec<FieldDef> {
    let required = |n: &str| input(n, Ty::nn("String"));
    let login = || Ty::named("UsersPermissionsLoginPayload");
    vec![
        field("login", login().non_null())
            .args(vec![input("input", Ty::nn("UsersPermissionsLoginInput"))]),
        field("register", login().non_null())
            .args(vec![input(
                "input",
                Ty::nn("UsersPermissionsRegisterInput"),
            )])
            .describe("Register a user"),
        field(
            "forgotPassword",
            Ty::named("UsersPermissionsPasswordPayload"),
        )
        .args(vec![required("email")])
        .describe("Request a reset password token"),
        field("resetPassword", login())
            .args(vec![
                required("password"),
                required("passwordConfirmation"),
                required("code"),
            ])
            .describe("Reset user password. Confirm with a code (resetToken from forgotPassword)"),
        field("changePassword", login())
            .args(vec![
                required("currentPassword"),
                required("password"),
                required("passwordConfirmation"),
            ])
            .describe("Change user password. Confirm with the current password."),
        field("emailConfirmation", login())
            .args(vec![required("confirmation")])
            .describe("Confirm an email users email address"),
    ]
}
