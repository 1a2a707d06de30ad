//! graphql-js's input coercion of `ID` and `Long` values, which async-graphql hands on
//! as they were given, so a field's arguments are coerced here before they are read or
//! become a write's data:
//! - an `ID` given as an integer (a literal `6`, or `6` in the variables) reaches the
//!   resolver as its text, `"6"`;
//! - a `Long` is what `GraphQLBigInt` parses: `BigInt(String(value))`, so a variable's
//!   `[7]` or `7.0` is the integer 7 (what it refuses was refused by validation:
//!   [`super::scalars`]).
//!
//! What Strapi then does with an `ID`'s text matters: its entity validator tells `6` and
//! `"6"` apart (`write/relations_store.rs`), so a file named by an `ID` argument and again
//! by a number inside a zone item's JSON is one relation that "does not exist".
//!
//! And one thing Strapi does to `DateTime`s that is not coercion but comes of it:
//! graphql-scalars' `DateTime` hands on a JavaScript `Date`, and Strapi's filter traversal
//! drops every item of a list that is an empty object, which a `Date` is to lodash's
//! `isEmpty`. So a list of `DateTime`s (`in`, `notIn`, `between` of a date-time field's
//! filter) reaches the query empty, and the condition is no condition (the plugin's
//! GraphQL answers every row to `publishedAt: {between: […]}`; a `DateTime` alone, as
//! `eq` takes it, is kept). Here such a list is emptied.
//!
//! Where the `ID`s, `Long`s and `DateTime`s can be is read once from the schema's input types
//! ([`Coercions::new`]); the walk then follows the value given, which is finite, so
//! recursive input types (a filter's `and`) need no limit.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::ir::{InputDef, Kind, Registry, Ty};

/// Where a value's `ID`s and `Long`s can be.
#[derive(Debug, Clone, PartialEq)]
enum Coercion {
    /// An `ID`.
    Id,
    /// A `Long`.
    Long,
    /// A `DateTime`: kept alone, dropped from a list (see the module's doc).
    DateTime,
    /// A list of (or one value coerced to a list of) the inner plan.
    List(Box<Coercion>),
    /// An input object of this type.
    Input(String),
}

/// The `ID` and `Long` places of every input type of a schema.
#[derive(Debug, Default)]
pub struct Coercions {
    /// Per input type, its fields that are, or may hold, an `ID` or a `Long`.
    inputs: HashMap<String, Vec<(String, Coercion)>>,
    /// Per field of the `Query` type, the plans of its arguments (the fast path of
    /// `project.rs` coerces a plain query's arguments with them).
    queries: HashMap<String, ArgumentPlans>,
}

impl Coercions {
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
        let mut coercions = Coercions {
            inputs,
            queries: HashMap::new(),
        };
        if let Some(Kind::Object(fields)) = reg.types.get("Query").map(|t| &t.kind) {
            coercions.queries = fields
                .iter()
                .map(|f| (f.name.clone(), coercions.of_arguments(&f.args)))
                .collect();
        }
        coercions
    }

    /// The argument plans of the `Query` field `name`, made when the schema was built.
    pub fn of_query_field(&self, name: &str) -> Option<&ArgumentPlans> {
        self.queries.get(name)
    }

    /// Where the `ID`s and `Long`s of a field's arguments `args` can be, read once when the schema is
    /// built ([`Coercions::coerce_arguments`] follows it per request).
    pub fn of_arguments(&self, args: &[InputDef]) -> ArgumentPlans {
        let is_input = |name: &str| self.inputs.contains_key(name);
        ArgumentPlans(fields_of(args, |ty| plan(ty, &is_input)))
    }

    /// Replaces each integer given where the arguments planned in `args` take an `ID` by
    /// its decimal text, and each `Long` by the integer `BigInt` reads, in the arguments'
    /// values `given`.
    pub fn coerce_arguments(&self, args: &ArgumentPlans, given: &mut Map<String, Value>) {
        for (name, plan) in &args.0 {
            if let Some(value) = given.get_mut(name) {
                self.coerce(plan, value);
            }
        }
    }

    /// Coerces a `filters` argument `value` of input type `input` (`TagFiltersInput`), as
    /// [`Coercions::coerce_arguments`] coerces a root field's arguments.
    pub fn coerce_filters(&self, input: &str, value: &mut Value) {
        if let Value::Object(object) = value {
            self.coerce_input(input, object);
        }
    }

    /// Coerces the fields of an `object` given for the input type `name`.
    fn coerce_input(&self, name: &str, object: &mut Map<String, Value>) {
        for (field, plan) in self.inputs.get(name).into_iter().flatten() {
            if let Some(value) = object.get_mut(field) {
                self.coerce(plan, value);
            }
        }
    }

    fn coerce(&self, plan: &Coercion, value: &mut Value) {
        match (plan, value) {
            // Strapi's filter traversal drops each `Date` from a list; null stays null.
            (Coercion::List(inner), value) if **inner == Coercion::DateTime && !value.is_null() => {
                *value = Value::Array(Vec::new());
            }
            (Coercion::Id, value @ Value::Number(_)) => {
                let text = value.to_string();
                *value = Value::String(text);
            }
            // Already the integer's own number or text: left as given.
            (Coercion::Long, Value::Number(n)) if n.is_i64() || n.is_u64() => {}
            (Coercion::Long, Value::String(_)) => {}
            (Coercion::Long, value) => {
                if let Some(text) = super::scalars::big_int_text(value) {
                    *value = text.parse::<i64>().map_or(Value::String(text), Value::from);
                }
            }
            (Coercion::List(inner), Value::Array(items)) => {
                items.iter_mut().for_each(|item| self.coerce(inner, item));
            }
            (Coercion::List(inner), value) => self.coerce(inner, value),
            (Coercion::Input(name), Value::Object(object)) => self.coerce_input(name, object),
            _ => {}
        }
    }
}

