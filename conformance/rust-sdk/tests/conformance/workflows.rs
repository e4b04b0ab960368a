//! Workflow commands from an SDK worker: registration at the SDK's defaults, a durable timer, a
//! signal satisfying a wait, a child workflow and continue-as-new.

use breakwater_rust_sdk_conformance::support::{
    clip, conformance_client, first, new_id, of_type, scenario_worker, serve, types, Outcome,
};
use breakwater_rust_sdk_conformance::workflows::{
    register_approval, register_countdown, register_parent_and_child, register_retry,
    register_timer,
};
use breakwater_rust_sdk_conformance::{check, check_eq};
use durable_workflow::{json, Worker};

use crate::activities::result_options;
use crate::Ctx;

/// The SDK at its defaults (worker protocol 1.20, runtime "rust") is let in: the server's
/// cluster/info passes the SDK's own check and registration is accepted (issue 39).
pub async fn registers_at_the_sdk_defaults(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let info = client
        .cluster_info()
        .await
        .map_err(|e| format!("cluster/info: {e}"))?;
    let mut worker = Worker::new(client, new_id("q"));
    register_retry(&mut worker);
    let registered = worker.register().await.map_err(|e| {
        let info = clip(&info["worker_protocol"].to_string());
        format!(
            "registration at the SDK's defaults refused: {}\ncluster/info worker_protocol: {info}",
            clip(&e.to_string())
        )
    })?;
    check!(
        registered.registered && !registered.worker_id.is_empty(),
        "{registered:?}"
    );
    Ok(())
}

