//! `strata check`: load and validate a content model, then print a summary and the
//! database layout. Exits with status 1 and one line per problem when the model is invalid.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use strata_runtime::schema::{self, AttributeKind, Model, Origin, SchemaKind};
use strata_runtime::store::{DatabaseUrl, open};

/// Runs `strata check`.
pub fn run(dir: &Path, summary_only: bool, database: Option<&str>) -> ExitCode {
    match schema::load(dir) {
        Ok(model) => {
            let mut out = std::io::stdout().lock();
            let _ = write_report(&mut out, &model, summary_only);
            match database {
                Some(url) => check_database(url, &model),
                None => ExitCode::SUCCESS,
            }
        }
        Err(errors) => {
            let _ = write!(std::io::stderr().lock(), "{errors}");
            ExitCode::FAILURE
        }
    }
}

/// Checks a database against the model: one line on success, one per problem otherwise.
fn check_database(url: &str, model: &Model) -> ExitCode {
    let checked = DatabaseUrl::parse(url).and_then(|u| open::verify(&u, model).map(|p| (u, p)));
    match checked {
        Ok((u, problems)) if problems.is_empty() => {
            println!("database {u}: has every table and column of the model");
            ExitCode::SUCCESS
        }
        Ok((u, problems)) => {
            eprintln!("database {u}: {} problems:", problems.len());
            for p in problems {
                eprintln!("  {p}");
            }
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the summary and, unless `summary_only`, the layout.
pub fn write_report(out: &mut dyn Write, model: &Model, summary_only: bool) -> std::io::Result<()> {
    let user: Vec<_> = model
        .schemas()
        .iter()
        .filter(|s| s.origin == Origin::Api)
        .collect();
    let collections = user
        .iter()
        .filter(|s| s.kind == SchemaKind::CollectionType)
        .count();
    let singles = user
        .iter()
        .filter(|s| s.kind == SchemaKind::SingleType)
        .count();
    let components: Vec<_> = model.components().collect();
    let own = user.iter().copied().chain(components.iter().copied());
    let (mut attributes, mut relations) = (0, 0);
    for s in own {
        attributes += s.attributes.len();
        relations += s
            .attributes
            .iter()
            .filter(|a| matches!(a.kind, AttributeKind::Relation(_)))
            .count();
    }
    let layout = model.database_layout();
    writeln!(
        out,
        "ok: {} content types ({collections} collection, {singles} single), {} components, {attributes} attributes, {relations} relations, {} tables (with {} built-in types)",
        user.len(),
        components.len(),
        layout.tables.len(),
        model
            .content_types()
            .filter(|s| s.origin == Origin::BuiltIn)
            .count(),
    )?;
    if summary_only {
        return Ok(());
    }
    writeln!(out)?;
    for s in model.schemas() {
        let flags = [
            (s.draft_and_publish, "draft&publish"),
            (s.localized, "localized"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(", ");
        let path = match s.kind {
            _ if s.origin == Origin::BuiltIn => " (built-in)".to_string(),
            SchemaKind::Component => String::new(),
            SchemaKind::CollectionType => format!(" /api/{}", s.plural_name),
            SchemaKind::SingleType => format!(" /api/{}", s.singular_name),
        };
        writeln!(
            out,
            "{}{path} → {}{}",
            s.uid,
            s.layout.table,
            if flags.is_empty() {
                String::new()
            } else {
                format!(" [{flags}]")
            }
        )?;
    }
    writeln!(out)?;
    for t in &layout.tables {
        let cols = t
            .columns
            .iter()
            .map(|c| format!("{} {}", c.name, c.ty.sqlite_decl()))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(out, "table {} ({cols})", t.name)?;
        for ix in &t.indexes {
            writeln!(
                out,
                "  {}index {} ({})",
                if ix.unique { "unique " } else { "" },
                ix.name,
                ix.columns.join(", ")
            )?;
        }
    }
    Ok(())
}
