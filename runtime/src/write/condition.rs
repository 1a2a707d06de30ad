//! Conditional fields at write time: whether an attribute's `conditions.visible`
//! ([`Condition`]) shows it on the data being validated, evaluated as json-logic-js 2.0.5
//! (Strapi's) evaluates it.
//!
//! Strapi's entity validator (`createAttributeValidator`) runs
//! `jsonLogic.apply(attr.conditions.visible, data)` on the object it validates (the
//! request's `data` on a creation or an update, only the keys given; a component item;
//! the draft being published) and, when the result is false in JavaScript, checks
//! nothing of the attribute: not `required`, not its rules, not `unique`, not the items of
//! a component. `write::input` and `write::document` ask [`visible`] and skip those
//! checks; a hidden value is still stored as its type stores it.
//!
//! The evaluation follows JavaScript where json-logic-js leans on it: loose equality
//! (`"5" == 5`, `true == 1`, `null == undefined`), relational comparison (text by UTF-16
//! code units, anything else as numbers), `Number()` and `parseFloat` on text, `String()`
//! of numbers and lists, lists and objects compared by identity, JSON Logic's truthiness
//! (an empty list is false) inside the rule and JavaScript's for its result. Where
//! json-logic-js throws (`missing_some` given no list), the attribute is checked as usual.

use std::borrow::Cow;
use std::rc::Rc;

use serde_json::{Map, Value};

use crate::query::values::js_number_string;
use crate::schema::{AttrId, Attribute, AttributeKind, Condition, Op, Rule, ScalarType, Schema};
use crate::store::seam::StoredValue;

/// Whether `condition` shows its attribute on `data` (the object being validated).
/// A rule that cannot be evaluated shows it, so the attribute is checked.
pub fn visible(condition: &Condition, data: &Map<String, Value>) -> bool {
    apply(&condition.rule, &Js::Map(data)).is_none_or(|v| v.to_bool())
}

/// Whether `attr`'s condition hides it on `data`: `false` for an attribute without one.
pub fn hidden(attr: &Attribute, data: &Map<String, Value>) -> bool {
    attr.condition.as_ref().is_some_and(|c| !visible(c, data))
}

/// Whether any attribute of `schema` has a condition: only then is a stored row turned
/// into the data conditions read ([`stored_data`]).
pub fn has_conditions(schema: &Schema) -> bool {
    schema.attributes.iter().any(|a| a.condition.is_some())
}

/// The data a condition reads on a stored row (the draft a publish validates, as Strapi
/// reads it back): its scalar values by attribute name, booleans as booleans, JSON
/// parsed, numbers as numbers, the rest as text. Relations and components are not part
/// of it. Empty for a schema without conditions.
pub fn stored_data(schema: &Schema, values: &[(AttrId, StoredValue)]) -> Map<String, Value> {
    if !has_conditions(schema) {
        return Map::new();
    }
    let mut data = Map::new();
    for (id, v) in values {
        let Some(attr) = schema.attributes.get(id.index()) else {
            continue;
        };
        let boolean = matches!(attr.kind, AttributeKind::Scalar(ScalarType::Boolean));
        let json = matches!(attr.kind, AttributeKind::Scalar(ScalarType::Json));
        let value = match v {
            StoredValue::Null | StoredValue::Blob(_) => Value::Null,
            StoredValue::JsonBoolean(b) => Value::Bool(*b),
            StoredValue::Integer(i) if boolean => Value::Bool(*i != 0),
            StoredValue::Text(t) if boolean => {
                Value::Bool(matches!(t.as_str(), "1" | "t" | "true"))
            }
            StoredValue::Text(t) if json => serde_json::from_str(t).unwrap_or(Value::Null),
            StoredValue::Integer(i) | StoredValue::Timestamp(i) => Value::from(*i),
            StoredValue::Real(f) => Value::from(*f),
            StoredValue::Text(t) => Value::String(t.clone()),
        };
        data.insert(attr.name.clone(), value);
    }
    data
}

