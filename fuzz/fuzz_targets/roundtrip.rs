//! What `parse_query` accepts, the printer prints back to the same query:
//! `parse(print(parse(raw))) == parse(raw)`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata_fuzz::check::check_roundtrip(data);
});
