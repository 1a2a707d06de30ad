//! A whole request through the router (method, target, headers) never panics and never
//! gets a 500 (`fuzz/src/http_check.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    strata_fuzz::http_check::check_request(data);
});
