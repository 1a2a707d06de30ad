//! Cross-origin requests against the real server on loopback, compared with the answers
//! of the real Strapi 5.54 with its default `strapi::cors`
//! (`tests/fixtures/blog/oracle/cors.json`, recorded by `tools/cors/record.py`): the
//! status, `Vary: Origin`, and every `Access-Control-*` header. Also a configuration that
//! lists its origins refuses the others. The browser side is `tests/browser.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use strata::http::ServerConfig;
use strata::http::cors::CorsConfig;

/// The answer's `Vary` names `Origin`, and its `Access-Control-*` headers.
fn cors_headers(headers: &[(String, String)]) -> (bool, Vec<(String, String)>) {
    let vary = headers.iter().any(|(k, v)| {
        k == "vary"
            && v.split(',')
                .any(|t| t.trim().eq_ignore_ascii_case("origin"))
    });
    let mut acs: Vec<(String, String)> = headers
        .iter()
        .filter(|(k, _)| k.starts_with("access-control-"))
        .cloned()
        .collect();
    acs.sort();
    (vary, acs)
}

fn request(
    addr: std::net::SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    common::http_request(addr, method, &common::encode(target), headers)
}

#[test]
fn every_recorded_cors_answer_of_strapi() {
    let addr = common::start_blog_server("cors");
    let recorded = common::recorded_requests("cors.json");
    assert_eq!(recorded.len(), 12);
    let mut failures = Vec::new();
    for recorded in &recorded {
        let case = &recorded.case;
        let (method, target) = (recorded.method.as_str(), recorded.target.as_str());
        let headers = recorded.headers();
        let (status, got, body) = request(addr, method, target, &headers);
        let (vary, got) = cors_headers(&got);
        let mut expected: Vec<(String, String)> = case["response_headers"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| k.starts_with("access-control-"))
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        expected.sort();
        let preflight = method == "OPTIONS"
            && headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("access-control-request-method"));
        // A plain OPTIONS is no CORS request: the router answers it (200 with `Allow`).
        let status_ok = u64::from(status) == case["status"].as_u64().unwrap();
        if !status_ok || !vary || got != expected || (preflight && !body.is_empty()) {
            failures.push(format!(
                "{method} {target} {headers:?}: got {status} vary={vary} {got:?}, Strapi {} {expected:?}",
                case["status"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn listed_origins_are_served_and_others_refused() {
    let config = ServerConfig {
        cors: CorsConfig {
            origins: vec!["http://good.example".into()],
            ..CorsConfig::default()
        },
        ..ServerConfig::default()
    };
    let addr = common::start_blog_server_with("cors-listed", config);
    let target = "/api/articles?fields[0]=title";
    let (status, headers, _) = request(addr, "GET", target, &[("Origin", "http://good.example")]);
    assert_eq!(status, 200);
    let (vary, acs) = cors_headers(&headers);
    assert!(vary);
    assert!(acs.contains(&(
        "access-control-allow-origin".into(),
        "http://good.example".into()
    )));
    // Another origin: the answer carries no CORS header, so a browser withholds it.
    let (status, headers, _) = request(addr, "GET", target, &[("Origin", "http://evil.example")]);
    assert_eq!(status, 200);
    let (vary, acs) = cors_headers(&headers);
    assert!(vary && acs.is_empty(), "{acs:?}");
    // Its preflight is not answered as one either.
    let (status, headers, _) = request(
        addr,
        "OPTIONS",
        target,
        &[
            ("Origin", "http://evil.example"),
            ("Access-Control-Request-Method", "GET"),
            ("Access-Control-Request-Headers", "authorization"),
        ],
    );
    assert_ne!(status, 204);
    assert!(cors_headers(&headers).1.is_empty());
}
