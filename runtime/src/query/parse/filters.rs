//! `filters` (and `_q`): conditions, operators and values, through relations, components,
//! media and `localizations`, validated and coerced as Strapi's validators do.

use super::*;

impl Parser<'_> {
    pub(super) fn root_filters(
        &mut self,
        schema: &Schema,
        v: &QsValue,
    ) -> Result<Option<Conjunction>, QueryError> {
        match v {
            QsValue::Object(map) => self.conjunction(schema, map, &Path::default(), 0),
            QsValue::Array(items) => {
                let mut parts = Vec::new();
                for item in items {
                    if let Some(c) = self.element(schema, item, &Path::default(), 0, "filters")? {
                        parts.push(c);
                    }
                }
                Ok((!parts.is_empty()).then(|| Conjunction(vec![Condition::And(parts)])))
            }
            _ => Err(QueryError::Invalid(
                "The filters parameter must be an object or an array".into(),
            )),
        }
    }

    fn count_condition(&mut self) -> Result<(), QueryError> {
        self.conditions += 1;
        within(
            self.conditions,
            self.config.limits.max_conditions,
            "maxConditions",
            |max| format!("The query has more than {max} filter conditions"),
        )
    }

    pub(super) fn check_depth(&self, depth: usize) -> Result<(), QueryError> {
        within(depth, self.config.limits.max_depth, "maxDepth", |max| {
            format!("The filters are nested more than {max} levels deep")
        })
    }

    /// One element of an `$and`/`$or` list (or of a root array): an object, or an array
    /// whose elements are ANDed.
    fn element(
        &mut self,
        schema: &Schema,
        v: &QsValue,
        path: &Path,
        depth: usize,
        key: &str,
    ) -> Result<Option<Conjunction>, QueryError> {
        self.check_depth(depth)?;
        match v {
            QsValue::Object(map) => self.conjunction(schema, map, path, depth + 1),
            QsValue::Array(items) => {
                let mut parts = Vec::new();
                for item in items {
                    if let Some(c) = self.element(schema, item, path, depth + 1, key)? {
                        parts.push(c);
                    }
                }
                Ok((!parts.is_empty()).then(|| Conjunction(vec![Condition::And(parts)])))
            }
            _ => Err(QueryError::InvalidValue {
                key: key.to_string(),
                path: path.get(),
                message: "expected an array of filter objects".into(),
                param: Param::Filters,
            }),
        }
    }

    /// A filter object: every key is a condition, all ANDed.
    pub(super) fn conjunction(
        &mut self,
        schema: &Schema,
        map: &QsMap,
        path: &Path,
        depth: usize,
    ) -> Result<Option<Conjunction>, QueryError> {
        self.check_depth(depth)?;
        let mut out = Vec::new();
        for (key, v) in map {
            match key.as_str() {
                "$and" | "$or" => {
                    let QsValue::Array(items) = v else {
                        return Err(QueryError::InvalidValue {
                            key: key.clone(),
                            path: path.get(),
                            message: "expected an array of filter objects, like filters[$or][0][title]=a&filters[$or][1][title]=b".into(),
                            param: Param::Filters,
                        });
                    };
                    let mut parts = Vec::new();
                    for item in items {
                        if let Some(c) = self.element(schema, item, path, depth + 1, key)? {
                            parts.push(c);
                        }
                    }
                    if !parts.is_empty() {
                        out.push(if key == "$and" {
                            Condition::And(parts)
                        } else {
                            Condition::Or(parts)
                        });
                    }
                }
                "$not" => {
                    if let Some(c) = self.element(schema, v, path, depth + 1, key)? {
                        out.push(Condition::Not(c));
                    }
                }
                k if k.starts_with('$') => {
                    return Err(QueryError::invalid_key(k, path.get(), Param::Filters));
                }
                _ => {
                    let name = self.name(schema, key, path, &Param::Filters)?;
                    match name {
                        Name::Field(field) => {
                            self.field_conditions(schema, field, key, v, &path.join(key), &mut out)?
                        }
                        Name::Localizations => {
                            let sub = path.join(key);
                            let inner = match v {
                                QsValue::Object(m) => {
                                    self.conjunction(schema, m, &sub, depth + 1)?
                                }
                                _ => {
                                    return Err(QueryError::InvalidValue {
                                        key: key.clone(),
                                        path: sub.get(),
                                        message:
                                            "expected an object of conditions on the other locales"
                                                .into(),
                                        param: Param::Filters,
                                    });
                                }
                            };
                            if let Some(inner) = inner {
                                out.push(Condition::Localizations(inner));
                            }
                        }
                        Name::Attr(attr) => match self.follow(attr, path, &Param::Filters, true)? {
                            None => {
                                let field = FieldRef::Attr(attr.id);
                                self.field_conditions(
                                    schema,
                                    field,
                                    key,
                                    v,
                                    &path.join(key),
                                    &mut out,
                                )?
                            }
                            Some(target) => self.related(
                                attr.id,
                                target,
                                key,
                                v,
                                &path.join(key),
                                depth,
                                &mut out,
                            )?,
                        },
                    }
                }
            }
        }
        Ok((!out.is_empty()).then_some(Conjunction(out)))
    }

    /// Conditions under a relation, component or media key.
    #[allow(clippy::too_many_arguments)]
    fn related(
        &mut self,
        attr: AttrId,
        target: SchemaId,
        key: &str,
        v: &QsValue,
        path: &Path,
        depth: usize,
        out: &mut Vec<Condition>,
    ) -> Result<(), QueryError> {
        let target_schema = self.schema(target);
        match v {
            QsValue::Object(map) => {
                let null_key = map.keys().find(|k| *k == "$null" || *k == "$notNull");
                if let Some(nk) = null_key {
                    if map.len() > 1 {
                        return Err(QueryError::InvalidValue {
                            key: nk.clone(),
                            path: path.get(),
                            message:
                                "cannot be combined with other conditions on the same relation"
                                    .into(),
                            param: Param::Filters,
                        });
                    }
                    self.count_condition()?;
                    let flag = map.get(nk).is_some_and(qs_truthy);
                    out.push(Condition::RelatedNull {
                        attr,
                        is_null: if nk == "$null" { flag } else { !flag },
                    });
                    return Ok(());
                }
                // Operators directly on a relation apply to the related row's id; `$not`
                // means "no related row matches" (Strapi crashes on both when mixed).
                let mut own = QsMap::new();
                let mut id_ops = QsMap::new();
                for (k, val) in map {
                    if k == "$not" {
                        let inner = match val {
                            QsValue::Object(m) => {
                                self.conjunction(target_schema, m, path, depth + 1)?
                            }
                            _ => self.element(target_schema, val, path, depth + 1, k)?,
                        };
                        if let Some(inner) = inner {
                            out.push(Condition::Not(Conjunction(vec![Condition::Related {
                                attr,
                                target,
                                filter: inner,
                            }])));
                        }
                    } else if k.starts_with('$') && k != "$and" && k != "$or" {
                        id_ops.insert(k.clone(), val.clone());
                    } else {
                        own.insert(k.clone(), val.clone());
                    }
                }
                let mut conds = match self.conjunction(target_schema, &own, path, depth + 1)? {
                    Some(c) => c.0,
                    None => Vec::new(),
                };
                if !id_ops.is_empty() {
                    self.field_conditions(
                        target_schema,
                        FieldRef::Id,
                        "id",
                        &QsValue::Object(id_ops),
                        path,
                        &mut conds,
                    )?;
                }
                if !conds.is_empty() {
                    out.push(Condition::Related {
                        attr,
                        target,
                        filter: Conjunction(conds),
                    });
                }
                Ok(())
            }
            // `filters[author]=3` and `filters[author][0]=1&…` match the related row's id.
            _ => {
                let mut conds = Vec::new();
                self.field_conditions(target_schema, FieldRef::Id, key, v, path, &mut conds)?;
                if !conds.is_empty() {
                    out.push(Condition::Related {
                        attr,
                        target,
                        filter: Conjunction(conds),
                    });
                }
                Ok(())
            }
        }
    }

    fn value_kind(&self, schema: &Schema, field: FieldRef) -> ValueKind {
        match field {
            FieldRef::Id => ValueKind::Number,
            FieldRef::DocumentId | FieldRef::Locale => ValueKind::Text,
            FieldRef::CreatedAt | FieldRef::UpdatedAt | FieldRef::PublishedAt => {
                ValueKind::DateTime
            }
            FieldRef::Attr(id) => match schema
                .attributes
                .get(id.index())
                .and_then(|a| a.kind.scalar())
            {
                Some(ScalarType::Integer | ScalarType::Float | ScalarType::Decimal) => {
                    ValueKind::Number
                }
                Some(ScalarType::BigInteger) => ValueKind::BigInt,
                Some(ScalarType::Boolean) => ValueKind::Boolean,
                Some(ScalarType::Date) => ValueKind::Date,
                Some(ScalarType::Time) => ValueKind::Time,
                Some(ScalarType::DateTime | ScalarType::Timestamp) => ValueKind::DateTime,
                Some(ScalarType::Json | ScalarType::Blocks) => ValueKind::Json,
                _ => ValueKind::Text,
            },
        }
    }

    /// Conditions on one column: a scalar (implicit `$eq`), an array (implicit `$in`) or an
    /// object of operators.
    fn field_conditions(
        &mut self,
        schema: &Schema,
        field: FieldRef,
        key: &str,
        v: &QsValue,
        path: &Path,
        out: &mut Vec<Condition>,
    ) -> Result<(), QueryError> {
        let kind = self.value_kind(schema, field);
        match v {
            QsValue::Null | QsValue::String(_) => {
                self.count_condition()?;
                let value = self.coerce(kind, Op::Eq, v, key, path, field)?;
                out.push(Condition::Field {
                    field,
                    op: Op::Eq,
                    operand: Operand::One(value),
                });
            }
            QsValue::Array(items) => {
                if let Some(list) = self.list(kind, Op::In, items, key, path, field)? {
                    out.push(Condition::Field {
                        field,
                        op: Op::In,
                        operand: Operand::List(list),
                    });
                }
            }
            QsValue::Object(map) => {
                for (op_key, val) in map {
                    self.operator(schema, field, kind, op_key, val, path, out)?;
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn operator(
        &mut self,
        schema: &Schema,
        field: FieldRef,
        kind: ValueKind,
        op_key: &str,
        val: &QsValue,
        path: &Path,
        out: &mut Vec<Condition>,
    ) -> Result<(), QueryError> {
        if op_key == "$not" {
            let mut inner = Vec::new();
            self.nesting += 1;
            self.check_depth(self.nesting)?;
            let result = self.field_conditions(schema, field, op_key, val, path, &mut inner);
            self.nesting -= 1;
            result?;
            if !inner.is_empty() {
                out.push(Condition::Not(Conjunction(inner)));
            }
            return Ok(());
        }
        if op_key == "$null" || op_key == "$notNull" {
            self.count_condition()?;
            let flag = qs_truthy(val);
            out.push(Condition::Field {
                field,
                op: Op::Null,
                operand: Operand::Flag(if op_key == "$null" { flag } else { !flag }),
            });
            return Ok(());
        }
        let Some(op) = Op::parse(op_key) else {
            // Unknown operator, or an attribute name under a scalar (Strapi: 500).
            return Err(QueryError::invalid_key(op_key, path.get(), Param::Filters));
        };
        match op {
            Op::In | Op::NotIn => {
                let items: Vec<QsValue> = match val {
                    QsValue::Array(items) => items.clone(),
                    QsValue::Object(m) => match numeric_object_as_list(m) {
                        Some(items) => items,
                        // PostgreSQL binds an operator object as its JSON text.
                        None if self.config.operator_objects == OperatorObjects::JsonText
                            && m.keys().any(|k| k.starts_with('$')) =>
                        {
                            vec![QsValue::String(map_to_json(m))]
                        }
                        // Strapi drops an operand that is neither a value nor a list.
                        None => return Ok(()),
                    },
                    scalar => vec![scalar.clone()],
                };
                if let Some(list) = self.list(kind, op, &items, op_key, path, field)? {
                    out.push(Condition::Field {
                        field,
                        op,
                        operand: Operand::List(list),
                    });
                }
            }
            Op::Between => {
                let items = match val {
                    QsValue::Array(items) if items.len() == 2 => items,
                    _ => {
                        return Err(QueryError::InvalidValue {
                            key: op_key.to_string(),
                            path: path.get(),
                            message: "expected an array of two values, like [$between][0]=1&[$between][1]=5".into(),
                            param: Param::Filters,
                        });
                    }
                };
                self.count_condition()?;
                let lo = self.coerce(kind, op, &items[0], op_key, path, field)?;
                let hi = self.coerce(kind, op, &items[1], op_key, path, field)?;
                out.push(Condition::Field {
                    field,
                    op,
                    operand: Operand::Range(lo, hi),
                });
            }
            _ => match val {
                // An array on a single-value operator means OR.
                QsValue::Array(items) => {
                    let mut alts = Vec::new();
                    for item in items {
                        self.count_condition()?;
                        let value = self.coerce(kind, op, item, op_key, path, field)?;
                        alts.push(Conjunction(vec![Condition::Field {
                            field,
                            op,
                            operand: Operand::One(value),
                        }]));
                    }
                    if !alts.is_empty() {
                        out.push(Condition::Or(alts));
                    }
                }
                QsValue::Object(m) => {
                    if let Some(items) = numeric_object_as_list(m) {
                        return self.operator(
                            schema,
                            field,
                            kind,
                            op_key,
                            &QsValue::Array(items),
                            path,
                            out,
                        );
                    }
                    // `title[$eq][foo]=bar`: Strapi silently drops the condition; `$eq[$eq]` too.
                    if m.keys().any(|k| k.starts_with('$')) {
                        if self.config.operator_objects == OperatorObjects::JsonText {
                            let text = QsValue::String(map_to_json(m));
                            return self.operator(schema, field, kind, op_key, &text, path, out);
                        }
                        return Err(QueryError::InvalidValue {
                            key: op_key.to_string(),
                            path: path.get(),
                            message: "expected a value, found nested operators".into(),
                            param: Param::Filters,
                        });
                    }
                }
                _ => {
                    self.count_condition()?;
                    let value = self.coerce(kind, op, val, op_key, path, field)?;
                    out.push(Condition::Field {
                        field,
                        op,
                        operand: Operand::One(value),
                    });
                }
            },
        }
        Ok(())
    }

    fn list(
        &mut self,
        kind: ValueKind,
        op: Op,
        items: &[QsValue],
        key: &str,
        path: &Path,
        field: FieldRef,
    ) -> Result<Option<Vec<Value>>, QueryError> {
        within(
            items.len(),
            self.config.limits.max_in_values,
            "maxInValues",
            |max| format!("{key} has {} values; the maximum is {max}", items.len()),
        )?;
        self.count_condition()?;
        let mut list = Vec::with_capacity(items.len());
        for item in items {
            list.push(self.coerce(kind, op, item, key, path, field)?);
        }
        Ok((!list.is_empty()).then_some(list))
    }

    /// Converts one raw value to the column's type, as Strapi's cast operators do.
    fn coerce(
        &self,
        kind: ValueKind,
        op: Op,
        v: &QsValue,
        key: &str,
        path: &Path,
        field: FieldRef,
    ) -> Result<Value, QueryError> {
        let s = match v {
            QsValue::Null => return Ok(Value::Null),
            QsValue::String(s) => s.as_str(),
            _ => {
                return Err(QueryError::InvalidValue {
                    key: key.to_string(),
                    path: path.get(),
                    message: "expected a single value".into(),
                    param: Param::Filters,
                });
            }
        };
        // Only the cast operators convert; LIKE-style and case-insensitive ones bind text.
        if !op.casts() {
            return Ok(Value::Text(s.to_string()));
        }
        let bad = |message: &str| QueryError::InvalidValue {
            key: key.to_string(),
            path: path.get(),
            message: message.to_string(),
            param: Param::Filters,
        };
        Ok(match kind {
            ValueKind::Text | ValueKind::Json => Value::Text(s.to_string()),
            ValueKind::Number => match values::js_number(s) {
                Some(n) => Value::Number(n),
                // Strapi does not cast ids: a non-numeric id simply matches nothing.
                None if field == FieldRef::Id => Value::Text(s.to_string()),
                None => return Err(bad(&format!("expected a number, got {s:?}"))),
            },
            ValueKind::BigInt => match values::big_int(s.trim()) {
                Some(b) => Value::BigInt(b),
                None => return Err(bad(&format!("expected an integer, got {s:?}"))),
            },
            ValueKind::Boolean => Value::Bool(values::truthy(s)),
            ValueKind::Date => match values::date(s) {
                Some(d) => Value::Date(d),
                None => {
                    return Err(QueryError::Invalid(
                        "Invalid format, expected yyyy-MM-dd".into(),
                    ));
                }
            },
            ValueKind::Time => match values::time(s) {
                Some(t) => Value::Time(t),
                None => {
                    return Err(QueryError::Invalid(
                        "Invalid time format, expected HH:mm:ss.SSS".into(),
                    ));
                }
            },
            ValueKind::DateTime => match values::datetime(s) {
                Some(ms) => Value::DateTime(ms),
                None => {
                    return Err(QueryError::Invalid(
                        "Invalid format, expected a timestamp or an ISO date".into(),
                    ));
                }
            },
        })
    }

    // ------------------------------------------------------------------- sort
}
