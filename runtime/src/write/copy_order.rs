//! The order in which Strapi meets the relations of what a new localization copies.
//!
//! A new localization takes the shared components and zones it leaves nil from another
//! locale (i18n's `copyNonLocalizedFields`): Strapi loads that row with a populate list
//! (`getNestedPopulateOfNonLocalizedAttributes`), and the database layer shapes each
//! component of it by that list (`processPopulate`). The creation's transform then walks
//! the data key by key (`traverseEntity`) and refuses the first relation target missing
//! in the new locale. So which target an error names depends on the order of the keys of
//! each copied component, which this module works out: [`copy_populate`] is Strapi's list,
//! [`populate_levels`] what the database layer makes of a level of it.

use crate::schema::{AttributeKind, Model, ScalarType, Schema};

/// Strapi's `getNestedPopulateOfNonLocalizedAttributes` of `schema` (a content type, or
/// a component when `component`): the dotted paths i18n populates to copy its shared
/// attributes. A level lists the attributes that appear once among its scalars, its
/// shared attributes and (in a component) its relations: so uids, files, components,
/// zones and a component's relations, but not the shared scalars, which appear twice.
/// Each component and zone then adds its own paths under its name, zones those of each
/// of their components.
pub fn copy_populate(model: &Model, schema: &Schema, component: bool) -> Vec<String> {
    let scalar = |k: &AttributeKind| {
        !matches!(
            k,
            AttributeKind::Media(_)
                | AttributeKind::Component(_)
                | AttributeKind::Relation(_)
                | AttributeKind::DynamicZone(_)
        )
    };
    let shared = |k: &AttributeKind, localized: bool| {
        !localized
            && !matches!(
                k,
                AttributeKind::Relation(_) | AttributeKind::Scalar(ScalarType::Uid { .. })
            )
    };
    let mut all: Vec<&str> = Vec::new();
    let attrs = &schema.attributes;
    all.extend(
        attrs
            .iter()
            .filter(|a| scalar(&a.kind))
            .map(|a| a.name.as_str()),
    );
    all.extend(
        attrs
            .iter()
            .filter(|a| shared(&a.kind, a.localized == Some(true)))
            .map(|a| a.name.as_str()),
    );
    if component {
        all.extend(
            attrs
                .iter()
                .filter(|a| matches!(a.kind, AttributeKind::Relation(_)))
                .map(|a| a.name.as_str()),
        );
    }
    let once: Vec<&str> = all
        .iter()
        .copied()
        .filter(|n| all.iter().filter(|m| *m == n).count() == 1)
        .collect();
    let mut out: Vec<String> = once.iter().map(|n| n.to_string()).collect();
    for name in &once {
        let Some(a) = schema.attribute(name) else {
            continue;
        };
        let components = match &a.kind {
            AttributeKind::Component(c) => vec![c.component],
            AttributeKind::DynamicZone(z) => z.components.clone(),
            _ => continue,
        };
        for c in components {
            let nested = copy_populate(model, model.schema(c), true);
            out.extend(nested.into_iter().map(|p| format!("{name}.{p}")));
        }
    }
    out
}

/// One level of a populate list as the database layer takes it (`processPopulate`):
/// each attribute where it first appears, with the paths under it. A path under an
/// attribute is put before those already there, so they come in reverse order.
pub fn populate_levels(paths: &[String]) -> Vec<(String, Vec<String>)> {
    let mut levels: Vec<(String, Vec<String>)> = Vec::new();
    for p in paths {
        let (root, rest) = match p.split_once('.') {
            Some((root, rest)) => (root, Some(rest)),
            None => (p.as_str(), None),
        };
        let at = match levels.iter().position(|(r, _)| r == root) {
            Some(at) => at,
            None => {
                levels.push((root.to_string(), Vec::new()));
                levels.len() - 1
            }
        };
        if let Some(rest) = rest {
            levels[at].1.insert(0, rest.to_string());
        }
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::populate_levels;

    fn paths(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn paths_under_an_attribute_come_in_reverse_and_twice_reversed_below() {
        let levels = populate_levels(&paths(&[
            "cover",
            "link",
            "link.article",
            "link.articles",
            "steps",
            "steps.detail",
            "steps.detail.x",
            "steps.detail.y",
        ]));
        let roots: Vec<&str> = levels.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(roots, ["cover", "link", "steps"]);
        assert_eq!(levels[1].1, paths(&["articles", "article"]));
        assert_eq!(levels[2].1, paths(&["detail.y", "detail.x", "detail"]));
        let below = populate_levels(&levels[2].1);
        assert_eq!(below.len(), 1);
        assert_eq!(below[0].1, paths(&["x", "y"]));
    }
}
