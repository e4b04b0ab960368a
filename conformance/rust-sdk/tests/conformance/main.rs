//! The suite's own harness (Cargo.toml: `harness = false`): one embedded server for every
//! scenario, the scenarios run concurrently on one tokio runtime, libtest-style lines
//! (`test <name> ... ok`, `test result: …`) and, when RUST_SDK_JUNIT names a file, a junit report
//! that scripts/test-summary.mjs counts. A server that cannot start fails every scenario.
//! Arguments that do not start with `-` filter scenarios by name, as libtest's do.

mod activities;
mod lifecycle;
mod queries;
mod updates;
mod workflows;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use breakwater_rust_sdk_conformance::server::{EmbeddedServer, OPERATOR_TOKEN};
use breakwater_rust_sdk_conformance::support::{HistoryReader, Outcome};

/// What every scenario gets: the server's address and a reader of its durable history.
#[derive(Clone)]
pub struct Ctx {
    pub url: String,
    pub history: HistoryReader,
}

type Scenario = fn(Ctx) -> Pin<Box<dyn Future<Output = Outcome> + Send>>;

macro_rules! scenarios {
    ($($module:ident :: $name:ident),* $(,)?) => {
        &[$((concat!(stringify!($module), "::", stringify!($name)), |ctx| Box::pin($module::$name(ctx)))),*]
    };
}

const SCENARIOS: &[(&str, Scenario)] = scenarios![
    workflows::registers_at_the_sdk_defaults,
    activities::retried_activity_then_succeeds,
    activities::non_retryable_failure,
    activities::heartbeat_timeout,
    workflows::timer,
    workflows::signal_satisfies_a_wait,
    workflows::child_workflow,
    workflows::continue_as_new,
    lifecycle::cancel_from_the_client,
    lifecycle::terminate_from_the_client,
    queries::query_answered_and_refused,
    updates::update_completed_and_failed,
];

struct Result_ {
    name: &'static str,
    outcome: Outcome,
    took: Duration,
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let selected: Vec<_> = SCENARIOS
        .iter()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();
    let started = Instant::now();
    println!(
        "\nrunning {} test{}",
        selected.len(),
        if selected.len() == 1 { "" } else { "s" }
    );
    let results = match EmbeddedServer::start() {
        Ok(server) => {
            let results = run(&server, &selected);
            if results.iter().any(|r| r.outcome.is_err()) {
                println!(
                    "\n---- embedded server output (last lines) ----\n{}",
                    server.output_tail(30)
                );
            }
            results
        }
        Err(e) => selected
            .iter()
            .map(|(name, _)| Result_ {
                name,
                outcome: Err(format!("the embedded server did not start: {e}")),
                took: Duration::ZERO,
            })
            .collect(),
    };
    let failed = report(
        &results,
        selected.len(),
        SCENARIOS.len() - selected.len(),
        started,
    );
    // exit() skips destructors: the server was stopped when `run`'s borrow ended above.
    std::process::exit(if failed > 0 || results.is_empty() {
        101
    } else {
        0
    });
}

fn run(server: &EmbeddedServer, selected: &[&(&'static str, Scenario)]) -> Vec<Result_> {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let ctx = Ctx {
        url: server.url.clone(),
        history: HistoryReader::new(&server.url, OPERATOR_TOKEN),
    };
    runtime.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for &&(name, scenario) in selected {
            let ctx = ctx.clone();
            set.spawn(async move {
                let t0 = Instant::now();
                // A panic in the SDK or a scenario fails that scenario, not the suite.
                let outcome = match tokio::spawn(scenario(ctx)).await {
                    Ok(outcome) => outcome,
                    Err(e) => Err(format!("panicked: {e}")),
                };
                let took = t0.elapsed();
                println!(
                    "test {name} ... {}",
                    if outcome.is_ok() { "ok" } else { "FAILED" }
                );
                Result_ {
                    name,
                    outcome,
                    took,
                }
            });
        }
        let mut results = Vec::new();
        while let Some(done) = set.join_next().await {
            results.push(done.expect("scenario task"));
        }
        results
    })
}

/// Prints libtest's failure section and result line, writes the junit report; returns failures.
fn report(results: &[Result_], total: usize, filtered: usize, started: Instant) -> usize {
    let failures: Vec<_> = results.iter().filter(|r| r.outcome.is_err()).collect();
    if !failures.is_empty() {
        println!("\nfailures:");
        for r in &failures {
            println!(
                "\n---- {} ----\n{}",
                r.name,
                r.outcome.as_ref().unwrap_err()
            );
        }
        println!("\nfailures:");
        for r in &failures {
            println!("    {}", r.name);
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {filtered} filtered out; finished in {secs:.2}s\n",
        if failures.is_empty() { "ok" } else { "FAILED" },
        total - failures.len(),
        failures.len(),
    );
    if let Some(path) = std::env::var_os("RUST_SDK_JUNIT") {
        if let Err(e) = std::fs::write(&path, junit(results, secs)) {
            eprintln!("cannot write {}: {e}", path.to_string_lossy());
            return failures.len().max(1);
        }
    }
    failures.len()
}

fn junit(results: &[Result_], secs: f64) -> String {
    let failures = results.iter().filter(|r| r.outcome.is_err()).count();
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"rust-sdk-conformance\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"{secs:.3}\">\n",
        results.len()
    );
    for r in results {
        let (module, name) = r.name.split_once("::").unwrap_or(("conformance", r.name));
        xml += &format!(
            "  <testcase classname=\"{module}\" name=\"{name}\" time=\"{:.3}\"",
            r.took.as_secs_f64()
        );
        match &r.outcome {
            Ok(()) => xml += "/>\n",
            Err(e) => {
                let e = escape(e);
                let first = e.lines().next().unwrap_or("");
                xml +=
                    &format!(">\n    <failure message=\"{first}\">{e}</failure>\n  </testcase>\n");
            }
        }
    }
    xml + "</testsuite>\n</testsuites>\n"
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
