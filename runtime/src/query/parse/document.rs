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
                    return Err(QueryError::Invalid(format!(
                        "Invalid parameter at 'status'. Expected 'published' or 'draft', received: {}",
                        other.js_string()
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
            Some(QsValue::String(s)) => {
                if strict {
                    check_locale(s, "locale")?;
                }
                vec![s.clone()]
            }
            Some(QsValue::Array(items)) => {
                let strings = items.iter().filter_map(QsValue::as_str);
                if !strict {
                    // Outside strict mode an empty code stays, and matches nothing.
                    strings.map(str::to_string).collect()
                } else {
                    // The document service keeps the non-empty strings (none: the default
                    // locale), and names each by its place among them.
                    let codes: Vec<String> = strings
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect();
                    for (i, c) in codes.iter().enumerate() {
                        check_locale(c, &format!("locale[{i}]"))?;
                    }
                    codes
                }
            }
            Some(object @ QsValue::Object(_)) => {
                if strict {
                    return Err(QueryError::InvalidReceived {
                        message: "Invalid parameter at 'locale'. Expected a string, array of strings, empty string, null, or undefined; received: object".into(),
                        received: serde_json::from_str(&object.to_json()).unwrap_or_default(),
                    });
                }
                // An object names no locale: nothing matches (non-localized types ignore it).
                return Ok(if localized {
                    LocaleSelector::Codes(Vec::new())
                } else {
                    LocaleSelector::Default
                });
            }
        };
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

/// The largest locale code the document service accepts.
const MAX_LOCALE_LENGTH: usize = 35;

/// The document service's `checkLocale` for one code at `path` (`locale`, `locale[1]`):
/// `*`, or a BCP 47-style code (`/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/`) of at most 35
/// characters, each failure with its own message.
fn check_locale(code: &str, path: &str) -> Result<(), QueryError> {
    if code == "*" {
        return Ok(());
    }
    let reason = if code.is_empty() {
        "Locale cannot be empty".to_string()
    } else if code.chars().count() > MAX_LOCALE_LENGTH {
        format!("Locale exceeds maximum length of {MAX_LOCALE_LENGTH} characters")
    } else if !is_bcp47(code) {
        "Locale must be a valid BCP 47 format (e.g. en, en-US, zh-Hans)".to_string()
    } else {
        return Ok(());
    };
    Err(QueryError::Invalid(format!(
        "Invalid parameter at '{path}'. {reason}."
    )))
}

fn is_bcp47(s: &str) -> bool {
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or_default();
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}
