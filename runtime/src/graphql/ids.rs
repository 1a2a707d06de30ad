//! graphql-js's input coercion of `ID` values: an `ID` given as an integer (a literal
//! `6`, or `6` in the variables) reaches the resolver as its text, `"6"`. async-graphql
//! hands the value on as it was given, so a mutation's arguments are coerced here before
//! they become the write's data. What Strapi then does with the text matters: its
//! entity validator tells `6` and `"6"` apart (`write/relations_store.rs`), so a file
//! named by an `ID` argument and again by a number inside a zone item's JSON is one
//! relation that "does not exist".
//!
//! Where the `ID`s can be is read once from the schema's input types ([`IdPlans::new`]);
//! the walk then follows the value given, which is finite, so recursive input types (a
//! filter's `and`) need no limit.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::ir::{InputDef, Kind, Registry, Ty};

/// Where a value's `ID`s can be.
#[derive(Debug, Clone, PartialEq)]
enum IdPlan {
    /// An `ID`.
    Id,
    /// A list of (or one value coerced to a list of) the inner plan.
    List(Box<IdPlan>),
    /// An input object of this type.
    Input(String),
}

/// The `ID` places of every input type of a schema.
#[derive(Debug, Default)]
pub struct IdPlans {
    /// Per input type, its fields that are, or may hold, an `ID`.
    inputs: HashMap<String, Vec<(String, IdPlan)>>,
}

impl IdPlans {
    /// The plans of `reg`'s input types.
    pub fn new(reg: &Registry) -> Self {
        let inputs = reg
            .types
            .values()
            .filter_map(|t| match &t.kind {
                Kind::Input(defs) => Some((t.name.clone(), fields(reg, defs))),
                _ => None,
            })
            .collect();
        IdPlans { inputs }
    }

    /// Where the `ID`s of a field's arguments `args` can be, read once when the schema is
    /// built ([`IdPlans::coerce_arguments`] follows it per request).
    pub fn of_arguments(&self, args: &[InputDef]) -> ArgumentPlans {
        let is_input = |name: &str| self.inputs.contains_key(name);
        ArgumentPlans(fields_of(args, |ty| plan(ty, &is_input)))
    }

    /// Replaces each integer given where the arguments planned in `args` take an `ID` by
    /// its decimal text, in the arguments' values `given`.
    pub fn coerce_arguments(&self, args: &ArgumentPlans, given: &mut Map<String, Value>) {
        for (name, plan) in &args.0 {
            if let Some(value) = given.get_mut(name) {
                self.coerce(plan, value);
            }
        }
    }

    fn coerce(&self, plan: &IdPlan, value: &mut Value) {
        match (plan, value) {
            (IdPlan::Id, value @ Value::Number(_)) => {
                let text = value.to_string();
                *value = Value::String(text);
            }
            (IdPlan::List(inner), Value::Array(items)) => {
                items.iter_mut().for_each(|item| self.coerce(inner, item));
            }
            (IdPlan::List(inner), value) => self.coerce(inner, value),
            (IdPlan::Input(name), Value::Object(object)) => {
                for (field, plan) in self.inputs.get(name).into_iter().flatten() {
                    if let Some(value) = object.get_mut(field) {
                        self.coerce(plan, value);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The arguments of one field that are, or may hold, an `ID` ([`IdPlans::of_arguments`]).
#[derive(Debug, Default)]
pub struct ArgumentPlans(Vec<(String, IdPlan)>);

/// The fields of an input type that are, or may hold, an `ID`.
fn fields(reg: &Registry, defs: &[InputDef]) -> Vec<(String, IdPlan)> {
    let is_input =
        |name: &str| matches!(reg.types.get(name).map(|t| &t.kind), Some(Kind::Input(_)));
    fields_of(defs, |ty| plan(ty, &is_input))
}

fn fields_of(defs: &[InputDef], plan: impl Fn(&Ty) -> Option<IdPlan>) -> Vec<(String, IdPlan)> {
    defs.iter()
        .filter_map(|d| Some((d.name.clone(), plan(&d.ty)?)))
        .collect()
}

/// The plan of a value of type `ty`, or `None` when it cannot hold an `ID`.
fn plan(ty: &Ty, is_input: &dyn Fn(&str) -> bool) -> Option<IdPlan> {
    match ty {
        Ty::NonNull(inner) => plan(inner, is_input),
        Ty::List(inner) => Some(IdPlan::List(Box::new(plan(inner, is_input)?))),
        Ty::Named(name) if name == "ID" => Some(IdPlan::Id),
        Ty::Named(name) => is_input(name).then(|| IdPlan::Input(name.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn registry() -> Registry {
        let mut reg = Registry::default();
        let input = |name: &str, ty: Ty| InputDef::new(name, ty);
        reg.add(
            "SeoInput",
            None,
            Kind::Input(vec![
                input("id", Ty::named("ID")),
                input("title", Ty::named("String")),
            ]),
        );
        reg.add(
            "ArticleInput",
            None,
            Kind::Input(vec![
                input("cover", Ty::named("ID")),
                input("gallery", Ty::list("ID")),
                input("seo", Ty::named("SeoInput")),
                input("blocks", Ty::list("JSON")),
                input("and", Ty::list("ArticleInput")),
            ]),
        );
        reg
    }

    #[test]
    fn integers_given_as_ids_become_their_text_and_nothing_else_changes() {
        let plans = IdPlans::new(&registry());
        let args = [InputDef::new("data", Ty::nn("ArticleInput"))];
        let mut given = json!({"data": {
            "cover": 6, "gallery": [3, "4"], "seo": {"id": 2, "title": "t"},
            "blocks": [{"file": 6}], "and": [{"cover": 1, "and": [{"gallery": 5}]}]
        }});
        plans.coerce_arguments(&plans.of_arguments(&args), given.as_object_mut().unwrap());
        assert_eq!(
            given,
            json!({"data": {
                "cover": "6", "gallery": ["3", "4"], "seo": {"id": "2", "title": "t"},
                "blocks": [{"file": 6}], "and": [{"cover": "1", "and": [{"gallery": "5"}]}]
            }})
        );
    }

    #[test]
    fn an_id_argument_given_as_an_integer_is_its_text() {
        let plans = IdPlans::new(&registry());
        let args = [InputDef::new("documentId", Ty::nn("ID"))];
        let mut given = json!({"documentId": 7}).as_object().cloned().unwrap();
        plans.coerce_arguments(&plans.of_arguments(&args), &mut given);
        assert_eq!(given, *json!({"documentId": "7"}).as_object().unwrap());
    }
}
