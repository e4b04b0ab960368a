//! SDK clients and workers at the SDK's defaults, and the durable history read back from the
//! server's control plane, so every scenario asserts on what the server stored.

use std::future::Future;
use std::time::{Duration, Instant};

use durable_workflow::{Client, Uuid, Value, Worker};
use tokio::sync::oneshot;
use tokio::task::JoinError;

use crate::server::{OPERATOR_TOKEN, WORKER_TOKEN};

/// How long a durable outcome may take to appear on a loaded 2-core machine; a healthy run gets
/// there well under a second after its timers or timeouts are due.
pub const DEADLINE: Duration = Duration::from_secs(60);

pub type Outcome<T = ()> = Result<T, String>;

pub fn new_id(prefix: &str) -> String {
    format!("{prefix}-{}", &Uuid::new_v4().simple().to_string()[..12])
}

/// An SDK client with the operator token for the control plane and the worker token for
/// workers; nothing else set (no protocol pin).
pub fn sdk_client(url: &str, control_token: &str, worker_token: &str) -> Outcome<Client> {
    Client::builder(url)
        .control_token(Some(control_token.to_string()))
        .worker_token(Some(worker_token.to_string()))
        .build()
        .map_err(|e| format!("client: {e}"))
}

pub fn conformance_client(url: &str) -> Outcome<Client> {
    sdk_client(url, OPERATOR_TOKEN, WORKER_TOKEN)
}

/// An SDK worker for one scenario with its own worker id. The SDK's default id is
/// `rust-worker-<pid>-<millis>` (lib.rs@4.10.2 `default_worker_id`), so two scenarios of this one
/// process that create workers in the same millisecond would share an id, against any server; the
/// defaults themselves are covered by `workflows::registers_at_the_sdk_defaults`.
pub fn scenario_worker(client: Client, task_queue: &str) -> Worker {
    Worker::new(client, task_queue).worker_id(format!("{task_queue}-worker"))
}

/// Runs `body` while an SDK worker polls in the background, then stops the worker. The worker's
/// own error (a refused registration, say) fails the scenario at once instead of at the deadline.
pub async fn serve<T>(worker: Worker, body: impl Future<Output = Outcome<T>>) -> Outcome<T> {
    let (stop, stopped) = oneshot::channel::<()>();
    let mut task = tokio::spawn(async move {
        worker
            .run_until(async move {
                let _ = stopped.await;
            })
            .await
    });
    tokio::pin!(body);
    let result = tokio::select! {
        result = &mut body => result,
        ended = &mut task => {
            return Err(format!("the SDK worker stopped before the scenario ended: {}", worker_end(ended)));
        }
    };
    let _ = stop.send(());
    let stopped = match tokio::time::timeout(DEADLINE, task).await {
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(ended) => Err(worker_end(ended)),
        Err(_) => Err(format!("the SDK worker did not stop within {DEADLINE:?}")),
    };
    match (result, stopped) {
        (Ok(value), Ok(())) => Ok(value),
        (Err(e), Ok(())) | (Ok(_), Err(e)) => Err(e),
        (Err(e), Err(w)) => Err(format!("{e}\n{w}")),
    }
}

fn worker_end(ended: Result<durable_workflow::Result<()>, JoinError>) -> String {
    match ended {
        Ok(Ok(())) => "the worker loop returned".into(),
        Ok(Err(e)) => format!("the worker loop ended with: {}", clip(&e.to_string())),
        Err(e) => format!("the worker task: {e}"),
    }
}

/// Reads history pages from the control plane (`GET /api/workflows/{id}/runs/{run}/history`).
#[derive(Clone)]
pub struct HistoryReader {
    http: reqwest::Client,
    url: String,
    token: String,
}

impl HistoryReader {
    pub fn new(url: &str, operator_token: &str) -> Self {
        HistoryReader {
            http: reqwest::Client::new(),
            url: url.trim_end_matches('/').to_string(),
            token: operator_token.to_string(),
        }
    }

    /// Every durable event of one run, following the server's page tokens.
    pub async fn history(&self, workflow_id: &str, run_id: &str) -> Outcome<Vec<Value>> {
        let mut events = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut query = vec![("page_size", "500".to_string())];
            if let Some(token) = &token {
                query.push(("next_page_token", token.clone()));
            }
            let response = self
                .http
                .get(format!(
                    "{}/api/workflows/{workflow_id}/runs/{run_id}/history",
                    self.url
                ))
                .query(&query)
                .bearer_auth(&self.token)
                .header("X-Namespace", "default")
                .header("X-Durable-Workflow-Control-Plane-Version", "2")
                .send()
                .await
                .map_err(|e| format!("history request: {e}"))?;
            let status = response.status();
            let page: Value = response
                .json()
                .await
                .map_err(|e| format!("history body: {e}"))?;
            if !status.is_success() {
                return Err(format!("history answered {status}: {page}"));
            }
            let page_events = page["events"].as_array().ok_or("history without events")?;
            events.extend(page_events.iter().cloned());
            token = page["next_page_token"].as_str().map(str::to_string);
            if token.as_deref().unwrap_or("").is_empty() {
                return Ok(events);
            }
        }
    }

    /// Polls the run's history until `until(events)` holds; fails naming `what` at the deadline.
    pub async fn wait_for(
        &self,
        workflow_id: &str,
        run_id: &str,
        what: &str,
        until: impl Fn(&[Value]) -> bool,
    ) -> Outcome<Vec<Value>> {
        let end = Instant::now() + DEADLINE;
        loop {
            let events = self.history(workflow_id, run_id).await?;
            if until(&events) {
                return Ok(events);
            }
            if Instant::now() >= end {
                return Err(format!(
                    "{what}: not in durable history within {DEADLINE:?}; history was {:?}",
                    types(&events)
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits for `event_type` in the run's history.
    pub async fn wait_for_event(
        &self,
        workflow_id: &str,
        run_id: &str,
        event_type: &str,
    ) -> Outcome<Vec<Value>> {
        self.wait_for(workflow_id, run_id, event_type, |events| {
            types(events).contains(&event_type)
        })
        .await
    }
}

pub fn types(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap_or("?"))
        .collect()
}

pub fn of_type<'a>(events: &'a [Value], event_type: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["event_type"] == event_type)
        .map(|e| &e["payload"])
        .collect()
}

/// The payload of the first `event_type` event, or a failure naming the history.
pub fn first<'a>(events: &'a [Value], event_type: &str) -> Outcome<&'a Value> {
    of_type(events, event_type)
        .into_iter()
        .next()
        .ok_or_else(|| format!("no {event_type} in {:?}", types(events)))
}

/// `assert_eq!` that fails the scenario instead of panicking.
#[macro_export]
macro_rules! check_eq {
    ($left:expr, $right:expr $(,)?) => {{
        let (left, right) = (&$left, &$right);
        if left != right {
            return Err(format!(
                "{}:{}: {} == {}\n  left: {:?}\n right: {:?}",
                file!(),
                line!(),
                stringify!($left),
                stringify!($right),
                left,
                right
            ));
        }
    }};
}

/// `assert!` that fails the scenario instead of panicking.
#[macro_export]
macro_rules! check {
    ($cond:expr $(, $($msg:tt)+)?) => {{
        if !$cond {
            return Err(format!(
                "{}:{}: {}{}",
                file!(),
                line!(),
                stringify!($cond),
                String::new() $(+ ": " + &format!($($msg)+))?
            ));
        }
    }};
}

/// The first 600 characters of a server answer: enough to read why, short enough to scan.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(600) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
