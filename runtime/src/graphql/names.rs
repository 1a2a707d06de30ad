//! Strapi's GraphQL naming rules (`@strapi/plugin-graphql` `utils/naming`), ported:
//! type names from a uid's plugin and singular or plural name through lodash
//! `camelCase`/`upperFirst`, and every name derived from a type name.

pub use crate::schema::naming::{camel_case, upper_first};

/// lodash `lowerFirst`.
pub fn lower_first(input: &str) -> String {
    let mut chars = input.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `getTypeName`: `upperFirst(camelCase(plugin)) + upperFirst(camelCase(name))`
/// (`UsersPermissionsUser`, `I18NLocale`, `Article`).
pub fn type_name(plugin: Option<&str>, name: &str) -> String {
    let prefix = plugin
        .map(|p| upper_first(&camel_case(p)))
        .unwrap_or_default();
    format!("{prefix}{}", upper_first(&camel_case(name)))
}

/// A component's `globalId`: `upperFirst(camelCase("component_" + uid))`
/// (`ComponentSharedSeo`).
pub fn component_name(uid: &str) -> String {
    upper_first(&camel_case(&format!("component_{uid}")))
}

/// `getEnumName`: `ENUM_<TYPENAME>_<ATTRIBUTE>` in upper case.
pub fn enum_name(type_name: &str, attribute: &str) -> String {
    format!(
        "ENUM_{}_{}",
        type_name.to_uppercase(),
        attribute.to_uppercase()
    )
}

/// `getDynamicZoneName`: `<Type><Attribute>DynamicZone`.
pub fn zone_name(type_name: &str, attribute: &str) -> String {
    format!(
        "{type_name}{}DynamicZone",
        upper_first(&camel_case(attribute))
    )
}

/// `getMorphRelationTypeName`: `<Type><Attribute>Morph`.
pub fn morph_name(type_name: &str, attribute: &str) -> String {
    format!("{type_name}{}Morph", upper_first(&camel_case(attribute)))
}

/// `getFiltersInputTypeName`.
pub fn filters_name(type_name: &str) -> String {
    format!("{type_name}FiltersInput")
}

/// `getContentTypeInputName` / `getComponentInputName`.
pub fn input_name(type_name: &str) -> String {
    format!("{type_name}Input")
}

/// `getEntityResponseName`.
pub fn entity_response_name(type_name: &str) -> String {
    format!("{type_name}EntityResponse")
}

/// `getEntityResponseCollectionName`.
pub fn response_collection_name(type_name: &str) -> String {
    format!("{type_name}EntityResponseCollection")
}

/// `getRelationResponseCollectionName`.
pub fn relation_collection_name(type_name: &str) -> String {
    format!("{type_name}RelationResponseCollection")
}

/// `getScalarFilterInputTypeName`.
pub fn scalar_filter_name(scalar: &str) -> String {
    format!("{scalar}FilterInput")
}

/// `toRegressedEnumValue` (`@sindresorhus/slugify` with `_`, case kept): a value as a
/// GraphQL enum value name. Runs of characters other than ASCII letters and digits
/// become one `_`, trimmed at both ends; `&` reads as `and`.
pub fn enum_value(value: &str) -> String {
    let replaced = value.replace('&', " and ");
    let mut out = String::with_capacity(replaced.len());
    let mut pending = false;
    for c in replaced.chars() {
        if c.is_ascii_alphanumeric() {
            if pending && !out.is_empty() {
                out.push('_');
            }
            pending = false;
            out.push(c);
        } else {
            pending = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_follow_strapi() {
        assert_eq!(
            type_name(Some("users-permissions"), "user"),
            "UsersPermissionsUser"
        );
        assert_eq!(type_name(Some("i18n"), "locale"), "I18NLocale");
        assert_eq!(
            type_name(Some("review-workflows"), "workflow-stages"),
            "ReviewWorkflowsWorkflowStages"
        );
        assert_eq!(type_name(None, "article"), "Article");
        assert_eq!(
            upper_first(&camel_case("component_shared.social-link")),
            "ComponentSharedSocialLink"
        );
        assert_eq!(enum_value("news"), "news");
        assert_eq!(enum_value("a-b c"), "a_b_c");
    }
}
