//! `fields`: the scalar attributes to select.

use super::*;

impl Parser<'_> {
    pub(super) fn fields(
        &self,
        schema: &Schema,
        v: &QsValue,
    ) -> Result<Option<Vec<FieldRef>>, QueryError> {
        let bad_shape = || {
            QueryError::Invalid(
                "Invalid fields parameter. Expected a string or an array of strings".into(),
            )
        };
        let mut names: Vec<&str> = Vec::new();
        match v {
            QsValue::String(s) => {
                if s.is_empty() {
                    return Ok(Some(Vec::new()));
                }
                names.extend(s.split(',').map(str::trim));
            }
            QsValue::Null => return Ok(Some(Vec::new())),
            QsValue::Array(items) => {
                for item in items {
                    match item {
                        QsValue::String(s) => names.extend(s.split(',').map(str::trim)),
                        QsValue::Null => {}
                        _ => return Err(bad_shape()),
                    }
                }
            }
            QsValue::Object(_) => return Err(bad_shape()),
        }
        let mut out: Vec<FieldRef> = Vec::new();
        let mut all = false;
        for name in names {
            if name == "*" {
                all = true;
                continue;
            }
            let field = match self.name(schema, name, &Path::default(), &Param::Fields)? {
                Name::Field(f) => f,
                Name::Attr(attr) if matches!(attr.kind, AttributeKind::Scalar(_)) => {
                    FieldRef::Attr(attr.id)
                }
                _ => {
                    return Err(QueryError::invalid_key(
                        name,
                        Some(name.to_string()),
                        Param::Fields,
                    ));
                }
            };
            if matches!(field, FieldRef::Id | FieldRef::DocumentId) || out.contains(&field) {
                continue;
            }
            out.push(field);
        }
        Ok((!all).then_some(out))
    }

    // --------------------------------------------------------------- populate
}
