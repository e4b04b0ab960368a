//! Cancel and terminate sent by the SDK client to a run parked on a ten-minute timer.

use breakwater_rust_sdk_conformance::support::{
    conformance_client, first, new_id, scenario_worker, serve, types, Outcome,
};
use breakwater_rust_sdk_conformance::workflows::register_long_sleep;
use breakwater_rust_sdk_conformance::{check, check_eq};
use durable_workflow::{json, WorkflowCommandOptions};

use crate::Ctx;

#[derive(Clone, Copy, PartialEq)]
enum Action {
    Cancel,
    Terminate,
}

pub async fn cancel_from_the_client(ctx: Ctx) -> Outcome {
    close_from_the_client(ctx, Action::Cancel).await
}

pub async fn terminate_from_the_client(ctx: Ctx) -> Outcome {
    close_from_the_client(ctx, Action::Terminate).await
}

async fn close_from_the_client(ctx: Ctx, action: Action) -> Outcome {
    let (word, terminal, status) = match action {
        Action::Cancel => ("cancel", "WorkflowCancelled", "cancelled"),
        Action::Terminate => ("terminate", "WorkflowTerminated", "terminated"),
    };
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("q"), new_id(word));
    let handle = client
        .start_workflow("conformance.long-sleep", &queue, &wid, json!([]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let run = handle.run_id.clone().ok_or("start returned no run id")?;
    let mut worker = scenario_worker(client.clone(), &queue);
    register_long_sleep(&mut worker);
    let events = serve(worker, async {
        ctx.history
            .wait_for_event(&wid, &run, "TimerScheduled")
            .await?;
        let options = WorkflowCommandOptions::new().reason(format!("conformance {word}"));
        let sent = match action {
            Action::Cancel => handle.cancel(options).await,
            Action::Terminate => handle.terminate(options).await,
        }
        .map_err(|e| format!("{word}: {e}"))?;
        check_eq!(sent.workflow_id, wid);
        ctx.history.wait_for_event(&wid, &run, terminal).await
    })
    .await?;
    check_eq!(
        first(&events, terminal)?["reason"],
        json!(format!("conformance {word}"))
    );
    // The open timer closes with the run; it never fires.
    check!(
        !types(&events).contains(&"TimerFired"),
        "{:?}",
        types(&events)
    );
    check_eq!(types(&events).last().copied(), Some(terminal));
    let described = client
        .describe_workflow(&wid)
        .await
        .map_err(|e| format!("describe: {e}"))?;
    check_eq!(described.status.as_deref(), Some(status));
    Ok(())
}
