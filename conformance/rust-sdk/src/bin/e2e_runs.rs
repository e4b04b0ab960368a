//! Makes Rust-SDK runs for the console's e2e spec (e2e/rust-sdk.spec.ts): a retried activity and
//! a non-retryable failure. Reads DW_URL, DW_CONTROL_TOKEN, DW_WORKER_TOKEN and RUN_SUFFIX, serves
//! both runs with an SDK worker until they close, and prints
//! {"retried": [workflow_id, run_id], "refused": [...]} as its last line. Idempotent per
//! RUN_SUFFIX: a workflow id that already exists is reused, not started again.

use std::time::{Duration, Instant};

use breakwater_rust_sdk_conformance::support::{sdk_client, serve, Outcome};
use breakwater_rust_sdk_conformance::workflows::{
    register_non_retryable, register_retry, NON_RETRYABLE_WORKFLOW, REFUSE_BY_TYPE, RETRY_WORKFLOW,
};
use durable_workflow::{json, Client, Value, Worker};

const QUEUE: &str = "e2e-rust-sdk";

fn env(name: &str) -> Outcome<String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}

/// Starts the run unless its id exists already; answers the current run id.
async fn start(
    client: &Client,
    workflow_id: &str,
    workflow_type: &str,
    args: Value,
) -> Outcome<String> {
    if let Ok(found) = client.describe_workflow(workflow_id).await {
        return found
            .run_id
            .ok_or_else(|| format!("{workflow_id} has no run id"));
    }
    let handle = client
        .start_workflow(workflow_type, QUEUE, workflow_id, args)
        .await
        .map_err(|e| format!("start {workflow_id}: {e}"))?;
    handle
        .run_id
        .ok_or_else(|| format!("{workflow_id}: start returned no run id"))
}

#[tokio::main]
async fn main() -> Outcome {
    let suffix = std::env::var("RUN_SUFFIX").unwrap_or_else(|_| "1".into());
    let client = sdk_client(
        &env("DW_URL")?,
        &env("DW_CONTROL_TOKEN")?,
        &env("DW_WORKER_TOKEN")?,
    )?;
    let retried = format!("rust-sdk.backoff.{suffix}");
    let refused = format!("rust-sdk.type-refused.{suffix}");
    let retried_run = start(&client, &retried, RETRY_WORKFLOW, json!([3])).await?;
    let refused_run = start(
        &client,
        &refused,
        NON_RETRYABLE_WORKFLOW,
        json!([REFUSE_BY_TYPE]),
    )
    .await?;
    let mut worker = Worker::new(client.clone(), QUEUE);
    register_retry(&mut worker);
    register_non_retryable(&mut worker);
    serve(worker, async {
        let end = Instant::now() + Duration::from_secs(60);
        for workflow_id in [&retried, &refused] {
            while !client
                .describe_workflow(workflow_id)
                .await
                .map_err(|e| format!("describe {workflow_id}: {e}"))?
                .is_terminal()
            {
                if Instant::now() > end {
                    return Err(format!("{workflow_id} did not close within 60 s"));
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }
        Ok(())
    })
    .await?;
    println!(
        "{}",
        json!({"retried": [retried, retried_run], "refused": [refused, refused_run]})
    );
    Ok(())
}
