//! `sort`: strings, comma lists, arrays, objects and dot paths, into [`SortKey`]s.

use super::*;

impl Parser<'_> {
    pub(super) fn sort(
        &self,
        schema: &Schema,
        v: &QsValue,
        param: Param,
        check_permission: bool,
    ) -> Result<Vec<SortKey>, QueryError> {
        let mut out = Vec::new();
        self.sort_value(schema, v, &param, check_permission, &mut out)?;
        Ok(out)
    }

    fn sort_value(
        &self,
        schema: &Schema,
        v: &QsValue,
        param: &Param,
        check: bool,
        out: &mut Vec<SortKey>,
    ) -> Result<(), QueryError> {
        match v {
            QsValue::Null => Ok(()),
            QsValue::String(s) => {
                for part in s.split(',') {
                    let part = part.trim();
                    if part.is_empty() {
                        continue;
                    }
                    let (path, dir) = match part.split_once(':') {
                        Some((p, d)) => (p.trim(), Some(d.trim())),
                        None => (part, None),
                    };
                    if path.is_empty() {
                        continue;
                    }
                    let direction = direction(dir)?;
                    let segments: Vec<&str> = path.split('.').collect();
                    out.push(self.sort_path(schema, &segments, direction, param, check)?);
                }
                Ok(())
            }
            QsValue::Array(items) => {
                // Strapi's sort traversal walks a list of strings or a list of objects item
                // by item; a list of both is walked as an object, whose first key, `0`,
                // names no field.
                let strings = items.iter().all(|i| matches!(i, QsValue::String(_)));
                let objects = items.iter().all(|i| matches!(i, QsValue::Object(_)));
                let meaningful = items.iter().any(|i| !matches!(i, QsValue::Null));
                if meaningful && !strings && !objects {
                    return Err(QueryError::invalid_key(
                        "0",
                        Path::default().get(),
                        param.clone(),
                    ));
                }
                for item in items {
                    self.sort_value(schema, item, param, check, out)?;
                }
                Ok(())
            }
            QsValue::Object(map) => {
                let first = out.len();
                for (key, val) in map {
                    self.sort_nested(schema, &[], key, val, param, check, out)?;
                }
                share_joins(&mut out[first..]);
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn sort_nested(
        &self,
        schema: &Schema,
        prefix: &[&str],
        key: &str,
        val: &QsValue,
        param: &Param,
        check: bool,
        out: &mut Vec<SortKey>,
    ) -> Result<(), QueryError> {
        let mut segments: Vec<&str> = prefix.to_vec();
        segments.push(key);
        self.check_depth(segments.len())?;
        match val {
            QsValue::String(d) => {
                let direction = direction(Some(d))?;
                out.push(self.sort_path(schema, &segments, direction, param, check)?);
                Ok(())
            }
            QsValue::Object(inner) => {
                for (k, v) in inner {
                    self.sort_nested(schema, &segments, k, v, param, check, out)?;
                }
                Ok(())
            }
            QsValue::Null => Ok(()),
            QsValue::Array(_) => Err(QueryError::Invalid(
                "Invalid order. order can only be one of asc|desc|ASC|DESC".into(),
            )),
        }
    }

    fn sort_path(
        &self,
        schema: &Schema,
        segments: &[&str],
        direction: Direction,
        param: &Param,
        check: bool,
    ) -> Result<SortKey, QueryError> {
        let mut cur = schema;
        let mut path = Path::default();
        let mut steps = Vec::new();
        for (i, seg) in segments.iter().enumerate() {
            let last = i + 1 == segments.len();
            match self.name(cur, seg, &path, param)? {
                Name::Field(field) if last => {
                    return Ok(SortKey::new(steps, field, direction));
                }
                Name::Attr(attr) => {
                    let target = self.follow(attr, &path, param, check)?;
                    match (target, last) {
                        (None, true) => {
                            return Ok(SortKey::new(steps, FieldRef::Attr(attr.id), direction));
                        }
                        (Some(t), false) => {
                            steps.push((attr.id, t));
                            path = path.join(seg);
                            cur = self.schema(t);
                        }
                        // A relation without a sub-field, or a sub-field under a scalar.
                        _ => {
                            return Err(QueryError::invalid_key(
                                *seg,
                                path.join(seg).get(),
                                param.clone(),
                            ));
                        }
                    }
                }
                Name::Field(_) | Name::Localizations => {
                    return Err(QueryError::invalid_key(
                        *seg,
                        path.join(seg).get(),
                        param.clone(),
                    ));
                }
            }
        }
        Err(QueryError::invalid_key("", path.get(), param.clone()))
    }

    // ----------------------------------------------------------------- fields
}

fn direction(d: Option<&str>) -> Result<Direction, QueryError> {
    match d {
        None => Ok(Direction::Asc),
        Some("asc" | "ASC") => Ok(Direction::Asc),
        Some("desc" | "DESC") => Ok(Direction::Desc),
        Some(_) => Err(QueryError::Invalid(
            "Invalid order. order can only be one of asc|desc|ASC|DESC".into(),
        )),
    }
}

/// The keys of one sort object go through the same joined rows where their paths start
/// alike: Strapi's `processOrderBy` joins each relation of the object once, and the
/// object's keys under it read that join. Object keys are unique, so two keys of one
/// object with the same leading relations are under the same nested object.
fn share_joins(keys: &mut [SortKey]) {
    for i in 1..keys.len() {
        let (before, after) = keys.split_at_mut(i);
        let (prev, key) = (&before[i - 1], &mut after[0]);
        key.shared_hops = prev
            .path
            .iter()
            .zip(&key.path)
            .take_while(|(a, b)| a.0 == b.0)
            .count();
    }
}
