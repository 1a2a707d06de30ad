//! The GraphQL schema built from the model equals Strapi 5.54's: the introspection of
//! strata's schema for the blog model against the one recorded from the oracle
//! (`tests/fixtures/blog/graphql/`), compared as data with every list that GraphQL does
//! not order sorted by name, and the same for Strapi's LaunchPad model; `strata generate
//! --lang graphql` prints the same SDL; other content models build valid schemas.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use strata::graphql;

/// How many differences a failure prints.
const SHOWN: usize = 40;

fn model(folder: &str) -> strata::schema::Model {
    strata::schema::load(Path::new(folder)).unwrap()
}

/// Sorts, in place, every list whose order GraphQL does not define: types, fields,
/// arguments, input fields, enum values, possible types, interfaces and directives.
fn normalize(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                normalize(child);
                let sortable = matches!(
                    key.as_str(),
                    "types"
                        | "fields"
                        | "args"
                        | "inputFields"
                        | "enumValues"
                        | "possibleTypes"
                        | "interfaces"
                        | "directives"
                        | "locations"
                );
                if let (true, Value::Array(items)) = (sortable, child) {
                    items.sort_by_key(sort_key);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize),
        _ => {}
    }
}

fn sort_key(item: &Value) -> String {
    match item {
        Value::String(s) => s.clone(),
        other => other["name"].as_str().unwrap_or_default().to_owned(),
    }
}

/// Every difference between two JSON values, as `path: expected … got …`.
fn diff(path: &str, expected: &Value, actual: &Value, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, ev) in e {
                let p = format!("{path}.{key}");
                match a.get(key) {
                    Some(av) => diff(&p, ev, av, out),
                    None => out.push(format!("{p}: missing (Strapi: {})", short(ev))),
                }
            }
            for key in a.keys().filter(|k| !e.contains_key(*k)) {
                out.push(format!("{path}.{key}: extra key"));
            }
        }
        (Value::Array(e), Value::Array(a)) if named(e) && named(a) => diff_named(path, e, a, out),
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                diff(&format!("{path}[{i}]"), ev, av, out);
            }
        }
        _ if expected != actual => out.push(format!(
            "{path}: Strapi {} ≠ strata {}",
            short(expected),
            short(actual)
        )),
        _ => {}
    }
}

fn named(items: &[Value]) -> bool {
    !items.is_empty()
        && items
            .iter()
            .all(|i| i.get("name").is_some_and(Value::is_string))
}

