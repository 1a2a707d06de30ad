//! What the store returns: entries as JSON text, written straight from the rows.
//!
//! The read path never builds a `serde_json::Value` tree: each row is written as the text
//! of its object (in Strapi's key order), populated values are appended to their parent's
//! text, and the HTTP layer copies the entries into the envelope as they are. Building
//! maps key by key, then serializing them, was a third of a plain page's server time.
//! Programs that want values parse the text ([`Entry::to_value`], [`Entry::deserialize`]).

use serde::de::DeserializeOwned;
use serde_json::Value as Json;

/// One entry (a content-type object, a user) as JSON text: always a JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry(String);

impl Entry {
    /// Wraps the text of a JSON object written by the read path.
    pub(crate) fn from_json_bytes(bytes: Vec<u8>) -> Entry {
        // The read path writes only UTF-8 (strings come from `&str` and are escaped by
        // serde_json), so this never replaces anything; it is checked rather than assumed.
        Entry(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        )
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The JSON text, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The entry as a JSON value.
    pub fn to_value(&self) -> Json {
        serde_json::from_str(&self.0).unwrap_or(Json::Null)
    }

    /// The entry read into a type (a generated entry struct, say).
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.0)
    }
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Writes a JSON array of entries: `[e1,e2,…]`.
pub fn write_array<'a>(out: &mut Vec<u8>, entries: impl IntoIterator<Item = &'a Entry>) {
    out.push(b'[');
    for (i, e) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(e.0.as_bytes());
    }
    out.push(b']');
}
