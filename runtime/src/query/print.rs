//! Printing a Query back to a canonical query string (see ast.rs for the canonical form).
