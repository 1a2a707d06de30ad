//! Strapi's documentIds: 24 characters shaped like cuid2 ids, from the operating system's
//! randomness. Every row strata creates for a new document gets one (import, tokens, and
//! the writes of the content API).

use super::StoreError;

/// Generates documentIds shaped like Strapi's cuid2 ids: 24 characters, a lower-case
/// letter then 23 lower-case letters or digits, from the operating system's randomness.
#[derive(Debug, Default)]
pub struct DocumentIds {
    buf: Vec<u8>,
}

impl DocumentIds {
    /// A new generator.
    pub fn new() -> Self {
        Self::default()
    }

    fn byte(&mut self) -> Result<u8, StoreError> {
        if self.buf.is_empty() {
            let mut fresh = vec![0u8; 4096];
            getrandom::fill(&mut fresh)
                .map_err(|e| StoreError::Other(format!("no randomness for documentIds: {e}")))?;
            self.buf = fresh;
        }
        self.buf
            .pop()
            .ok_or_else(|| StoreError::Other("no randomness for documentIds".into()))
    }

    /// The next documentId.
    pub fn next_id(&mut self) -> Result<String, StoreError> {
        const ALPHABET: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";
        let mut id = String::with_capacity(24);
        while id.is_empty() {
            // Rejection sampling keeps the letters uniform (234 = 9 × 26).
            let b = self.byte()?;
            if b < 234 {
                id.push(char::from(ALPHABET[usize::from(b % 26)]));
            }
        }
        while id.len() < 24 {
            let b = self.byte()?;
            if b < 252 {
                id.push(char::from(ALPHABET[usize::from(b % 36)]));
            }
        }
        Ok(id)
    }
}

/// One fresh documentId (see [`DocumentIds`]).
pub fn generate_document_id() -> Result<String, StoreError> {
    DocumentIds::new().next_id()
}
