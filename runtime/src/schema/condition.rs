//! Conditional fields: an attribute's `conditions.visible`, the JSON Logic rule that
//! Strapi's Content-Type Builder writes since 5.16 (`{"==": [{"var": "kind"}, "digital"]}`),
//! parsed and checked when the model loads.
//!
//! Strapi's entity validator evaluates the rule with json-logic-js 2.0 on the data it
//! validates and checks nothing of an attribute the rule hides; `write::condition`
//! evaluates it the same way. This module only knows the rule's shape: which operations
//! it names, with which arguments. A rule naming an operation json-logic-js does not know
//! is refused here, when the model loads, where json-logic-js throws (and Strapi answers
//! 500) only once a write reaches it.

use serde_json::Value;

/// The JSON Logic rule of an attribute's `conditions.visible`: the attribute is checked
/// only where it evaluates truthy.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The rule.
    pub rule: Rule,
}

/// A JSON Logic rule, as json-logic-js reads it (`jsonLogic.apply`).
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// A value that is no operation, handed back as it is: a primitive, or an object
    /// whose number of keys is not one.
    Value(Value),
    /// A list, whose items are evaluated one by one.
    List(Vec<Rule>),
    /// An operation and its arguments (a rule's single argument that is not a list is a
    /// list of one).
    Op(Op, Vec<Rule>),
}

/// The operations of json-logic-js 2.0.5 (`log` hands its argument back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `==`, JavaScript's loose equality.
    Eq,
    /// `===`.
    StrictEq,
    /// `!=`.
    Ne,
    /// `!==`.
    StrictNe,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `<`, also between two bounds (three arguments).
    Lt,
    /// `<=`, also between two bounds.
    Le,
    /// `!!`, JSON Logic's truthiness (an empty list is false).
    Truthy,
    /// `!`.
    Not,
    /// `%`.
    Rem,
    /// `log`.
    Log,
    /// `in`: a value in a list, or text in text.
    In,
    /// `cat`: texts joined.
    Cat,
    /// `substr`.
    Substr,
    /// `+`.
    Add,
    /// `*`.
    Mul,
    /// `-`.
    Sub,
    /// `/`.
    Div,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `merge`: lists flattened one level.
    Merge,
    /// `var`: a value of the data, by dotted path, with an optional default.
    Var,
    /// `missing`: the keys whose value is null or empty.
    Missing,
    /// `missing_some`.
    MissingSome,
    /// `if` (also spelled `?:`).
    If,
    /// `and`: the first falsy value, or the last.
    And,
    /// `or`: the first truthy value, or the last.
    Or,
    /// `filter`.
    Filter,
    /// `map`.
    Map,
    /// `reduce`.
    Reduce,
    /// `all`.
    All,
    /// `none`.
    NoneOf,
    /// `some`.
    SomeOf,
}

impl Op {
    /// Every operation with its name.
    const ALL: [(&'static str, Op); 35] = [
        ("==", Op::Eq),
        ("===", Op::StrictEq),
        ("!=", Op::Ne),
        ("!==", Op::StrictNe),
        (">", Op::Gt),
        (">=", Op::Ge),
        ("<", Op::Lt),
        ("<=", Op::Le),
        ("!!", Op::Truthy),
        ("!", Op::Not),
        ("%", Op::Rem),
        ("log", Op::Log),
        ("in", Op::In),
        ("cat", Op::Cat),
        ("substr", Op::Substr),
        ("+", Op::Add),
        ("*", Op::Mul),
        ("-", Op::Sub),
        ("/", Op::Div),
        ("min", Op::Min),
        ("max", Op::Max),
        ("merge", Op::Merge),
        ("var", Op::Var),
        ("missing", Op::Missing),
        ("missing_some", Op::MissingSome),
        ("if", Op::If),
        ("?:", Op::If),
        ("and", Op::And),
        ("or", Op::Or),
        ("filter", Op::Filter),
        ("map", Op::Map),
        ("reduce", Op::Reduce),
        ("all", Op::All),
        ("none", Op::NoneOf),
        ("some", Op::SomeOf),
    ];

    /// The operation named `name`.
    pub fn named(name: &str) -> Option<Op> {
        Op::ALL.iter().find(|(n, _)| *n == name).map(|(_, op)| *op)
    }

    /// The names of every operation, for an error message.
    pub fn names() -> String {
        let names: Vec<&str> = Op::ALL.iter().map(|(n, _)| *n).collect();
        names.join(", ")
    }
}

/// Why a `conditions` value cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConditionError {
    /// An operation json-logic-js does not know.
    #[error(
        "unknown JSON Logic operation `{0}` (json-logic-js, which Strapi evaluates conditions with, knows {ops})",
        ops = Op::names()
    )]
    UnknownOperation(String),
    /// `*` without an argument (json-logic-js throws on it).
    #[error("`*` needs at least one argument")]
    EmptyProduct,
    /// `conditions` is not an object.
    #[error("`conditions` must be an object with a `visible` rule")]
    NotAnObject,
}

