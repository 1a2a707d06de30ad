//! `parse_query` never panics, and every error is a 400 in Strapi's error shape.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata_fuzz::check::check_parse(data);
});