pub async fn timer(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("q"), new_id("timer"));
    let handle = client
        .start_workflow("conformance.timer", &queue, &wid, json!([1]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let run = handle.run_id.clone().ok_or("start returned no run id")?;
    let mut worker = scenario_worker(client.clone(), &queue);
    register_timer(&mut worker);
    let events = serve(
        worker,
        ctx.history.wait_for_event(&wid, &run, "WorkflowCompleted"),
    )
    .await?;
    let order = types(&events);
    let at = |t: &str| order.iter().position(|o| *o == t);
    check!(
        at("TimerScheduled") < at("TimerFired") && at("TimerFired") < at("WorkflowCompleted"),
        "{order:?}"
    );
    check!(at("TimerScheduled").is_some(), "{order:?}");
    let (scheduled, fired) = (
        first(&events, "TimerScheduled")?,
        first(&events, "TimerFired")?,
    );
    check_eq!(scheduled["delay_seconds"], json!(1));
    check_eq!(fired["timer_id"], scheduled["timer_id"]);
    check_eq!(fired["sequence"], scheduled["sequence"]);
    check_eq!(
        handle
            .result(result_options())
            .await
            .map_err(|e| format!("result: {e}"))?,
        json!("woke")
    );
    Ok(())
}

pub async fn signal_satisfies_a_wait(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("q"), new_id("approval"));
    let handle = client
        .start_workflow("conformance.approval", &queue, &wid, json!([]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let run = handle.run_id.clone().ok_or("start returned no run id")?;
    let mut worker = scenario_worker(client.clone(), &queue);
    register_approval(&mut worker);
    let events = serve(worker, async {
        ctx.history
            .wait_for_event(&wid, &run, "SignalWaitOpened")
            .await?;
        handle
            .signal("approve", json!(["grace"]))
            .await
            .map_err(|e| format!("signal: {e}"))?;
        ctx.history
            .wait_for_event(&wid, &run, "WorkflowCompleted")
            .await
    })
    .await?;
    let opened = first(&events, "SignalWaitOpened")?;
    check_eq!(opened["signal_name"], json!("approve"));
    check_eq!(
        first(&events, "SignalReceived")?["signal_name"],
        json!("approve")
    );
    let applied = of_type(&events, "SignalApplied");
    check_eq!(applied.len(), 1,);
    check_eq!(applied[0]["signal_wait_id"], opened["signal_wait_id"]);
    let order = types(&events);
    let at = |t: &str| order.iter().position(|o| *o == t);
    check!(
        at("SignalWaitOpened") < at("SignalReceived")
            && at("SignalReceived") < at("WorkflowCompleted"),
        "{order:?}"
    );
    let result = handle
        .result(result_options())
        .await
        .map_err(|e| format!("result: {e}"))?;
    check_eq!(result, json!({"approved_by": "grace"}));
    Ok(())
}

pub async fn child_workflow(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("q"), new_id("parent"));
    let handle = client
        .start_workflow("conformance.parent", &queue, &wid, json!([21]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let run = handle.run_id.clone().ok_or("start returned no run id")?;
    let mut worker = scenario_worker(client.clone(), &queue);
    register_parent_and_child(&mut worker, &queue);
    let events = serve(
        worker,
        ctx.history.wait_for_event(&wid, &run, "WorkflowCompleted"),
    )
    .await?;
    let child_events: Vec<_> = types(&events)
        .into_iter()
        .filter(|t| t.starts_with("Child"))
        .collect();
    check_eq!(
        child_events,
        vec![
            "ChildWorkflowScheduled",
            "ChildRunStarted",
            "ChildRunCompleted"
        ]
    );
    let started = first(&events, "ChildRunStarted")?;
    let child_id = started["child_workflow_instance_id"]
        .as_str()
        .ok_or("no child id")?;
    let child_run = started["child_workflow_run_id"]
        .as_str()
        .ok_or("no child run id")?;
    let child_history = ctx.history.history(child_id, child_run).await?;
    check_eq!(
        types(&child_history).last().copied(),
        Some("WorkflowCompleted")
    );
    let child_started = first(&child_history, "WorkflowStarted")?;
    check_eq!(child_started["parent_workflow_instance_id"], json!(wid));
    check_eq!(child_started["parent_workflow_run_id"], json!(run));
    let result = handle
        .result(result_options())
        .await
        .map_err(|e| format!("result: {e}"))?;
    check_eq!(
        result,
        json!({"child_result": 42, "child_workflow_id": child_id})
    );
    Ok(())
}

pub async fn continue_as_new(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("q"), new_id("countdown"));
    let handle = client
        .start_workflow("conformance.countdown", &queue, &wid, json!([2]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let first_run = handle.run_id.clone().ok_or("start returned no run id")?;
    let mut worker = scenario_worker(client.clone(), &queue);
    register_countdown(&mut worker);
    // Follow the chain through durable history: each run names the run it continued to.
    let runs = serve(worker, async {
        let mut runs = vec![first_run.clone()];
        loop {
            let current = runs.last().expect("a run").clone();
            let events = ctx
                .history
                .wait_for(&wid, &current, "the run closes", |events| {
                    matches!(
                        types(events).last(),
                        Some(&"WorkflowContinuedAsNew" | &"WorkflowCompleted")
                    )
                })
                .await?;
            if types(&events).last() == Some(&"WorkflowCompleted") || runs.len() > 3 {
                return Ok(runs);
            }
            let next = first(&events, "WorkflowContinuedAsNew")?["continued_to_run_id"]
                .as_str()
                .ok_or("WorkflowContinuedAsNew names no next run")?
                .to_string();
            runs.push(next);
        }
    })
    .await?;
    check_eq!(runs.len(), 3);
    let last = ctx.history.history(&wid, &runs[2]).await?;
    check_eq!(
        first(&last, "WorkflowStarted")?["continued_from_run_id"],
        json!(runs[1])
    );
    check_eq!(types(&last).last().copied(), Some("WorkflowCompleted"));
    // The start handle follows the chain to the current run's result.
    let described = client
        .describe_workflow(&wid)
        .await
        .map_err(|e| format!("describe: {e}"))?;
    check_eq!(described.run_id.as_deref(), Some(runs[2].as_str()));
    let result = handle
        .result(result_options())
        .await
        .map_err(|e| format!("result: {e}"))?;
    check_eq!(result, json!("liftoff"));
    Ok(())
}