impl Condition {
    /// The condition of an attribute's `conditions` value: `None` when it has no
    /// `visible` rule, or one that is false in JavaScript (Strapi then checks the
    /// attribute as usual).
    pub fn parse(conditions: &Value) -> Result<Option<Condition>, ConditionError> {
        let Value::Object(o) = conditions else {
            return Err(ConditionError::NotAnObject);
        };
        match o.get("visible") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::Number(n)) if n.as_f64() == Some(0.0) => Ok(None),
            Some(rule) => Ok(Some(Condition {
                rule: Rule::parse(rule)?,
            })),
        }
    }
}

impl Rule {
    /// A rule as json-logic-js reads it: a list is a list of rules, an object of one key
    /// an operation, anything else a value.
    pub fn parse(v: &Value) -> Result<Rule, ConditionError> {
        match v {
            Value::Array(items) => Ok(Rule::List(
                items.iter().map(Rule::parse).collect::<Result<_, _>>()?,
            )),
            Value::Object(o) if o.len() == 1 => {
                let Some((name, args)) = o.iter().next() else {
                    return Ok(Rule::Value(v.clone()));
                };
                let op = Op::named(name)
                    .ok_or_else(|| ConditionError::UnknownOperation(name.clone()))?;
                let args = match args {
                    Value::Array(items) => items.iter().map(Rule::parse).collect(),
                    one => Rule::parse(one).map(|r| vec![r]),
                }?;
                if op == Op::Mul && args.is_empty() {
                    return Err(ConditionError::EmptyProduct);
                }
                Ok(Rule::Op(op, args))
            }
            other => Ok(Rule::Value(other.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_parse_as_json_logic_reads_them() {
        let c = Condition::parse(&json!({"visible": {"==": [{"var": "kind"}, "digital"]}}))
            .unwrap()
            .unwrap();
        assert_eq!(
            c.rule,
            Rule::Op(
                Op::Eq,
                vec![
                    Rule::Op(Op::Var, vec![Rule::Value(json!("kind"))]),
                    Rule::Value(json!("digital"))
                ]
            )
        );
        // An object of two keys is a value; a list's items are rules.
        assert_eq!(
            Rule::parse(&json!([{"a": 1, "b": 2}])).unwrap(),
            Rule::List(vec![Rule::Value(json!({"a": 1, "b": 2}))])
        );
    }

    #[test]
    fn a_missing_or_false_rule_is_no_condition() {
        for c in [
            json!({}),
            json!({"visible": null}),
            json!({"visible": false}),
        ] {
            assert_eq!(Condition::parse(&c).unwrap(), None, "{c}");
        }
        assert_eq!(
            Condition::parse(&json!("x")),
            Err(ConditionError::NotAnObject)
        );
    }

    #[test]
    fn unknown_operations_are_refused_where_the_model_loads() {
        let e = Condition::parse(&json!({"visible": {"and": [{"matches": ["a", "b"]}]}}));
        assert_eq!(e, Err(ConditionError::UnknownOperation("matches".into())));
        assert!(e.unwrap_err().to_string().contains("missing_some"));
        assert_eq!(
            Condition::parse(&json!({"visible": {"*": []}})),
            Err(ConditionError::EmptyProduct)
        );
    }
}