/// The arguments of one field that are, or may hold, an `ID` or a `Long` ([`Coercions::of_arguments`]).
#[derive(Debug, Default)]
pub struct ArgumentPlans(Vec<(String, Coercion)>);

/// The fields of an input type that are, or may hold, an `ID` or a `Long`.
fn fields(reg: &Registry, defs: &[InputDef]) -> Vec<(String, Coercion)> {
    let is_input =
        |name: &str| matches!(reg.types.get(name).map(|t| &t.kind), Some(Kind::Input(_)));
    fields_of(defs, |ty| plan(ty, &is_input))
}

fn fields_of(defs: &[InputDef], plan: impl Fn(&Ty) -> Option<Coercion>) -> Vec<(String, Coercion)> {
    defs.iter()
        .filter_map(|d| Some((d.name.clone(), plan(&d.ty)?)))
        .collect()
}

/// The plan of a value of type `ty`, or `None` when it can hold neither.
fn plan(ty: &Ty, is_input: &dyn Fn(&str) -> bool) -> Option<Coercion> {
    match ty {
        Ty::NonNull(inner) => plan(inner, is_input),
        Ty::List(inner) => Some(Coercion::List(Box::new(plan(inner, is_input)?))),
        Ty::Named(name) if name == "ID" => Some(Coercion::Id),
        Ty::Named(name) if name == "Long" => Some(Coercion::Long),
        Ty::Named(name) if name == "DateTime" => Some(Coercion::DateTime),
        Ty::Named(name) => is_input(name).then(|| Coercion::Input(name.clone())),
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
                input("stock", Ty::named("Long")),
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
        let plans = Coercions::new(&registry());
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
    fn a_list_of_date_times_is_emptied_and_a_date_time_alone_kept() {
        let mut reg = registry();
        reg.add(
            "DateTimeFilterInput",
            None,
            Kind::Input(vec![
                InputDef::new("eq", Ty::named("DateTime")),
                InputDef::new("in", Ty::list("DateTime")),
                InputDef::new("between", Ty::list("DateTime")),
                InputDef::new("notIn", Ty::list("DateTime")),
            ]),
        );
        reg.add(
            "ArticleFiltersInput",
            None,
            Kind::Input(vec![
                InputDef::new("eventAt", Ty::named("DateTimeFilterInput")),
                InputDef::new("title", Ty::named("StringFilterInput")),
                InputDef::new("or", Ty::list("ArticleFiltersInput")),
            ]),
        );
        let plans = Coercions::new(&reg);
        let at = "2024-02-29T12:00:00.000Z";
        let mut filters = json!({
            "eventAt": {"eq": at, "in": [at, at], "between": at, "notIn": null},
            "title": {"in": [at]},
            "or": [{"eventAt": {"notIn": [at]}}]
        });
        plans.coerce_filters("ArticleFiltersInput", &mut filters);
        assert_eq!(
            filters,
            json!({
                "eventAt": {"eq": at, "in": [], "between": [], "notIn": null},
                "title": {"in": [at]},
                "or": [{"eventAt": {"notIn": []}}]
            })
        );
    }

    #[test]
    fn a_long_is_the_integer_big_int_reads() {
        let plans = Coercions::new(&registry());
        let args = [InputDef::new("data", Ty::nn("ArticleInput"))];
        for (given, coerced) in [
            (json!([7]), json!(7)),
            (json!(7.0), json!(7)),
            (json!("12"), json!("12")),
            (json!(9007199254740993_u64), json!(9007199254740993_u64)),
            (
                json!(["123456789012345678901234"]),
                json!("123456789012345678901234"),
            ),
        ] {
            let mut data = json!({"data": {"stock": given}});
            plans.coerce_arguments(&plans.of_arguments(&args), data.as_object_mut().unwrap());
            assert_eq!(data, json!({"data": {"stock": coerced}}));
        }
    }

    #[test]
    fn an_id_argument_given_as_an_integer_is_its_text() {
        let plans = Coercions::new(&registry());
        let args = [InputDef::new("documentId", Ty::nn("ID"))];
        let mut given = json!({"documentId": 7}).as_object().cloned().unwrap();
        plans.coerce_arguments(&plans.of_arguments(&args), &mut given);
        assert_eq!(given, *json!({"documentId": "7"}).as_object().unwrap());
    }
}
