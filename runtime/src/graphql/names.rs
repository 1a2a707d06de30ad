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
/// GraphQL enum value name. Letters are transliterated first ([`transliterate`]: `über` is
/// `ueber`, `é` is `e`); then runs of characters other than ASCII letters and digits
/// become one `_`, trimmed at both ends; `&` reads as `and`.
pub fn enum_value(value: &str) -> String {
    let replaced = transliterate(value)
        .replace('&', " and ")
        .replace('🦄', " unicorn ")
        .replace('♥', " love ");
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

/// The Latin part of `@sindresorhus/transliterate`, which slugify runs first: German
/// umlauts as two letters (`ä` → `ae`, `ß` → `ss`), letters that do not decompose by
/// their own table (`ø` → `o`, `æ` → `ae`, `þ` → `th`, `ł` → `l`, …), and every other
/// letter without its diacritics (Unicode decomposition, combining marks dropped), as its
/// tables for Latin, Vietnamese, Czech, Polish, Latvian, Lithuanian, Romanian and Turkish
/// and lodash's `deburr` map them. Its tables for other scripts (Cyrillic, Greek, Arabic,
/// Georgian, …) are not ported: such letters are not ASCII, so they become `_` here.
pub fn transliterate(value: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let mut out = String::with_capacity(value.len());
    for c in value.nfc() {
        match latin_letter(c) {
            Some(text) => out.push_str(text),
            None => out.extend(std::iter::once(c).nfd().filter(|d| !is_combining_mark(*d))),
        }
    }
    out
}

/// The letters transliterate maps otherwise than by dropping diacritics.
fn latin_letter(c: char) -> Option<&'static str> {
    Some(match c {
        'ä' => "ae",
        'Ä' => "Ae",
        'ö' => "oe",
        'Ö' => "Oe",
        'ü' => "ue",
        'Ü' => "Ue",
        'ß' => "ss",
        'ẞ' => "SS",
        'Æ' => "AE",
        'æ' => "ae",
        'Ø' => "O",
        'ø' => "o",
        'Ð' | 'Đ' => "D",
        'ð' | 'đ' => "d",
        'Þ' => "TH",
        'þ' => "th",
        'Œ' => "Oe",
        'œ' => "oe",
        'Ł' => "L",
        'ł' => "l",
        'Ħ' => "H",
        'ħ' => "h",
        'ı' => "i",
        'Ĳ' => "IJ",
        'ĳ' => "ij",
        'ĸ' => "k",
        'Ŀ' => "L",
        'ŀ' => "l",
        'Ŋ' => "N",
        'ŋ' => "n",
        'ſ' => "s",
        'ŉ' => "'n",
        _ => return None,
    })
}

/// Unicode's combining diacritical marks (the blocks `deburr` strips).
fn is_combining_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036f}'
            | '\u{1ab0}'..='\u{1aff}'
            | '\u{1dc0}'..='\u{1dff}'
            | '\u{20d0}'..='\u{20ff}'
            | '\u{fe20}'..='\u{fe2f}')
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

    /// What Strapi 5.54's `strings.toRegressedEnumValue` answers for these values (asked
    /// of the oracle's `@strapi/utils` with node).
    #[test]
    fn enum_values_are_transliterated_as_strapi_does() {
        for (value, strapi) in [
            ("2-col", "2_col"),
            ("a b", "a_b"),
            ("über", "ueber"),
            ("with,comma", "with_comma"),
            ("-", ""),
            ("Ça & là", "Ca_and_la"),
            ("x  y", "x_y"),
            ("é1", "e1"),
            ("Ærø", "AEro"),
            ("straße", "strasse"),
            ("Łódź", "Lodz"),
            ("Nguyễn", "Nguyen"),
            ("Øre", "Ore"),
            ("þorn", "thorn"),
            ("İstanbul", "Istanbul"),
            ("ĳs", "ijs"),
            ("Œuvre", "Oeuvre"),
            ("Šťastný", "Stastny"),
            ("Ångström", "Angstroem"),
            ("naïve café", "naive_cafe"),
            ("señor", "senor"),
        ] {
            assert_eq!(enum_value(value), strapi, "{value}");
        }
    }
}
