//! The user's schema files as generated code embeds them: each content-type and component
//! file of a loaded model, with its path relative to the schemas root
//! (`api/article/content-types/article/schema.json`, `components/shared/seo.json`) and its
//! text exactly as on disk.

use std::path::{Path, PathBuf};

use strata_runtime::schema::{Model, Origin};

use crate::CodegenError;

/// One schema file: its path relative to the schemas root (with `/`) and its JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFile {
    /// `api/<api>/content-types/<name>/schema.json` or `components/<category>/<name>.json`.
    pub path: String,
    /// The file's text.
    pub text: String,
    /// Where it was read from (for `cargo:rerun-if-changed`); `None` for in-memory files.
    pub source: Option<PathBuf>,
}

/// The relative path of a schema file: the last `depth` components of `source`.
fn relative(source: &Path, depth: usize) -> Option<String> {
    let parts: Vec<String> = source
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let start = parts.len().checked_sub(depth)?;
    Some(parts.get(start..)?.join("/"))
}

/// Reads the user schema files (content types and components, not the built-ins) that
/// `model` was loaded from, in the model's order (content types by uid, then components).
pub fn schema_files(model: &Model) -> Result<Vec<SchemaFile>, CodegenError> {
    let mut files = Vec::new();
    for schema in model.schemas() {
        let depth = match schema.origin {
            Origin::Api => 5,
            Origin::Component => 3,
            Origin::BuiltIn => continue,
        };
        let path = relative(&schema.source, depth).ok_or_else(|| CodegenError::SchemaPath {
            path: schema.source.clone(),
        })?;
        let text = std::fs::read_to_string(&schema.source).map_err(|e| CodegenError::Io {
            path: schema.source.clone(),
            source: e,
        })?;
        files.push(SchemaFile {
            path,
            text,
            source: Some(schema.source.clone()),
        });
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_keep_the_tree_below_the_root() {
        let p = Path::new("/x/schemas/api/article/content-types/article/schema.json");
        assert_eq!(
            relative(p, 5).as_deref(),
            Some("api/article/content-types/article/schema.json")
        );
        let c = Path::new("schemas/components/shared/seo.json");
        assert_eq!(
            relative(c, 3).as_deref(),
            Some("components/shared/seo.json")
        );
        assert_eq!(relative(Path::new("a.json"), 3), None);
    }
}
