//! Finding schema files on disk: Strapi's project layout (`src/api/…`, `src/components/…`),
//! the same tree under `schemas/`, or the tree directly in the given folder. Also holds the
//! built-in schemas that every Strapi project has (upload, users-permissions, i18n).

use std::path::{Path, PathBuf};

use super::error::{Problem, SchemaError};

/// A schema file before resolution: its uid, where it came from and its parsed JSON.
#[derive(Debug, Clone)]
pub(crate) struct SourceFile {
    /// The uid derived from the file's place in the tree.
    pub uid: String,
    /// API content type, component or built-in.
    pub origin: super::model::Origin,
    /// The file path.
    pub path: PathBuf,
    /// For components: (category, file stem).
    pub component: Option<(String, String)>,
    /// The parsed JSON (an error was already reported when parsing failed).
    pub json: serde_json::Value,
}

/// The built-in schemas, as Strapi 5 defines them, with their uids.
const BUILT_INS: &[(&str, &str)] = &[
    (
        "plugin::upload.file",
        include_str!("builtin/upload-file.json"),
    ),
    (
        "plugin::upload.folder",
        include_str!("builtin/upload-folder.json"),
    ),
    (
        "plugin::i18n.locale",
        include_str!("builtin/i18n-locale.json"),
    ),
    (
        "plugin::users-permissions.permission",
        include_str!("builtin/users-permissions-permission.json"),
    ),
    (
        "plugin::users-permissions.role",
        include_str!("builtin/users-permissions-role.json"),
    ),
    (
        "plugin::users-permissions.user",
        include_str!("builtin/users-permissions-user.json"),
    ),
];

/// Finds the folder holding `api/` and/or `components/`: `dir` itself, `dir/src` or `dir/schemas`.
pub(crate) fn find_root(dir: &Path) -> Option<PathBuf> {
    [dir.to_path_buf(), dir.join("src"), dir.join("schemas")]
        .into_iter()
        .find(|candidate| candidate.join("api").is_dir() || candidate.join("components").is_dir())
}

/// Reads every schema file under `dir` plus the built-ins. Problems are pushed to `errors`;
/// files that fail to parse are skipped so that the other files are still checked.
pub(crate) fn read_sources(dir: &Path, errors: &mut Vec<SchemaError>) -> Vec<SourceFile> {
    let mut sources = Vec::new();
    let Some(root) = find_root(dir) else {
        errors.push(SchemaError {
            file: dir.to_path_buf(),
            path: "$".into(),
            problem: if dir.is_dir() {
                Problem::NoSchemas
            } else {
                Problem::Io("not a folder".into())
            },
        });
        return sources;
    };

    // api/<api>/content-types/<name>/schema.json
    for api_dir in sorted_dirs(&root.join("api"), errors) {
        let api = file_name(&api_dir);
        for ct_dir in sorted_dirs(&api_dir.join("content-types"), errors) {
            let name = file_name(&ct_dir);
            let path = ct_dir.join("schema.json");
            if !path.is_file() {
                continue;
            }
            if let Some(json) = read_json(&path, errors) {
                sources.push(SourceFile {
                    uid: format!("api::{api}.{name}"),
                    origin: super::model::Origin::Api,
                    path,
                    component: None,
                    json,
                });
            }
        }
    }

    // components/<category>/<name>.json
    for cat_dir in sorted_dirs(&root.join("components"), errors) {
        let category = file_name(&cat_dir);
        for path in sorted_files(&cat_dir, "json", errors) {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(json) = read_json(&path, errors) {
                sources.push(SourceFile {
                    uid: format!("{category}.{stem}"),
                    origin: super::model::Origin::Component,
                    path,
                    component: Some((category.clone(), stem)),
                    json,
                });
            }
        }
    }

    push_built_ins(&mut sources, errors);
    sources
}

fn push_built_ins(sources: &mut Vec<SourceFile>, errors: &mut Vec<SchemaError>) {
    for (uid, text) in BUILT_INS {
        let path = PathBuf::from(format!("<built-in>/{uid}"));
        match serde_json::from_str(text) {
            Ok(json) => sources.push(SourceFile {
                uid: (*uid).to_string(),
                origin: super::model::Origin::BuiltIn,
                path,
                component: None,
                json,
            }),
            Err(e) => errors.push(SchemaError {
                file: path,
                path: "$".into(),
                problem: Problem::Json(e.to_string()),
            }),
        }
    }
}

/// Schema files given in memory as (path relative to the schemas root, JSON text), e.g.
/// `("api/article/content-types/article/schema.json", "{…}")` or
/// `("components/shared/seo.json", "{…}")`, plus the built-ins. Used by generated code,
/// which embeds the schema files it was generated from.
pub(crate) fn embedded_sources(
    files: &[(&str, &str)],
    errors: &mut Vec<SchemaError>,
) -> Vec<SourceFile> {
    let mut sources = Vec::new();
    for (rel, text) in files {
        let path = PathBuf::from(rel);
        let parts: Vec<&str> = rel.split('/').collect();
        let (uid, origin, component) = match parts.as_slice() {
            ["api", api, "content-types", name, "schema.json"] => (
                format!("api::{api}.{name}"),
                super::model::Origin::Api,
                None,
            ),
            ["components", category, file] if file.ends_with(".json") => {
                let stem = file.trim_end_matches(".json");
                (
                    format!("{category}.{stem}"),
                    super::model::Origin::Component,
                    Some(((*category).to_string(), stem.to_string())),
                )
            }
            _ => {
                errors.push(SchemaError {
                    file: path,
                    path: "$".into(),
                    problem: Problem::Io(
                        "expected api/<api>/content-types/<name>/schema.json or components/<category>/<name>.json".into(),
                    ),
                });
                continue;
            }
        };
        match serde_json::from_str(text) {
            Ok(json) => sources.push(SourceFile {
                uid,
                origin,
                path,
                component,
                json,
            }),
            Err(e) => errors.push(SchemaError {
                file: path,
                path: "$".into(),
                problem: Problem::Json(e.to_string()),
            }),
        }
    }
    push_built_ins(&mut sources, errors);
    sources
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read_json(path: &Path, errors: &mut Vec<SchemaError>) -> Option<serde_json::Value> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            errors.push(SchemaError {
                file: path.to_path_buf(),
                path: "$".into(),
                problem: Problem::Io(e.to_string()),
            });
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(v) => Some(v),
        Err(e) => {
            errors.push(SchemaError {
                file: path.to_path_buf(),
                path: "$".into(),
                problem: Problem::Json(e.to_string()),
            });
            None
        }
    }
}

fn sorted_entries(dir: &Path, errors: &mut Vec<SchemaError>) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return Vec::new();
    }
    match std::fs::read_dir(dir) {
        Ok(rd) => {
            let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
            v.sort();
            v
        }
        Err(e) => {
            errors.push(SchemaError {
                file: dir.to_path_buf(),
                path: "$".into(),
                problem: Problem::Io(e.to_string()),
            });
            Vec::new()
        }
    }
}

fn sorted_dirs(dir: &Path, errors: &mut Vec<SchemaError>) -> Vec<PathBuf> {
    sorted_entries(dir, errors)
        .into_iter()
        .filter(|p| p.is_dir())
        .collect()
}

fn sorted_files(dir: &Path, ext: &str, errors: &mut Vec<SchemaError>) -> Vec<PathBuf> {
    sorted_entries(dir, errors)
        .into_iter()
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect()
}
