//! The recorded Strapi write sequences (`tests/fixtures/blog/writes/`, format
//! `strata-write-recording/1`), replayed against strata's server on SQLite, PostgreSQL and
//! MariaDB, each backend's recordings on that backend.
//!
//! Each sequence runs on a fresh copy of the blog seed ([`database`]: Strapi's SQLite file,
//! or its PostgreSQL or MariaDB dump; for the `ext` and `edge` models, migrated by strata to the
//! blog plus `writes/<model>/schemas`) with the recorder's API tokens and `setup:` grants
//! (tools/record_writes.py), served by its own server started after that setup. Every
//! step's request is sent as recorded, with the recording's documentIds replaced by those
//! strata gave the same documents; then, for each step:
//! - the answer: status, Content-Type and body (compare.py's rules);
//! - the database: every table before and after, read as the recorder reads it
//!   ([`snapshot`]) and diffed as it diffs them ([`db`]).
//!
//! Before comparing, what cannot be equal is normalised ([`normalise`]): documentIds
//! through the learned map, "now" timestamps (from 2025 on; the seed content is dated
//! 2024) to `"<time>"`, bcrypt hashes to `"<hash>"`, V8's JSON.parse messages. Row ids are
//! compared as they are: strata numbers rows as Strapi does, and on PostgreSQL and MariaDB
//! consumes ids as Strapi does. On PostgreSQL and MariaDB the order columns of link and
//! component tables are compared as a valid numbering for some breaking of ties, since
//! those databases number tied rows in a scan order a restored copy does not keep
//! ([`order`]); on SQLite they are compared exactly. The steps where strata answers a 4xx
//! on purpose where Strapi crashed are listed, with their reasons, in
//! `writes/deviations.json` ([`deviations`]).
//!
//! `write_sequences_replay_on_{sqlite,postgres,mysql}` replay every recording of their
//! backend but those [`NOT_REPLAYED`] names with a reason (a server that cannot be
//! reached skips the test, except under `CI=true`), print `pass`/`FAIL` a sequence (seen
//! with `--nocapture`) and fail with every difference. On PostgreSQL and MariaDB two
//! sequences replay at once, each on its own database ([`workers`];
//! `STRATA_REPLAY_WORKERS=n` sets how many).
//! `STRATA_REPLAY_ONLY=name1,name2 cargo test --test write_replay -- --nocapture
//! write_sequences_replay_on_postgres` narrows one to those recordings, excluded ones too
//! (`graphql-*`: every name with that prefix). With `STRATA_REPLAY_SHOW=1` each answer
//! that differs is printed whole (`GOT …`) beside the first difference.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "write_replay/database.rs"]
mod database;
#[path = "write_replay/db.rs"]
mod db;
#[path = "write_replay/deviations.rs"]
mod deviations;
#[path = "write_replay/http.rs"]
mod http;
#[path = "write_replay/normalise.rs"]
mod normalise;
#[path = "write_replay/order.rs"]
mod order;
#[path = "write_replay/snapshot.rs"]
mod snapshot;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use strata::auth::{AuthSecrets, Secret};

use database::{Database, Run};
use deviations::Deviation;
use normalise::{DocumentIds, short};

/// The recorded sequences each backend's test does not replay, with the reason: every
/// other recording of the backend is replayed and must match.
const NOT_REPLAYED: &[(Backend, &str, &str)] = &[(
    Backend::Mysql,
    "cmp-update-with-ids",
    "Strapi renumbers `_cmps` several times in one request; the ties it creates on the way \
         are broken by MariaDB's scan order, which varies from run to run",
)];

/// The sequences `backend`'s test replays: every recording but [`NOT_REPLAYED`]'s.
fn replayed(backend: Backend) -> Vec<String> {
    all_names(backend)
        .into_iter()
        .filter(|n| {
            !NOT_REPLAYED
                .iter()
                .any(|(b, name, _)| *b == backend && name == n)
        })
        .collect()
}

/// Tables whose changes are not compared. Every table is, as the recorder diffs every
/// table (`sqlite_sequence` and `strapi_api_tokens` included), but Strapi's own settings
/// store: its telemetry cron writes `lastWeeklyUpdate` there once a week, at the minute of
/// the week the seed first booted, so a recording made that day (a Saturday for these)
/// catches it in whatever step runs then. strata never writes that table.
const IGNORED_TABLES: &[&str] = &["strapi_core_store_settings"];