/// Lists of named things are compared by name, so one missing type is one difference.
fn diff_named(path: &str, expected: &[Value], actual: &[Value], out: &mut Vec<String>) {
    let find = |items: &[Value], name: &str| items.iter().find(|i| i["name"] == name).cloned();
    for e in expected {
        let name = e["name"].as_str().unwrap_or_default();
        match find(actual, name) {
            Some(a) => diff(&format!("{path}[{name}]"), e, &a, out),
            None => out.push(format!("{path}[{name}]: missing in strata")),
        }
    }
    for a in actual {
        let name = a["name"].as_str().unwrap_or_default();
        if find(expected, name).is_none() {
            out.push(format!("{path}[{name}]: extra in strata"));
        }
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 160 {
        format!("{}…", &text[..160])
    } else {
        text
    }
}

/// The differences between strata's introspection of the blog schema and Strapi's, as
/// `path: what differs`.
fn blog_differences() -> Vec<String> {
    differences("tests/fixtures/blog/schemas", "tests/fixtures/blog/graphql")
}

/// The differences between strata's introspection of the model in `schemas` and
/// Strapi's recorded in `recorded/introspection.json`.
fn differences(schemas: &str, recorded: &str) -> Vec<String> {
    let schema = graphql::schema(&model(schemas)).unwrap();
    let mut actual = graphql::introspection(&schema).unwrap();
    let text = std::fs::read_to_string(format!("{recorded}/introspection.json")).unwrap();
    let mut expected: Value = serde_json::from_str(&text).unwrap();
    normalize(&mut actual);
    normalize(&mut expected);
    let mut differences = Vec::new();
    diff("$", &expected, &actual, &mut differences);
    differences
}

/// Whether a difference is in what the GraphQL library defines rather than the model:
/// the introspection types (`__Schema`…), the five scalars of the specification, the
/// built-in directives and the schema's own description.
fn in_the_library(difference: &str) -> bool {
    const SPEC_SCALARS: [&str; 5] = ["String", "Int", "Float", "Boolean", "ID"];
    let path = difference.split(':').next().unwrap_or_default();
    path == "$.data.__schema.description"
        || path.starts_with("$.data.__schema.directives")
        || path.starts_with("$.data.__schema.types[__")
        || SPEC_SCALARS
            .iter()
            .any(|s| path.starts_with(&format!("$.data.__schema.types[{s}]")))
}

fn report(differences: &[&String]) -> String {
    let shown: Vec<&str> = differences.iter().take(SHOWN).map(|s| s.as_str()).collect();
    format!(
        "{} differences (first {}):\n{}",
        differences.len(),
        shown.len(),
        shown.join("\n")
    )
}

/// Every type, field, argument, input field, enum value, union member, default and
/// description that the model and Strapi's plugins give is Strapi's.
#[test]
fn the_blog_schema_equals_strapis() {
    let differences = blog_differences();
    let model: Vec<&String> = differences.iter().filter(|d| !in_the_library(d)).collect();
    assert!(
        model.is_empty(),
        "from Strapi's introspection: {}",
        report(&model)
    );
}

/// What async-graphql itself defines differs from graphql-js in reviewed ways, listed
/// path by path in `deviations.json` (wording of descriptions, `includeDeprecated:
/// Boolean!`, directive deprecation); the list must stay exact.
#[test]
fn the_introspection_system_differs_only_as_recorded() {
    let text = std::fs::read_to_string("tests/fixtures/blog/graphql/deviations.json").unwrap();
    let recorded: Value = serde_json::from_str(&text).unwrap();
    let recorded: Vec<String> = recorded["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect();
    let fixtures = [
        ("tests/fixtures/blog/schemas", "tests/fixtures/blog/graphql"),
        (
            "tests/fixtures/launchpad",
            "tests/fixtures/launchpad/graphql",
        ),
    ];
    for (schemas, fixture) in fixtures {
        let library: Vec<String> = differences(schemas, fixture)
            .iter()
            .filter(|d| in_the_library(d))
            .map(|d| d.split(": ").next().unwrap_or_default().to_owned())
            .collect();
        let new: Vec<&String> = library.iter().filter(|p| !recorded.contains(p)).collect();
        let gone: Vec<&String> = recorded.iter().filter(|p| !library.contains(p)).collect();
        assert!(
            new.is_empty() && gone.is_empty(),
            "{schemas}: {} library differences; not recorded: {new:#?}; recorded but gone: \
             {gone:#?}; once reviewed, deviations.json's `paths` are:\n{}",
            library.len(),
            serde_json::to_string_pretty(&library).unwrap_or_default()
        );
    }
}

#[test]
fn generate_prints_the_schemas_sdl() {
    let out = std::env::temp_dir().join(format!("strata-graphql-{}.graphql", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "generate",
            "--lang",
            "graphql",
            "--schemas",
            "tests/fixtures/blog/schemas",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let written = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).ok();
    assert_eq!(written, graphql::sdl(&model("tests/fixtures/blog/schemas")));
    let parsed = async_graphql::parser::parse_schema(&written).unwrap();
    assert!(
        parsed.definitions.len() > 100,
        "{} definitions",
        parsed.definitions.len()
    );
}

/// The top-level definitions of an SDL text, each as printed, sorted.
fn blocks(sdl: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    let mut previous_blank = true;
    for line in sdl.lines() {
        let starts = previous_blank && !line.is_empty() && !line.starts_with([' ', '\t']);
        match blocks.last_mut() {
            Some(block) if !starts => {
                block.push('\n');
                block.push_str(line);
            }
            _ => blocks.push(line.to_owned()),
        }
        previous_blank = line.is_empty();
    }
    let mut blocks: Vec<String> = blocks
        .into_iter()
        .map(|b| b.trim_end().to_owned())
        .collect();
    blocks.sort();
    blocks
}

/// The SDL is, byte for byte, the text graphql-js prints for Strapi's schema (compared
/// type by type first, for a readable failure), for the blog and for LaunchPad.
#[test]
fn the_sdl_is_strapis_text() {
    sdl_is_strapis_text("tests/fixtures/blog/schemas", "tests/fixtures/blog/graphql");
    sdl_is_strapis_text(
        "tests/fixtures/launchpad",
        "tests/fixtures/launchpad/graphql",
    );
}

fn sdl_is_strapis_text(schemas: &str, recorded: &str) {
    let text = graphql::sdl(&model(schemas));
    let strapi_text = std::fs::read_to_string(format!("{recorded}/schema.graphql")).unwrap();
    let ours = blocks(&text);
    let strapi = blocks(&strapi_text);
    let missing: Vec<&String> = strapi.iter().filter(|b| !ours.contains(b)).collect();
    let extra: Vec<&String> = ours.iter().filter(|b| !strapi.contains(b)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{schemas}: Strapi's blocks not in strata's SDL: {}\nstrata's blocks not in Strapi's: {}",
        report(&missing),
        report(&extra)
    );
    // The blocks agree; so must their order.
    assert!(
        text == strapi_text,
        "{schemas}: the same types in another order"
    );
}

/// One line per fact of an SDL document (a type and its kind and description, a field
/// with its type, an argument or input field with its type and default, a union member,
/// an enum value), so two printers' documents compare as sets.
fn sdl_facts(sdl: &str) -> BTreeSet<String> {
    use async_graphql::parser::types::{TypeKind, TypeSystemDefinition};
    let doc = async_graphql::parser::parse_schema(sdl).unwrap();
    let mut facts = BTreeSet::new();
    for def in doc.definitions {
        let TypeSystemDefinition::Type(ty) = def else {
            continue;
        };
        let ty = ty.node;
        let name = ty.name.node.to_string();
        let description = ty.description.map(|d| d.node);
        let kind = match &ty.kind {
            TypeKind::Scalar => "scalar",
            TypeKind::Object(_) => "type",
            TypeKind::Interface(_) => "interface",
            TypeKind::Union(_) => "union",
            TypeKind::Enum(_) => "enum",
            TypeKind::InputObject(_) => "input",
        };
        facts.insert(format!("{kind} {name} {description:?}"));
        let input = |owner: &str, v: &async_graphql::parser::types::InputValueDefinition| {
            let default = v.default_value.as_ref().map(|d| d.node.to_string());
            let text = v.description.as_ref().map(|d| d.node.clone());
            format!(
                "{owner}({}: {} = {default:?} {text:?})",
                v.name.node, v.ty.node
            )
        };
        match ty.kind {
            TypeKind::Object(o) => {
                for f in o.fields {
                    let f = f.node;
                    let owner = format!("{name}.{}", f.name.node);
                    let text = f.description.map(|d| d.node);
                    facts.insert(format!("{owner}: {} {text:?}", f.ty.node));
                    facts.extend(f.arguments.iter().map(|a| input(&owner, &a.node)));
                }
            }
            TypeKind::InputObject(i) => {
                facts.extend(i.fields.iter().map(|f| input(&name, &f.node)))
            }
            TypeKind::Union(u) => {
                facts.extend(u.members.iter().map(|m| format!("{name} | {}", m.node)))
            }
            TypeKind::Enum(e) => facts.extend(
                e.values
                    .iter()
                    .map(|v| format!("{name}::{}", v.node.value.node)),
            ),
            _ => {}
        }
    }
    facts
}

/// The SDL a front end's code generator reads says what Strapi's says (graphql-js's
/// `printSchema` of the recorded introspection), fact for fact, and so does the SDL
/// async-graphql prints for the schema it serves.
#[test]
fn the_sdl_says_what_strapis_says() {
    let blog = model("tests/fixtures/blog/schemas");
    let ours = sdl_facts(&graphql::sdl(&blog));
    let library = sdl_facts(&graphql::schema(&blog).unwrap().sdl());
    assert_eq!(
        ours, library,
        "strata's SDL and async-graphql's say different things"
    );
    let strapi =
        sdl_facts(&std::fs::read_to_string("tests/fixtures/blog/graphql/schema.graphql").unwrap());
    assert!(
        strapi.len() > 1000,
        "{} facts in Strapi's SDL",
        strapi.len()
    );
    let missing: Vec<&String> = strapi.difference(&ours).collect();
    let extra: Vec<&String> = ours.difference(&strapi).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing from strata's SDL: {}\nonly in strata's SDL: {}",
        report(&missing),
        report(&extra)
    );
}

#[test]
fn other_models_build_valid_schemas() {
    for folder in [
        "tests/fixtures/edge/schemas",
        "tests/fixtures/launchpad",
        "schemas",
    ] {
        let model = model(folder);
        let schema = graphql::schema(&model).unwrap_or_else(|e| panic!("{folder}: {e}"));
        let introspection = graphql::introspection(&schema).unwrap();
        let types = introspection["data"]["__schema"]["types"]
            .as_array()
            .unwrap();
        for ty in model
            .content_types()
            .filter(|t| t.origin == strata::schema::Origin::Api)
        {
            let name = graphql::names::type_name(None, &ty.singular_name);
            assert!(
                types.iter().any(|t| t["name"] == name.as_str()),
                "{folder}: no type {name}"
            );
        }
    }
}

/// A second, real third-party model (Strapi's LaunchPad, recorded from the same Strapi
/// 5.54 serving those schemas): the rules are Strapi's, not the blog's.
#[test]
fn the_launchpad_schema_equals_strapis() {
    let differences = differences(
        "tests/fixtures/launchpad",
        "tests/fixtures/launchpad/graphql",
    );
    let model: Vec<&String> = differences.iter().filter(|d| !in_the_library(d)).collect();
    assert!(
        model.is_empty(),
        "from Strapi's introspection: {}",
        report(&model)
    );
}
