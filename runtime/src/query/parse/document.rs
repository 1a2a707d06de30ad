//! Which versions of a document: `locale`, `status`, `publicationFilter` and
//! `hasPublishedVersion`.

use super::*;

impl Parser<'_> {
    pub(super) fn status(&self, v: Option<&QsValue>) -> Result<Status, QueryError> {
        match v {
            None => Ok(Status::Published),
            Some(QsValue::String(s)) if s == "published" => Ok(Status::Published),
            Some(QsValue::String(s)) if s == "draft" || s.is_empty() => Ok(Status::Draft),
            Some(other) => {
                if self.config.documents_strict_params {
                    let received = match other {
                        QsValue::String(s) => s.clone(),
                        _ => other.to_json(),
                    };
                    return Err(QueryError::Invalid(format!(
                        "Invalid parameter at 'status'. Expected 'published' or 'draft', received: {received}"
                    )));
                }
                Ok(Status::Draft)
            }
        }
    }

    pub(super) fn locale(
        &self,
        schema: &Schema,
        v: Option<&QsValue>,
    ) -> Result<LocaleSelector, QueryError> {
        let strict = self.config.documents_strict_params;
        let localized = schema.is_content_type() && schema.localized;
        let codes: Vec<String> = match v {
            None | Some(QsValue::Null) => return Ok(LocaleSelector::Default),
            Some(QsValue::String(s)) if s.is_empty() => return Ok(LocaleSelector::Default),
            Some(QsValue::String(s)) => vec![s.clone()],
            Some(QsValue::Array(items)) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
            Some(QsValue::Object(_)) => {
                if strict {
                    return Err(QueryError::Invalid("Invalid parameter at 'locale'. Expected a string, array of strings, empty string, null, or undefined; received: object".into()));
                }
                // An object names no locale: nothing matches (non-localized types ignore it).
                return Ok(if localized {
                    LocaleSelector::Codes(Vec::new())
                } else {
                    LocaleSelector::Default
                });
            }
        };
        if strict {
            for c in &codes {
                if c != "*" && !is_bcp47(c) {
                    return Err(QueryError::Invalid("Invalid parameter at 'locale'. Locale must be a valid BCP 47 format (e.g. en, en-US, zh-Hans).".into()));
                }
            }
        }
        if !localized {
            return Ok(LocaleSelector::Default);
        }
        if codes.iter().any(|c| c == "*") {
            return Ok(LocaleSelector::All);
        }
        if codes.is_empty() {
            return Ok(LocaleSelector::Default);
        }
        Ok(LocaleSelector::Codes(codes))
    }

    pub(super) fn publication_filter(
        &self,
        q: &QsMap,
    ) -> Result<Option<PublicationFilter>, QueryError> {
        if let Some(v) = q.get("publicationFilter") {
            let s = v.as_str().unwrap_or_default();
            return match PublicationFilter::ALL.iter().find(|(_, n)| *n == s) {
                Some((p, _)) => Ok(Some(*p)),
                None => Err(QueryError::InvalidParam {
                    message: format!(
                        "Invalid value for 'publicationFilter'. Expected one of: {}.",
                        PublicationFilter::ALL
                            .iter()
                            .map(|(_, n)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    param: Param::Other("publicationFilter".into()),
                }),
            };
        }
        match q.get("hasPublishedVersion").and_then(QsValue::as_str) {
            // The deprecated flag looks at the whole document (every locale).
            Some("true") => Ok(Some(PublicationFilter::HasPublishedVersionDocument)),
            Some("false") => Ok(Some(PublicationFilter::NeverPublishedDocument)),
            _ => Ok(None),
        }
    }
}

fn is_bcp47(s: &str) -> bool {
    if s.len() > 35 {
        return false;
    }
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or_default();
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}