/// json-logic-js's result of `rule` on `data`, as JSON (`undefined` as `{"$undefined":
/// true}`, a number JSON cannot hold as `{"$number": "NaN"}`); `None` where it throws.
/// For tests against json-logic-js's own answers.
pub fn apply_json(rule: &Rule, data: &Value) -> Option<Value> {
    apply(rule, &Js::of(data)).map(|v| v.to_json())
}

/// A JavaScript value met while evaluating a rule. Lists and objects of the data or the
/// rule are borrowed, and compared by address (JavaScript compares them by identity);
/// those the evaluation makes are counted references.
#[derive(Debug, Clone)]
enum Js<'a> {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Str(Cow<'a, str>),
    Arr(&'a Vec<Value>),
    Map(&'a Map<String, Value>),
    /// A list the evaluation made (`merge`, `map`, `missing`, a rule's list).
    List(Rc<Vec<Js<'a>>>),
    /// `reduce`'s `{"current": …, "accumulator": …}`.
    Pair(Rc<[(&'static str, Js<'a>); 2]>),
}

/// Where json-logic-js throws.
type Eval<'a> = Option<Js<'a>>;

impl<'a> Js<'a> {
    fn of(v: &'a Value) -> Js<'a> {
        match v {
            Value::Null => Js::Null,
            Value::Bool(b) => Js::Bool(*b),
            Value::Number(n) => Js::Num(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Js::Str(Cow::Borrowed(s)),
            Value::Array(a) => Js::Arr(a),
            Value::Object(o) => Js::Map(o),
        }
    }

    fn text(s: String) -> Js<'a> {
        Js::Str(Cow::Owned(s))
    }

    fn is_nullish(&self) -> bool {
        matches!(self, Js::Undefined | Js::Null)
    }

    fn is_object(&self) -> bool {
        matches!(self, Js::Arr(_) | Js::Map(_) | Js::List(_) | Js::Pair(_))
    }

    /// The items of a list (`Array.isArray`), else `None`.
    fn items(&self) -> Option<Vec<Js<'a>>> {
        match self {
            Js::Arr(a) => Some(a.iter().map(Js::of).collect()),
            Js::List(l) => Some(l.as_ref().clone()),
            _ => None,
        }
    }

    /// JavaScript's `!!value`.
    fn to_bool(&self) -> bool {
        match self {
            Js::Undefined | Js::Null => false,
            Js::Bool(b) => *b,
            Js::Num(n) => *n != 0.0 && !n.is_nan(),
            Js::Str(s) => !s.is_empty(),
            _ => true,
        }
    }

    /// `jsonLogic.truthy`: JavaScript's, but an empty list is false.
    fn truthy(&self) -> bool {
        match self.items() {
            Some(items) => !items.is_empty(),
            None => self.to_bool(),
        }
    }

    /// JavaScript's `String(value)`.
    fn to_text(&self) -> Cow<'a, str> {
        match self {
            Js::Undefined => "undefined".into(),
            Js::Null => "null".into(),
            Js::Bool(b) => b.to_string().into(),
            Js::Num(n) => js_number_string(*n).into(),
            Js::Str(s) => s.clone(),
            Js::Arr(_) | Js::List(_) => self.join(",").into(),
            Js::Map(_) | Js::Pair(_) => "[object Object]".into(),
        }
    }

    /// `Array.prototype.join`: null and undefined items are empty.
    fn join(&self, separator: &str) -> String {
        let items = self.items().unwrap_or_default();
        let texts: Vec<Cow<'_, str>> = items
            .iter()
            .map(|i| match i {
                Js::Undefined | Js::Null => "".into(),
                other => other.to_text(),
            })
            .collect();
        texts.join(separator)
    }

    /// JavaScript's `ToPrimitive`: a list or an object becomes its text.
    fn to_primitive(&self) -> Js<'a> {
        if self.is_object() {
            Js::Str(self.to_text())
        } else {
            self.clone()
        }
    }

    /// JavaScript's `Number(value)`.
    fn to_number(&self) -> f64 {
        match self {
            Js::Undefined => f64::NAN,
            Js::Null => 0.0,
            Js::Bool(b) => f64::from(u8::from(*b)),
            Js::Num(n) => *n,
            Js::Str(s) => string_to_number(s),
            other => other.to_primitive().to_number(),
        }
    }

    /// The same list or object (JavaScript's identity of objects).
    fn same_object(&self, other: &Js<'_>) -> bool {
        match (self, other) {
            (Js::Arr(a), Js::Arr(b)) => std::ptr::eq(*a, *b),
            (Js::Map(a), Js::Map(b)) => std::ptr::eq(*a, *b),
            (Js::List(a), Js::List(b)) => std::ptr::eq(Rc::as_ptr(a), Rc::as_ptr(b)),
            (Js::Pair(a), Js::Pair(b)) => std::ptr::eq(Rc::as_ptr(a), Rc::as_ptr(b)),
            _ => false,
        }
    }

    /// `===`.
    fn strict_eq(&self, other: &Js<'_>) -> bool {
        match (self, other) {
            (Js::Undefined, Js::Undefined) | (Js::Null, Js::Null) => true,
            (Js::Bool(a), Js::Bool(b)) => a == b,
            (Js::Num(a), Js::Num(b)) => a == b,
            (Js::Str(a), Js::Str(b)) => a == b,
            (a, b) => a.same_object(b),
        }
    }

    /// `==` (ECMAScript's IsLooselyEqual).
    fn loose_eq(&self, other: &Js<'_>) -> bool {
        match (self, other) {
            (a, b) if a.is_nullish() || b.is_nullish() => a.is_nullish() && b.is_nullish(),
            (Js::Num(a), Js::Str(b)) => *a == string_to_number(b),
            (Js::Str(a), Js::Num(b)) => string_to_number(a) == *b,
            (Js::Bool(a), b) => Js::Num(f64::from(u8::from(*a))).loose_eq(b),
            (a, Js::Bool(b)) => a.loose_eq(&Js::Num(f64::from(u8::from(*b)))),
            (a, b) if a.is_object() && !b.is_object() => a.to_primitive().loose_eq(b),
            (a, b) if !a.is_object() && b.is_object() => a.loose_eq(&b.to_primitive()),
            (a, b) => a.strict_eq(b),
        }
    }

    /// `a < b` (ECMAScript's IsLessThan): `None` where a number is NaN (JavaScript's
    /// `undefined`, which makes `<`, `<=`, `>` and `>=` all false).
    fn less_than(&self, other: &Js<'_>) -> Option<bool> {
        let (a, b) = (self.to_primitive(), other.to_primitive());
        if let (Js::Str(a), Js::Str(b)) = (&a, &b) {
            return Some(a.encode_utf16().lt(b.encode_utf16()));
        }
        let (x, y) = (a.to_number(), b.to_number());
        (!x.is_nan() && !y.is_nan()).then_some(x < y)
    }

    /// `value[key]` for the keys `var` walks: an object's own keys, a list's or a
    /// text's index and `length`; anything else is undefined.
    fn get(&self, key: &str) -> Js<'a> {
        let index = || key.parse::<usize>().ok().filter(|i| i.to_string() == key);
        match self {
            Js::Map(m) => m.get(key).map_or(Js::Undefined, Js::of),
            Js::Pair(p) => p
                .iter()
                .find(|(k, _)| *k == key)
                .map_or(Js::Undefined, |(_, v)| v.clone()),
            Js::Arr(a) => match key {
                "length" => Js::Num(a.len() as f64),
                _ => index().and_then(|i| a.get(i)).map_or(Js::Undefined, Js::of),
            },
            Js::List(l) => match key {
                "length" => Js::Num(l.len() as f64),
                _ => index()
                    .and_then(|i| l.get(i).cloned())
                    .unwrap_or(Js::Undefined),
            },
            Js::Str(s) => {
                let units: Vec<u16> = s.encode_utf16().collect();
                match key {
                    "length" => Js::Num(units.len() as f64),
                    _ => index()
                        .and_then(|i| units.get(i))
                        .map_or(Js::Undefined, |u| {
                            Js::text(String::from_utf16_lossy(std::slice::from_ref(u)))
                        }),
                }
            }
            _ => Js::Undefined,
        }
    }

    /// The value as JSON, for [`apply_json`].
    fn to_json(&self) -> Value {
        match self {
            Js::Undefined => serde_json::json!({"$undefined": true}),
            Js::Null => Value::Null,
            Js::Bool(b) => Value::Bool(*b),
            // An integral number as JSON.stringify writes it (`1`, `0` for -0).
            Js::Num(n) if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 => {
                Value::from(*n as i64)
            }
            Js::Num(n) => serde_json::Number::from_f64(*n).map_or_else(
                || serde_json::json!({"$number": js_number_string(*n)}),
                Value::Number,
            ),
            Js::Str(s) => Value::String(s.to_string()),
            Js::Arr(a) => Value::Array(a.to_vec()),
            Js::Map(m) => Value::Object((*m).clone()),
            Js::List(l) => Value::Array(l.iter().map(Js::to_json).collect()),
            Js::Pair(p) => Value::Object(
                p.iter()
                    .map(|(k, v)| ((*k).to_string(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// JavaScript's white space, which `Number()` and `parseFloat` skip.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The length of the longest decimal literal at the start of `s` (`-1.5e3`, `.5`, `7.`),
/// 0 when there is none.
fn decimal_prefix(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(i);
    i += int;
    let mut frac = 0;
    if b.get(i) == Some(&b'.') {
        frac = digits(i + 1);
        if int + frac > 0 {
            i += 1 + frac;
        }
    }
    if int + frac == 0 {
        return 0;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        let exp = digits(i + 1 + sign);
        if exp > 0 {
            i += 1 + sign + exp;
        }
    }
    i
}

/// JavaScript's `Number(text)`: white space around, an empty text is 0, decimal
/// literals, `Infinity`, `0x`/`0o`/`0b` integers; anything else is NaN.
fn string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(is_js_space);
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => Some(16),
        Some("0o" | "0O") => Some(8),
        Some("0b" | "0B") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        return digits.chars().fold(0.0, |n, c| {
            n * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
    }
    if decimal_prefix(t) != t.len() {
        return f64::NAN;
    }
    t.parse().unwrap_or(f64::NAN)
}

/// JavaScript's `parseFloat(value)`: the longest decimal literal (or `Infinity`) at the
/// start of its text, after white space.
fn parse_float(v: &Js<'_>) -> f64 {
    let text = v.to_text();
    let t = text.trim_start_matches(is_js_space);
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned.starts_with("Infinity") {
        return if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let end = decimal_prefix(t);
    if end == 0 {
        return f64::NAN;
    }
    t[..end].parse().unwrap_or(f64::NAN)
}

/// JavaScript's `a + b`: text when either side is text once lists and objects are
/// their text, else numbers.
fn plus<'a>(a: &Js<'a>, b: &Js<'a>) -> Js<'a> {
    let (a, b) = (a.to_primitive(), b.to_primitive());
    if matches!(a, Js::Str(_)) || matches!(b, Js::Str(_)) {
        return Js::text(format!("{}{}", a.to_text(), b.to_text()));
    }
    Js::Num(a.to_number() + b.to_number())
}

/// ECMAScript's ToIntegerOrInfinity.
fn to_integer(v: &Js<'_>) -> f64 {
    let n = v.to_number();
    if n.is_nan() { 0.0 } else { n.trunc() }
}

/// `String.prototype.substr(start, length)`, on UTF-16 code units.
fn substr<'a>(text: &str, start: &Js<'a>, length: &Js<'a>) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let size = units.len() as f64;
    let mut from = to_integer(start);
    if from < 0.0 {
        from = (size + from).max(0.0);
    }
    let from = from.min(size);
    let count = match length {
        Js::Undefined => size - from,
        l => to_integer(l).clamp(0.0, size - from),
    };
    let (from, count) = (from as usize, count as usize);
    String::from_utf16_lossy(&units[from..from + count])
}

fn arg<'a>(args: &[Js<'a>], i: usize) -> Js<'a> {
    args.get(i).cloned().unwrap_or(Js::Undefined)
}

/// `jsonLogic.apply(rule, data)`; `None` where it throws.
fn apply<'a>(rule: &'a Rule, data: &Js<'a>) -> Eval<'a> {
    match rule {
        Rule::Value(v) => Some(Js::of(v)),
        Rule::List(items) => Some(Js::List(Rc::new(
            items
                .iter()
                .map(|r| apply(r, data))
                .collect::<Option<_>>()?,
        ))),
        Rule::Op(op, args) => match op {
            Op::If | Op::And | Op::Or => control(*op, args, data),
            Op::Filter | Op::Map | Op::Reduce | Op::All | Op::NoneOf | Op::SomeOf => {
                over_list(*op, args, data)
            }
            _ => {
                let values: Vec<Js<'a>> =
                    args.iter().map(|r| apply(r, data)).collect::<Option<_>>()?;
                operate(*op, &values, data)
            }
        },
    }
}

/// `if`, `and` and `or`, which evaluate their arguments as far as they need.
fn control<'a>(op: Op, args: &'a [Rule], data: &Js<'a>) -> Eval<'a> {
    match op {
        Op::If => {
            let mut pairs = args.chunks_exact(2);
            for pair in pairs.by_ref() {
                if apply(&pair[0], data)?.truthy() {
                    return apply(&pair[1], data);
                }
            }
            match pairs.remainder() {
                [last] => apply(last, data),
                _ => Some(Js::Null),
            }
        }
        _ => {
            let mut current = Js::Undefined;
            for a in args {
                current = apply(a, data)?;
                if current.truthy() == (op == Op::Or) {
                    return Some(current);
                }
            }
            Some(current)
        }
    }
}

/// `filter`, `map`, `reduce`, `all`, `none` and `some`: the second argument applied to
/// each item of the first.
fn over_list<'a>(op: Op, args: &'a [Rule], data: &Js<'a>) -> Eval<'a> {
    let items = match args.first() {
        Some(r) => apply(r, data)?.items(),
        None => None,
    };
    let each = args.get(1);
    let on = |item: &Js<'a>| match each {
        Some(r) => apply(r, item),
        None => Some(Js::Undefined),
    };
    let Some(items) = items else {
        return Some(match op {
            Op::Filter | Op::Map => Js::List(Rc::new(Vec::new())),
            Op::Reduce => initial(args, data)?,
            Op::NoneOf => Js::Bool(true),
            _ => Js::Bool(false),
        });
    };
    Some(match op {
        Op::Filter => {
            let mut kept = Vec::new();
            for item in items {
                if on(&item)?.truthy() {
                    kept.push(item);
                }
            }
            Js::List(Rc::new(kept))
        }
        Op::Map => Js::List(Rc::new(items.iter().map(on).collect::<Option<_>>()?)),
        Op::Reduce => {
            let mut accumulator = initial(args, data)?;
            for current in items {
                let pair = Js::Pair(Rc::new([
                    ("current", current),
                    ("accumulator", accumulator),
                ]));
                accumulator = on(&pair)?;
            }
            accumulator
        }
        Op::All if items.is_empty() => Js::Bool(false),
        Op::All => {
            for item in &items {
                if !on(item)?.truthy() {
                    return Some(Js::Bool(false));
                }
            }
            Js::Bool(true)
        }
        _ => {
            let wanted = op == Op::SomeOf;
            for item in &items {
                if on(item)?.truthy() {
                    return Some(Js::Bool(wanted));
                }
            }
            Js::Bool(!wanted)
        }
    })
}

/// `reduce`'s starting value: its third argument, else null.
fn initial<'a>(args: &'a [Rule], data: &Js<'a>) -> Eval<'a> {
    match args.get(2) {
        Some(r) => apply(r, data),
        None => Some(Js::Null),
    }
}

/// The operations whose arguments are all evaluated first.
fn operate<'a>(op: Op, args: &[Js<'a>], data: &Js<'a>) -> Eval<'a> {
    let (a, b, c) = (arg(args, 0), arg(args, 1), arg(args, 2));
    let le = |x: &Js<'a>, y: &Js<'a>| y.less_than(x) == Some(false);
    let lt = |x: &Js<'a>, y: &Js<'a>| x.less_than(y) == Some(true);
    Some(match op {
        Op::Eq => Js::Bool(a.loose_eq(&b)),
        Op::StrictEq => Js::Bool(a.strict_eq(&b)),
        Op::Ne => Js::Bool(!a.loose_eq(&b)),
        Op::StrictNe => Js::Bool(!a.strict_eq(&b)),
        Op::Gt => Js::Bool(lt(&b, &a)),
        Op::Ge => Js::Bool(a.less_than(&b) == Some(false)),
        Op::Lt if matches!(c, Js::Undefined) => Js::Bool(lt(&a, &b)),
        Op::Lt => Js::Bool(lt(&a, &b) && lt(&b, &c)),
        Op::Le if matches!(c, Js::Undefined) => Js::Bool(le(&a, &b)),
        Op::Le => Js::Bool(le(&a, &b) && le(&b, &c)),
        Op::Truthy => Js::Bool(a.truthy()),
        Op::Not => Js::Bool(!a.truthy()),
        Op::Rem => Js::Num(a.to_number() % b.to_number()),
        Op::Log => a,
        Op::In => Js::Bool(is_in(&a, &b)),
        Op::Cat => Js::text(Js::List(Rc::new(args.to_vec())).join("")),
        Op::Substr => substr_op(&a, &b, &c),
        Op::Add => Js::Num(
            args.iter()
                .fold(0.0, |sum, x| parse_float(&Js::Num(sum)) + parse_float(x)),
        ),
        Op::Mul => {
            let (first, rest) = args.split_first()?;
            rest.iter().fold(first.clone(), |product, x| {
                Js::Num(parse_float(&product) * parse_float(x))
            })
        }
        Op::Sub if matches!(b, Js::Undefined) => Js::Num(-a.to_number()),
        Op::Sub => Js::Num(a.to_number() - b.to_number()),
        Op::Div => Js::Num(a.to_number() / b.to_number()),
        Op::Min | Op::Max => extreme(op, args),
        Op::Merge => {
            let mut out = Vec::new();
            for x in args {
                match x.items() {
                    Some(items) => out.extend(items),
                    None => out.push(x.clone()),
                }
            }
            Js::List(Rc::new(out))
        }
        Op::Var => var(&a, &b, data),
        Op::Missing => missing(args, data),
        Op::MissingSome => missing_some(&a, &b, data)?,
        Op::If | Op::And | Op::Or => control(op, &[], data)?,
        Op::Filter | Op::Map | Op::Reduce | Op::All | Op::NoneOf | Op::SomeOf => {
            over_list(op, &[], data)?
        }
    })
}

/// `in`: `b.indexOf(a) !== -1` for a list (strict equality) or a text (`a`'s text).
fn is_in(a: &Js<'_>, b: &Js<'_>) -> bool {
    if !b.to_bool() {
        return false;
    }
    if let Js::Str(s) = b {
        return s.contains(a.to_text().as_ref());
    }
    b.items()
        .is_some_and(|items| items.iter().any(|x| x.strict_eq(a)))
}

/// `substr`, with json-logic-js's negative end (counted from the end of the text).
fn substr_op<'a>(source: &Js<'a>, start: &Js<'a>, end: &Js<'a>) -> Js<'a> {
    let text = source.to_text();
    if end.less_than(&Js::Num(0.0)) == Some(true) {
        let rest = substr(&text, start, &Js::Undefined);
        let length = plus(&Js::Num(rest.encode_utf16().count() as f64), end);
        return Js::text(substr(&rest, &Js::Num(0.0), &length));
    }
    Js::text(substr(&text, start, end))
}