/// How long to wait before looking at the database again when a step's changes differ:
/// Strapi writes a token's `last_used_at` after answering, and strata may too.
const SETTLE: Duration = Duration::from_millis(300);

/// Where a recording was made, and where it is replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
    Mysql,
}

impl Backend {
    /// The recordings' folder, also the name `STRATA_REPLAY_BACKEND` and
    /// `writes/deviations.json` use.
    fn folder(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
            Backend::Mysql => "mysql",
        }
    }
}

/// The content model a sequence runs on (`model:`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Model {
    /// The blog's schemas, as served by the other tests.
    Blog,
    /// The blog plus the types of `writes/ext/schemas` (constraints, single types).
    Ext,
    /// The blog plus the types of `writes/edge/schemas` (every attribute type, self
    /// relations, long names, keywords, nested components).
    Edge,
    /// The blog plus the types of `writes/shared/schemas` (components shared by a
    /// document's locales).
    Shared,
    /// The blog plus the types of `writes/required/schemas` (required components, zones
    /// and scalars; private fields of every kind).
    Required,
    /// The blog plus the types of `writes/i18n/schemas` (localized types with and without
    /// draft and publish, relations between them, a localized single type without it).
    I18n,
    /// The blog plus the types of `writes/conditions/schemas` (conditional fields).
    Conditions,
}

impl Model {
    /// The folder under `writes/` whose schemas this model adds to the blog's, if any.
    fn extension(self) -> Option<&'static str> {
        match self {
            Model::Blog => None,
            Model::Ext => Some("ext"),
            Model::Edge => Some("edge"),
            Model::Shared => Some("shared"),
            Model::Required => Some("required"),
            Model::I18n => Some("i18n"),
            Model::Conditions => Some("conditions"),
        }
    }
}

/// One recorded sequence.
struct Recording {
    name: String,
    model: Model,
    json: Value,
}

impl Recording {
    fn load(backend: Backend, name: &str) -> Recording {
        let file = writes().join(backend.folder()).join(format!("{name}.json"));
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let json: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["format"], "strata-write-recording/1", "{name}");
        let model = match json["model"].as_str() {
            Some("blog") => Model::Blog,
            Some("ext") => Model::Ext,
            Some("edge") => Model::Edge,
            Some("shared") => Model::Shared,
            Some("required") => Model::Required,
            Some("i18n") => Model::I18n,
            Some("conditions") => Model::Conditions,
            other => panic!("{name}: unknown model {other:?}"),
        };
        Recording {
            name: name.to_string(),
            model,
            json,
        }
    }

    fn steps(&self) -> &[Value] {
        self.json["steps"].as_array().map_or(&[], Vec::as_slice)
    }
}

fn writes() -> PathBuf {
    common::blog().join("writes")
}

/// The names of every recording of `backend`, sorted.
fn all_names(backend: Backend) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(writes().join(backend.folder()))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

/// The oracle's secrets (`config/admin.js`, `config/plugins.js`), which the recorder's
/// tokens and JWTs were made with.
fn lab_secrets() -> AuthSecrets {
    AuthSecrets {
        api_token_salt: Secret::new("lab-api-token-salt"),
        jwt_secret: Secret::new("lab-users-permissions-jwt-secret"),
    }
}

