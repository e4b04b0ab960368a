//! Workflow queries through the Rust SDK: `Worker::register_query` handlers answer
//! `Client::query_workflow` from the run's committed history, routed as worker query tasks (the
//! real server's WorkflowQueryTaskBroker, server@11d35b7); a failing handler and an unknown name
//! come back as `Error::QueryFailed` with the real reasons and statuses.

use breakwater_rust_sdk_conformance::support::{
    conformance_client, new_id, scenario_worker, serve, types, Outcome,
};
use breakwater_rust_sdk_conformance::workflows::register_approval;
use breakwater_rust_sdk_conformance::{check, check_eq};
use durable_workflow::{json, ActivityError, Client, Error, Value};

use crate::Ctx;

/// A query that must fail: its error, as the SDK reports it, as `(status, reason)`.
async fn refused(client: &Client, wid: &str, name: &str) -> Outcome<(u16, String)> {
    match client.query_workflow(wid, name, json!([])).await {
        Err(Error::QueryFailed(failure)) => Ok((failure.status, failure.reason)),
        Err(other) => Err(format!("query {name}: expected QueryFailed, got {other}")),
        Ok(value) => Err(format!("query {name}: expected QueryFailed, got {value}")),
    }
}

pub async fn query_answered_and_refused(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("q"), new_id("queried"));
    let handle = client
        .start_workflow("conformance.approval", &queue, &wid, json!(["Ada"]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let run = handle.run_id.clone().ok_or("start returned no run id")?;
    let mut worker = scenario_worker(client.clone(), &queue);
    register_approval(&mut worker);
    worker.register_query(
        "conformance.approval",
        "approvals",
        |query, _args| async move {
            Ok(json!({
                "input": query.workflow_input().clone(),
                "approvals": query.signals("approve"),
                "run_status": query.run_status.clone(),
            }))
        },
    );
    worker.register_query(
        "conformance.approval",
        "sealed",
        |_query, _args| async move {
            Err::<Value, _>(ActivityError::new("LedgerSealed", "the ledger is sealed").into())
        },
    );
    serve(worker, async {
        ctx.history
            .wait_for_event(&wid, &run, "SignalWaitOpened")
            .await?;
        let open = client
            .query_workflow(&wid, "approvals", json!([]))
            .await
            .map_err(|e| format!("query while waiting: {e}"))?;
        check_eq!(open["input"], json!(["Ada"]));
        check_eq!(open["approvals"], json!([]));

        handle
            .signal("approve", json!(["grace"]))
            .await
            .map_err(|e| format!("signal: {e}"))?;
        let events = ctx
            .history
            .wait_for_event(&wid, &run, "WorkflowCompleted")
            .await?;
        // A closed run is answered too.
        let closed = client
            .query_workflow_run(&wid, &run, "approvals", json!([]))
            .await
            .map_err(|e| format!("query of the closed run: {e}"))?;
        check_eq!(closed["approvals"], json!([["grace"]]));
        check_eq!(closed["run_status"], json!("completed"));
        check_eq!(
            refused(&client, &wid, "sealed").await?,
            (409, "query_rejected".to_string())
        );
        check_eq!(
            refused(&client, &wid, "nope").await?,
            (404, "rejected_unknown_query".to_string())
        );
        // Four queries later the history is what it was when the run completed.
        let after = ctx
            .history
            .wait_for_event(&wid, &run, "WorkflowCompleted")
            .await?;
        check_eq!(types(&after), types(&events));
        check!(
            !types(&after).iter().any(|t| t.contains("Query")),
            "{:?}",
            types(&after)
        );
        Ok(())
    })
    .await
}
