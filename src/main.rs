//! The `strata` command-line tool.

mod cli;

/// mimalloc: see the note on the dependency in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run()
}
