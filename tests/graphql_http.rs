//! What `/graphql` answers before an operation runs, against the real server on
//! loopback, compared with the real Strapi 5.54 (`tests/fixtures/blog/oracle/
//! graphql_http.json`, recorded by `tools/cors/record.py --graphql`):
//! - the CORS headers of the GraphQL plugin's own `@koa/cors()` (`*` on every answer but
//!   a preflight, which `strapi::cors` answers);
//! - Apollo's 405 for the methods it does not take, after Strapi's authentication;
//! - Apollo's `runHttpQuery` checks of a `POST` body and of a `GET`'s parameters, and
//!   Strapi's body parser's `SyntaxError` before them;
//! - Strapi's authentication before anything Apollo refuses (bad credentials are a 401
//!   whatever the document).
//!
//! Each answer's status, `Vary`, `Allow` and `Access-Control-*` headers, and body (text,
//! Apollo's closing newline included) must be Strapi's; a `SyntaxError`'s message is
//! V8's `JSON.parse` wording in Strapi and serde_json's in strata, so only its name and
//! status are compared.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::Value;

/// The headers compared: `Vary`, `Allow` and `Access-Control-*`.
fn kept(headers: &[(String, String)]) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = headers
        .iter()
        .filter(|(k, _)| k == "vary" || k == "allow" || k.starts_with("access-control-"))
        .map(|(k, v)| {
            // strata says `Vary` twice (`accept-encoding`, then `Origin`); Strapi once.
            let v = if k == "vary" {
                "Origin".to_string()
            } else {
                v.clone()
            };
            (k.clone(), v)
        })
        .collect();
    kept.sort();
    kept.dedup();
    kept
}

fn same_body(strapi: &str, strata: &str) -> bool {
    let parsed = |t: &str| serde_json::from_str::<Value>(t).unwrap_or(Value::Null);
    let (a, b) = (parsed(strapi), parsed(strata));
    if a["error"]["name"] == "SyntaxError" {
        return b["error"]["name"] == "SyntaxError" && a["error"]["status"] == b["error"]["status"];
    }
    // Strapi's own answers (a 401) are compact JSON; Apollo's end with a newline.
    strapi == strata || (a == b && a["error"].is_object() && !strapi.ends_with('\n'))
}

#[test]
fn graphql_http_answers_as_strapi() {
    let addr = common::start_blog_server_with("graphql-http", common::graphql_on());
    let recorded = common::recorded_requests("graphql_http.json");
    assert_eq!(recorded.len(), 40);
    let mut failures = Vec::new();
    for recorded in &recorded {
        let case = &recorded.case;
        let (method, target) = (recorded.method.as_str(), recorded.target.as_str());
        let headers = recorded.headers();
        let (status, got, body) = common::http_request_with_body(
            addr,
            method,
            &common::encode(target),
            &headers,
            case["body"].as_str(),
        );
        let expected: Vec<(String, String)> = kept(
            &case["response_headers"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect::<Vec<_>>(),
        );
        let got = kept(&got);
        let text = String::from_utf8_lossy(&body);
        let strapi_text = case["response_text"].as_str().unwrap();
        let status_ok = u64::from(status) == case["status"].as_u64().unwrap();
        let body_ok = method == "HEAD" || same_body(strapi_text, &text);
        if !status_ok || got != expected || !body_ok {
            failures.push(format!(
                "{method} {target} {headers:?} {:?}:\n  strata {status} {got:?} {text:?}\n  Strapi {} {expected:?} {strapi_text:?}",
                case["body"], case["status"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
