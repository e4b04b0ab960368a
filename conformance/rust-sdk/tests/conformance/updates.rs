//! Workflow updates through the Rust SDK: `Worker::register_update` handlers answer
//! `Client::update_workflow` (which waits for completion) on the workflow task the server readies
//! for the accepted update (`workflow_update_id`); the worker answers `complete_update`, or
//! `fail_update` marked `non_retryable` as lib.rs@4.10.2 `execute_update_task` marks every handler
//! error. The server's answers and events are the real ones (WorkflowController::update@11d35b7,
//! DefaultWorkflowTaskBridge::applyCompleteUpdate / applyFailUpdate, workflow@8dc90d64).

use breakwater_rust_sdk_conformance::support::{
    conformance_client, new_id, of_type, scenario_worker, serve, types, Outcome,
};
use breakwater_rust_sdk_conformance::workflows::register_approval;
use breakwater_rust_sdk_conformance::{check, check_eq};
use durable_workflow::{json, ActivityError, Error, Value};

use crate::Ctx;

pub async fn update_completed_and_failed(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("u"), new_id("updated"));
    let handle = client
        .start_workflow("conformance.approval", &queue, &wid, json!(["Ada"]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let run = handle.run_id.clone().ok_or("start returned no run id")?;
    let mut worker = scenario_worker(client.clone(), &queue);
    register_approval(&mut worker);
    worker.register_update("conformance.approval", "rename", |_ctx, args| async move {
        Ok(json!({ "renamed": args }))
    });
    worker.register_update("conformance.approval", "seal", |_ctx, _args| async move {
        Err::<Value, _>(ActivityError::new("LedgerSealed", "the ledger is sealed").into())
    });
    serve(worker, async {
        ctx.history
            .wait_for_event(&wid, &run, "SignalWaitOpened")
            .await?;
        let renamed = client
            .update_workflow(&wid, "rename", json!(["grace"]), Some("rename-1"))
            .await
            .map_err(|e| format!("update rename: {e}"))?;
        check_eq!(renamed["renamed"], json!(["grace"]));
        // The same request id is the same update: its first receipt and result, nothing new.
        let again = client
            .update_workflow(&wid, "rename", json!(["grace"]), Some("rename-1"))
            .await
            .map_err(|e| format!("repeated update rename: {e}"))?;
        check_eq!(again, renamed);

        match client.update_workflow(&wid, "seal", json!([]), None).await {
            Err(Error::Http { status, body }) => {
                check_eq!(status.as_u16(), 422);
                let body: Value =
                    serde_json::from_str(&body).map_err(|e| format!("422 body: {e}"))?;
                check_eq!(body["update_status"], json!("failed"));
                check!(
                    body["failure_message"]
                        .as_str()
                        .unwrap_or_default()
                        .contains("the ledger is sealed"),
                    "{body}"
                );
            }
            other => return Err(format!("update seal: expected HTTP 422, got {other:?}")),
        }

        let events = ctx
            .history
            .wait_for(&wid, &run, "both updates closed", |events| {
                of_type(events, "UpdateCompleted").len() == 2
            })
            .await?;
        check_eq!(of_type(&events, "UpdateAccepted").len(), 2);
        check_eq!(of_type(&events, "UpdateApplied").len(), 1);
        let closed = of_type(&events, "UpdateCompleted");
        check_eq!(closed[0]["update_name"], json!("rename"));
        check!(closed[0].get("failure_id").is_none(), "{}", closed[0]);
        check_eq!(closed[1]["update_name"], json!("seal"));
        check_eq!(closed[1]["non_retryable"], json!(true));
        check_eq!(closed[1]["exception_type"], json!("UpdateFailed"));
        check!(closed[1]["failure_id"].is_string(), "{}", closed[1]);

        // The run is still waiting for its signal, and completes on it.
        handle
            .signal("approve", json!(["grace"]))
            .await
            .map_err(|e| format!("signal: {e}"))?;
        let done = ctx
            .history
            .wait_for_event(&wid, &run, "WorkflowCompleted")
            .await?;
        check!(
            !types(&done).contains(&"WorkflowFailed"),
            "{:?}",
            types(&done)
        );
        Ok(())
    })
    .await
}