/// strata's server over a database, on loopback, in a thread of its own; dropping it stops
/// the server and waits for it.
struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Serves the database at `url` with the model of the folder `schemas`, with the
    /// event-loop budget `inline_budget`.
    fn start(url: &str, schemas: &Path, inline_budget: Option<Duration>) -> Server {
        let model = Arc::new(strata::schema::load(schemas).unwrap());
        let url = strata::store::DatabaseUrl::parse(url).unwrap();
        let store = Arc::new(strata::store::Store::open_existing(&url, model, 2).unwrap());
        // The oracle serves GraphQL too; the `graphql-*` sequences send mutations.
        let config = strata::http::ServerConfig {
            auth: lab_secrets(),
            // koa-body's `1mb`, the oracle's limit (`val-body-size`).
            max_body_bytes: 1024 * 1024,
            inline_budget,
            ..common::graphql_on()
        };
        let app = strata::http::router(strata::http::AppState::new(store, config));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                let listener = strata::http::target::EscapingListener(listener);
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await
                    .unwrap();
            });
        });
        Server {
            addr: rx.recv().unwrap(),
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Replays the sequence `name` of the run's backend: every difference, one line each (none:
/// the sequence passes).
fn replay(run: &mut Run, name: &str) -> Vec<String> {
    let recording = Recording::load(run.backend, name);
    let database = Database::prepare(run, &recording);
    let mut state = database.snapshot();
    let mut differences = baseline_differences(&recording, &state);
    let server = Server::start(
        &database.url(),
        &run.schemas(&recording.model),
        run.inline_budget,
    );
    let mut ids = DocumentIds::new(state.document_ids());
    // Order columns "for some tie-breaking" on the server backends ([`order`]).
    let mut order = match run.backend {
        Backend::Sqlite => None,
        Backend::Postgres | Backend::Mysql => Some(order::Tolerance::new(&state)),
    };
    let deviations = deviations::load();
    for step in recording.steps() {
        let n = step["n"].as_u64().unwrap_or_default();
        let label = format!(
            "{} #{n} {} {}",
            recording.name,
            step["request"]["method"].as_str().unwrap_or_default(),
            step["request"]["path"].as_str().unwrap_or_default(),
        );
        let deviation = deviations::find(&deviations, name, n, run.backend);
        let replayed = Replayed {
            addr: server.addr,
            database: &database,
            deviation,
        };
        let found = replayed.step(&mut state, &mut order, step, &mut ids);
        differences.extend(found.into_iter().map(|d| format!("{label}: {d}")));
    }
    drop(server);
    differences
}

/// The row counts before step 1 against the recording's `baseline` (the recorder's digests
/// are of raw values, so only the counts can be compared).
fn baseline_differences(recording: &Recording, state: &db::Snapshot) -> Vec<String> {
    let baseline = recording.json["baseline"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    baseline
        .iter()
        .filter(|(table, _)| !IGNORED_TABLES.contains(&table.as_str()))
        .filter_map(|(table, summary)| {
            let want = summary["rows"].as_u64().map(|n| n as usize);
            let got = state.rows(table);
            (want != got).then(|| {
                format!(
                    "{} baseline: {table} holds {got:?} rows, the recording's {want:?}",
                    recording.name
                )
            })
        })
        .collect()
}

/// One step being replayed: where it is sent, the database it changes, and its reviewed
/// deviation, if it has one.
struct Replayed<'a> {
    addr: SocketAddr,
    database: &'a Database,
    deviation: Option<&'a Deviation>,
}

impl Replayed<'_> {
    /// Sends the step, learns documentIds from its answer and changes, and returns its
    /// differences (at most one for the answer and one for the tables).
    fn step(
        &self,
        state: &mut db::Snapshot,
        order: &mut Option<order::Tolerance>,
        step: &Value,
        ids: &mut DocumentIds,
    ) -> Vec<String> {
        let crash = self.deviation.filter(|d| d.is_crash());
        let step = match self.deviation.filter(|d| !d.is_crash()) {
            Some(d) => &d.substituted(step),
            None => step,
        };
        let expected = &step["response"];
        let mut differences = Vec::new();
        match request(step, ids).and_then(|r| http::send(self.addr, &r)) {
            Ok(answer) => {
                ids.learn_from_answer(&expected["body"], &answer.body);
                differences.extend(match crash {
                    Some(deviation) => deviation.answer_difference(&answer),
                    None => answer_difference(expected, &answer, ids),
                });
            }
            Err(e) => differences.push(e),
        }
        let recorded = step["db"].as_object().cloned().unwrap_or_default();
        let expected_db = match crash {
            Some(_) => deviations::allowed_tables(&recorded),
            None => recorded,
        };
        differences.extend(self.tables(state, order, &expected_db, ids));
        differences
    }

    /// The difference of the step's changes from `expected`, looked at again after
    /// [`SETTLE`] if there is one; `state` becomes the tables after the step, and `order`
    /// the recorded order columns after it.
    fn tables(
        &self,
        state: &mut db::Snapshot,
        order: &mut Option<order::Tolerance>,
        expected: &Map<String, Value>,
        ids: &mut DocumentIds,
    ) -> Option<String> {
        let mut after = self.database.snapshot_since(Some(state));
        let mut found = table_difference(expected, state, &after, ids, order.as_ref());
        if found.0.is_some() {
            std::thread::sleep(SETTLE);
            after = self.database.snapshot_since(Some(&after));
            found = table_difference(expected, state, &after, ids, order.as_ref());
        }
        let (found, next) = found;
        if let Some(mut next) = next {
            if found.is_none() {
                // strata's numbering matched for some tie-breaking: from now on it is the
                // recorded one ([`order`]).
                let values = next.alignment(&after);
                if !values.is_empty() {
                    self.database.align(&values);
                    after = self.database.snapshot_since(Some(&after));
                }
            }
            next.resync(&after);
            *order = Some(next);
        }
        *state = after;
        found
    }
}