/// `Math.min` and `Math.max` of the arguments as numbers.
fn extreme<'a>(op: Op, args: &[Js<'a>]) -> Js<'a> {
    let start = if op == Op::Min {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    };
    Js::Num(args.iter().fold(start, |m, x| {
        let n = x.to_number();
        if m.is_nan() || n.is_nan() {
            f64::NAN
        } else if op == Op::Min {
            m.min(n)
        } else {
            m.max(n)
        }
    }))
}

/// `var`: the value at a dotted path of the data (the whole data for an empty path),
/// else the default (null without one).
fn var<'a>(path: &Js<'a>, default: &Js<'a>, data: &Js<'a>) -> Js<'a> {
    let not_found = match default {
        Js::Undefined => Js::Null,
        d => d.clone(),
    };
    let path = match path {
        Js::Undefined | Js::Null => return data.clone(),
        Js::Str(s) if s.is_empty() => return data.clone(),
        p => p.to_text(),
    };
    let mut at = data.clone();
    for key in path.split('.') {
        if at.is_nullish() {
            return not_found;
        }
        at = at.get(key);
        if matches!(at, Js::Undefined) {
            return not_found;
        }
    }
    at
}

/// `missing`: the keys (the arguments, or the list given as the first) whose value is
/// null or empty text.
fn missing<'a>(args: &[Js<'a>], data: &Js<'a>) -> Js<'a> {
    let keys = args
        .first()
        .and_then(Js::items)
        .unwrap_or_else(|| args.to_vec());
    let absent = keys
        .into_iter()
        .filter(|k| match lookup(k, data) {
            Js::Null => true,
            Js::Str(s) => s.is_empty(),
            _ => false,
        })
        .collect();
    Js::List(Rc::new(absent))
}

