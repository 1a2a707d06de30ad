//! The GraphQL schema built from the model equals Strapi 5.54's: strata's answer to
//! graphql-js's full introspection query for the blog model is, byte for byte, the one
//! recorded from the oracle (`tests/fixtures/blog/graphql/introspection.json`), and the
//! same for Strapi's LaunchPad model: the model's types and graphql-js's own (the
//! introspection types, the specification's scalars, the directives), in graphql-js's
//! order. `strata generate --lang graphql` prints the same SDL; other content models
//! build valid schemas.

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

fn report(differences: &[&String]) -> String {
    let shown: Vec<&str> = differences.iter().take(SHOWN).map(|s| s.as_str()).collect();
    format!(
        "{} differences (first {}):\n{}",
        differences.len(),
        shown.len(),
        shown.join("\n")
    )
}

/// strata's answer to the full introspection query for the model in `schemas` is the
/// text Strapi answered, recorded in `recorded/introspection.json` (pretty-printed as
/// received); a failure lists the differences path by path (named lists compared by
/// name), or says that only the order differs.
fn introspection_is_strapis(schemas: &str, recorded: &str) {
    let ours = graphql::introspection_json(&model(schemas)).unwrap() + "\n";
    let text = std::fs::read_to_string(format!("{recorded}/introspection.json")).unwrap();
    if ours == text {
        return;
    }
    let expected: Value = serde_json::from_str(&text).unwrap();
    let actual: Value = serde_json::from_str(&ours).unwrap();
    let mut differences = Vec::new();
    diff("$", &expected, &actual, &mut differences);
    let differences: Vec<&String> = differences.iter().collect();
    assert!(
        !differences.is_empty(),
        "{schemas}: the same introspection in another order (or other JSON text)"
    );
    panic!(
        "{schemas}: from Strapi's introspection: {}",
        report(&differences)
    );
}

/// Every type, field, argument, input field, enum value, union member, default and
/// description, the model's and graphql-js's own, is Strapi's, in Strapi's order.
#[test]
fn the_blog_schema_equals_strapis() {
    introspection_is_strapis("tests/fixtures/blog/schemas", "tests/fixtures/blog/graphql");
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
        graphql::schema(&model).unwrap_or_else(|e| panic!("{folder}: {e}"));
        let introspection = graphql::introspection(&model).unwrap();
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
    introspection_is_strapis(
        "tests/fixtures/launchpad",
        "tests/fixtures/launchpad/graphql",
    );
}