/// The recorded request with strata's documentIds (a generated body is sent as it is).
fn request(step: &Value, ids: &DocumentIds) -> Result<http::Request, String> {
    let recorded = &step["request"];
    let headers = recorded["headers"].as_object().into_iter().flatten();
    let body = http::recorded_body(recorded)?;
    let body = match recorded.get("body_gen") {
        Some(_) => body,
        None => body.map(|b| ids.apply_bytes(&b)),
    };
    Ok(http::Request {
        method: recorded["method"].as_str().unwrap_or_default().to_string(),
        path: ids.apply(recorded["path"].as_str().unwrap_or_default()),
        headers: headers
            .map(|(k, v)| (k.clone(), ids.apply(v.as_str().unwrap_or_default())))
            .collect(),
        body,
    })
}

/// The first difference of strata's answer from the recorded one, or `None`.
fn answer_difference(expected: &Value, got: &http::Answer, ids: &DocumentIds) -> Option<String> {
    let want_body = normalise::answer(&ids.apply_value(&expected["body"]));
    let got_body = normalise::answer(&got.body);
    if expected["status"].as_u64() != Some(u64::from(got.status)) {
        return Some(format!(
            "status: expected {}, got {}; body {}",
            expected["status"],
            got.status,
            short(&got.body)
        ));
    }
    if expected["content_type"].as_str() != got.content_type.as_deref() {
        return Some(format!(
            "content type: expected {}, got {:?}",
            expected["content_type"], got.content_type
        ));
    }
    if std::env::var_os("STRATA_REPLAY_SHOW").is_some() && want_body != got_body {
        eprintln!("GOT {got_body}");
    }
    common::first_difference(&want_body, &got_body, "$").map(|d| format!("answer {d}"))
}

