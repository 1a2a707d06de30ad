//! What every HTTP request must satisfy, for the `http_request` fuzz target and for its
//! stable replay (`tests/http_fuzz_replay.rs` includes this file): decoded from the input
//! bytes (a method, a target, headers), it goes through the real router over a copy of the
//! blog's database (read-only), and is answered without a panic and without a 500.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use tower::ServiceExt;

use strata_runtime::http::{AppState, ServerConfig, router};
use strata_runtime::store::{DatabaseUrl, Store};

/// The router and the runtime it runs on.
struct Server {
    runtime: tokio::runtime::Runtime,
    app: axum::Router,
}

/// The blog fixture, from the repository root or from `fuzz/`.
fn blog() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        here.join("tests/fixtures/blog"),
        here.join("../tests/fixtures/blog"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
    .unwrap_or_else(|| panic!("no tests/fixtures/blog near {}", here.display()))
}

static SERVER: LazyLock<Server> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("strata-http-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let db = dir.join("blog.db");
    if let Err(e) = std::fs::copy(blog().join("strapi.db"), &db) {
        panic!("cannot copy the blog database: {e}");
    }
    let model = match strata_runtime::schema::load(&blog().join("schemas")) {
        Ok(m) => Arc::new(m),
        Err(e) => panic!("the blog model does not load: {e}"),
    };
    let url = match DatabaseUrl::parse(&format!("sqlite://{}?mode=ro", db.display())) {
        Ok(u) => u,
        Err(e) => panic!("{e}"),
    };
    let store = match Store::open_existing(&url, model, 1) {
        Ok(s) => Arc::new(s),
        Err(e) => panic!("cannot open the blog database: {e}"),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("no runtime: {e}"),
    };
    let app = router(AppState::new(store, ServerConfig::default()));
    Server { runtime, app }
});

const METHODS: [Method; 7] = [
    Method::GET,
    Method::GET,
    Method::HEAD,
    Method::OPTIONS,
    Method::POST,
    Method::PUT,
    Method::DELETE,
];

/// The request an input stands for: its first byte picks the method; the bytes up to the
/// first newline are the target (`/` is put in front when missing); each later line is a
/// header, `name: value`. `None` when the `http` crate refuses the request (hyper answers
/// those itself before the router sees them).
pub fn request(data: &[u8]) -> Option<Request<Body>> {
    let (&first, rest) = data.split_first()?;
    let method = METHODS[usize::from(first) % METHODS.len()].clone();
    let text = String::from_utf8_lossy(rest);
    let mut lines = text.split('\n');
    let target = lines.next().unwrap_or_default();
    let target = if target.starts_with('/') {
        target.to_string()
    } else {
        format!("/{target}")
    };
    let mut builder = Request::builder().method(method).uri(target);
    for line in lines.take(32) {
        let (name, value) = line.split_once(':')?;
        builder = builder.header(name.trim(), value.trim());
    }
    builder.body(Body::empty()).ok()
}

/// Runs the request `data` stands for through the router; panics on a 500.
pub fn check_request(data: &[u8]) {
    let Some(request) = request(data) else {
        return;
    };
    let described = format!("{} {}", request.method(), request.uri());
    let server = &*SERVER;
    let response = match server.runtime.block_on(server.app.clone().oneshot(request)) {
        Ok(r) => r,
        Err(e) => match e {},
    };
    assert!(
        response.status() != StatusCode::INTERNAL_SERVER_ERROR,
        "500 for {described}"
    );
}