/// `{"var": key}` as `missing` applies it: a list key holds `var`'s arguments.
fn lookup<'a>(key: &Js<'a>, data: &Js<'a>) -> Js<'a> {
    match key.items() {
        Some(args) => var(&arg(&args, 0), &arg(&args, 1), data),
        None => var(key, &Js::Undefined, data),
    }
}

/// `missing_some(need, options)`: no key when at least `need` of `options` are given,
/// else the missing ones. `options` that is not a list throws when it has no `length`.
fn missing_some<'a>(need: &Js<'a>, options: &Js<'a>, data: &Js<'a>) -> Eval<'a> {
    // json-logic-js applies `{"missing": options}` again: a list's items are its keys.
    let args = options.items().unwrap_or_else(|| vec![options.clone()]);
    let are_missing = missing(&args, data);
    let length = match options {
        Js::Undefined | Js::Null => return None,
        o => o.get("length"),
    };
    let missing_count = are_missing.items().map_or(0, |m| m.len());
    let given = Js::Num(length.to_number() - missing_count as f64);
    Some(match given.less_than(need) {
        Some(false) => Js::List(Rc::new(Vec::new())),
        _ => are_missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// json-logic-js 2.0.5's own answers (`tools/json_logic_cases.js`): hand-picked rules
    /// on JavaScript's coercions, and seeded random ones, each on four data objects.
    #[test]
    fn rules_evaluate_as_json_logic_js_evaluates_them() {
        let fixture: Value = serde_json::from_str(include_str!(
            "../../../tests/fixtures/json_logic/cases.json"
        ))
        .unwrap();
        let cases = fixture["cases"].as_array().unwrap();
        assert!(cases.len() > 1000);
        let mut wrong = Vec::new();
        for case in cases {
            let rule = Rule::parse(&case["rule"]).unwrap();
            let got = apply_json(&rule, &case["data"]);
            let expected = match case.get("throws") {
                Some(_) => None,
                None => Some(case["result"].clone()),
            };
            if got != expected {
                wrong.push(format!(
                    "{} on {}: json-logic-js {:?}, strata {:?}",
                    case["rule"], case["data"], expected, got
                ));
            }
        }
        assert!(
            wrong.is_empty(),
            "{} of {}:\n{}",
            wrong.len(),
            cases.len(),
            wrong.join("\n")
        );
    }

    #[test]
    fn the_result_is_read_with_javascripts_truthiness() {
        let data = json!({"kind": "digital", "tags": []});
        let shows = |rule: Value| {
            let c = crate::schema::Condition::parse(&json!({ "visible": rule }))
                .unwrap()
                .unwrap();
            visible(&c, data.as_object().unwrap())
        };
        assert!(shows(json!({"==": [{"var": "kind"}, "digital"]})));
        assert!(!shows(json!({"==": [{"var": "absent"}, "digital"]})));
        // Strapi tests `!isVisible`: an empty list shows the attribute, though JSON
        // Logic's own truthiness calls it false.
        assert!(shows(json!({"var": "tags"})));
        assert!(!shows(json!({"!!": {"var": "tags"}})));
        // Where json-logic-js throws, the attribute is checked.
        assert!(shows(json!({"missing_some": [1, null]})));
    }
}