/// The first difference of the tables' changes from `before` to `after` from the recorded
/// ones (`expected`, raw), or `None`. Learns documentIds from added rows first. With
/// `order` (PostgreSQL, MariaDB), the order columns of link and component tables are
/// compared by [`order::Tolerance::step`] and everything else exactly; the second value is
/// then the recorded order state after the step.
fn table_difference(
    expected: &Map<String, Value>,
    before: &db::Snapshot,
    after: &db::Snapshot,
    ids: &mut DocumentIds,
    order: Option<&order::Tolerance>,
) -> (Option<String>, Option<order::Tolerance>) {
    let got_raw = db::diff(before, after);
    ids.learn_from_rows(expected, &got_raw);
    let want_raw = match ids.apply_value(&Value::Object(expected.clone())) {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    let want = normalise::tables(&want_raw, IGNORED_TABLES);
    let got = normalise::tables(&got_raw, IGNORED_TABLES);
    let Some(order) = order else {
        let found = normalise::first_table_difference(&want, &got);
        return (found.map(|d| format!("tables {d}")), None);
    };
    let tables = order::order_tables(before, after, &[&want_raw, &got_raw]);
    let strict = normalise::first_table_difference(
        &order::without_order(&want, &tables),
        &order::without_order(&got, &tables),
    );
    let (ordered, next) = order.step(&tables, &want_raw, before, after, &got_raw);
    let found = strict.or(ordered).map(|d| format!("tables {d}"));
    (found, Some(next))
}

/// Replays `names` on `backend` and fails with every difference (skips, after a loud line,
/// when the backend's server cannot be reached outside CI).
fn check_replayed(backend: Backend) {
    check_replayed_with(backend, |_| {});
}

/// How many sequences of one backend replay at once, each on a database of its own
/// (`STRATA_REPLAY_WORKERS` overrides it). On PostgreSQL and MariaDB a sequence replayed
/// alone leaves the machine half idle while the server works (creating and dropping its
/// database's files, each commit's log write), so two replay at once: a single backend's
/// replay takes about half as long (BENCHMARKS §0zo; when both servers' replays run side
/// by side, as in `cargo test`, they already fill each other's waits). SQLite's replay
/// keeps a core busy alone.
fn workers(backend: Backend) -> usize {
    let default = match backend {
        Backend::Sqlite => 1,
        Backend::Postgres | Backend::Mysql => 2,
    };
    std::env::var("STRATA_REPLAY_WORKERS")
        .ok()
        .and_then(|w| w.parse().ok())
        .filter(|w| *w > 0)
        .unwrap_or(default)
}

/// The recordings `backend`'s test replays: [`replayed`]'s, or those `STRATA_REPLAY_ONLY`
/// names (`prefix*`: every name with that prefix).
fn selected(backend: Backend) -> Vec<String> {
    match std::env::var("STRATA_REPLAY_ONLY") {
        Ok(only) => {
            let only: Vec<&str> = only.split(',').map(str::trim).collect();
            all_names(backend)
                .into_iter()
                .filter(|n| {
                    only.iter().any(|o| match o.strip_suffix('*') {
                        Some(prefix) => n.starts_with(prefix),
                        None => n == o,
                    })
                })
                .collect()
        }
        Err(_) => replayed(backend),
    }
}

/// [`check_replayed`], with each worker's run changed by `configure` first. The workers
/// ([`workers`]) take the next name in turn; the differences are reported in the names'
/// order whatever order the sequences finish in.
fn check_replayed_with(backend: Backend, configure: impl Fn(&mut Run) + Sync) {
    let names = selected(backend);
    assert!(
        names.len() >= 90 || std::env::var_os("STRATA_REPLAY_ONLY").is_some(),
        "{} recordings",
        names.len()
    );
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(Vec::new());
    let worker = || {
        let Some(mut run) = Run::start(backend) else {
            return;
        };
        configure(&mut run);
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(name) = names.get(i) else {
                return;
            };
            let differences = replay(&mut run, name);
            // One line a sequence, for `--nocapture` while working on the write path.
            let verdict = if differences.is_empty() {
                "pass"
            } else {
                "FAIL"
            };
            println!("{verdict}  {name}");
            found.lock().unwrap().push((i, differences));
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..workers(backend) {
            scope.spawn(worker);
        }
    });
    let mut found = found.into_inner().unwrap();
    found.sort_by_key(|(i, _)| *i);
    let failures: Vec<String> = found.into_iter().flat_map(|(_, d)| d).collect();
    assert!(
        failures.is_empty(),
        "{} differences on {}:\n{}",
        failures.len(),
        backend.folder(),
        failures.join("\n")
    );
}

#[test]
fn write_sequences_replay_on_sqlite() {
    check_replayed(Backend::Sqlite);
}

/// On SQLite a write that has the database to itself runs on the event loop within the
/// reads' budget, and one that runs past it is interrupted, rolled back and run again on a
/// blocking thread. With a budget used up at once, every write whose statements run long
/// enough to be interrupted is run twice: every answer and every table must still be as
/// Strapi left them, so nothing of the interrupted run is left and nothing is written twice.
#[test]
fn write_sequences_replay_on_sqlite_past_the_event_loop_budget() {
    check_replayed_with(Backend::Sqlite, |run| {
        run.inline_budget = Some(Duration::ZERO)
    });
}

#[test]
fn write_sequences_replay_on_postgres() {
    check_replayed(Backend::Postgres);
}

#[test]
fn write_sequences_replay_on_mysql() {
    check_replayed(Backend::Mysql);
}

/// Every reviewed crash deviation is about a step that Strapi answered with a 500 in the
/// recording of each backend it names (so an entry cannot outlive its reason).
#[test]
fn deviations_are_recorded_crashes() {
    let all = deviations::load();
    assert!(!all.is_empty());
    for deviation in all.iter().filter(|d| d.is_crash()) {
        let backends = [Backend::Sqlite, Backend::Postgres, Backend::Mysql];
        for backend in backends.into_iter().filter(|b| deviation.applies_to(*b)) {
            let recording = Recording::load(backend, &deviation.sequence);
            let step = recording
                .steps()
                .iter()
                .find(|s| s["n"].as_u64() == Some(deviation.step));
            let status = step.map(|s| &s["response"]["status"]);
            assert_eq!(
                status.and_then(Value::as_u64),
                Some(500),
                "{} #{} on {}: a deviation from a step Strapi did not crash on",
                deviation.sequence,
                deviation.step,
                backend.folder()
            );
        }
    }
}
