//! Generates `$OUT_DIR/strata_generated.rs` from `schemas/`; cargo reruns this when a
//! schema file changes.

fn main() {
    if let Err(e) = strata_codegen::Builder::new().schemas("schemas").generate() {
        // Every problem in the schemas, one per line, in cargo's build output.
        eprintln!("{e}");
        std::process::exit(1);
    }
}
