//! Activities run by an SDK worker: retries with a backoff list, a failure that is never retried,
//! and a heartbeat timeout whose late heartbeat learns it lost the attempt.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use breakwater_rust_sdk_conformance::support::{
    clip, conformance_client, first, new_id, of_type, scenario_worker, serve, types, Outcome,
};
use breakwater_rust_sdk_conformance::workflows::{
    register_non_retryable, register_retry, NON_RETRYABLE_WORKFLOW, REFUSE_BY_FLAG, REFUSE_BY_TYPE,
    RETRY_WORKFLOW,
};
use breakwater_rust_sdk_conformance::{check, check_eq};
use durable_workflow::{
    json, ActivityHeartbeatResponse, ActivityOptions, ActivityRetryPolicy, Worker,
    WorkflowResultOptions,
};
use tokio::sync::Notify;

use crate::Ctx;

pub fn result_options() -> WorkflowResultOptions {
    WorkflowResultOptions {
        poll_interval: Duration::from_millis(200),
        timeout: Duration::from_secs(30),
    }
}

pub async fn retried_activity_then_succeeds(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("q"), new_id("retry"));
    let handle = client
        .start_workflow(RETRY_WORKFLOW, &queue, &wid, json!([3]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let run = handle.run_id.clone().ok_or("start returned no run id")?;
    let mut worker = scenario_worker(client.clone(), &queue);
    register_retry(&mut worker);
    let events = serve(
        worker,
        ctx.history.wait_for_event(&wid, &run, "WorkflowCompleted"),
    )
    .await?;
    let scheduled = first(&events, "ActivityScheduled")?;
    // The SDK's policy is snapped onto the durable activity execution.
    check_eq!(
        scheduled["activity"]["retry_policy"]["max_attempts"],
        json!(3)
    );
    check_eq!(
        scheduled["activity"]["retry_policy"]["backoff_seconds"],
        json!([1, 2])
    );
    let retries: Vec<_> = of_type(&events, "ActivityRetryScheduled")
        .iter()
        .map(|r| {
            (
                r["retry_after_attempt"].clone(),
                r["retry_backoff_seconds"].clone(),
            )
        })
        .collect();
    check_eq!(retries, vec![(json!(1), json!(1)), (json!(2), json!(2))]);
    check_eq!(of_type(&events, "ActivityStarted").len(), 3);
    let completed = first(&events, "ActivityCompleted")?;
    check_eq!(
        completed["activity_execution_id"],
        scheduled["activity_execution_id"]
    );
    check!(
        !types(&events).contains(&"ActivityFailed"),
        "{:?}",
        types(&events)
    );
    let result = handle
        .result(result_options())
        .await
        .map_err(|e| format!("result: {e}"))?;
    check_eq!(result, json!(3));
    Ok(())
}

pub async fn non_retryable_failure(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let queue = new_id("q");
    let mut runs = Vec::new();
    for activity_type in [REFUSE_BY_FLAG, REFUSE_BY_TYPE] {
        let wid = new_id("nonretry");
        let handle = client
            .start_workflow(NON_RETRYABLE_WORKFLOW, &queue, &wid, json!([activity_type]))
            .await
            .map_err(|e| format!("start: {e}"))?;
        runs.push((activity_type, wid, handle));
    }
    let mut worker = scenario_worker(client.clone(), &queue);
    register_non_retryable(&mut worker);
    let histories = serve(worker, async {
        let mut histories = Vec::new();
        for (_, wid, handle) in &runs {
            let run = handle.run_id.as_deref().ok_or("start returned no run id")?;
            histories.push(
                ctx.history
                    .wait_for_event(wid, run, "WorkflowCompleted")
                    .await?,
            );
        }
        Ok(histories)
    })
    .await?;
    for ((activity_type, _, handle), events) in runs.iter().zip(&histories) {
        // One attempt and no retry, although the policy allowed five.
        check_eq!(of_type(events, "ActivityStarted").len(), 1,);
        check!(
            !types(events).contains(&"ActivityRetryScheduled"),
            "{activity_type}: {:?}",
            types(events)
        );
        let failed = first(events, "ActivityFailed")?;
        check_eq!(failed["failure_category"], json!("activity"));
        check_eq!(
            failed["message"],
            json!(if *activity_type == REFUSE_BY_FLAG {
                "card reported stolen"
            } else {
                "insufficient funds"
            })
        );
        // The workflow caught the failure, so the server records it as handled.
        check_eq!(
            first(events, "FailureHandled")?["failure_id"],
            failed["failure_id"]
        );
        let result = handle
            .result(result_options())
            .await
            .map_err(|e| format!("result: {e}"))?;
        check_eq!(result["non_retryable"], json!(true));
        if *activity_type == REFUSE_BY_FLAG {
            check_eq!(failed["non_retryable"], json!(true));
            check_eq!(failed["exception_type"], json!("CardStolen"));
            check_eq!(result["caught"], json!("CardStolen"));
        } else {
            // Not flagged by the worker: the server matched non_retryable_error_types.
            check_eq!(failed["exception_type"], json!("PaymentDeclined"));
            check_eq!(result["caught"], json!("PaymentDeclined"));
        }
    }
    Ok(())
}

/// What the first attempt's late heartbeat got back from the server.
type LateHeartbeat = Arc<Mutex<Option<Result<ActivityHeartbeatResponse, String>>>>;

/// Attempt 1 heartbeats once, then goes silent until `release`; attempt 2 completes at once.
fn register_silent_after_heartbeat(worker: &mut Worker, release: Arc<Notify>, late: LateHeartbeat) {
    worker.register_activity("conformance.silent-after-heartbeat", move |ctx, _input| {
        let (release, late) = (Arc::clone(&release), Arc::clone(&late));
        async move {
            let attempt = ctx.retry_info().attempt_number();
            if attempt == 1 {
                ctx.heartbeat(json!({"progress": "started"})).await?;
                release.notified().await;
                let answer = ctx.heartbeat(json!({"progress": "late"})).await;
                *late.lock().expect("late heartbeat slot") =
                    Some(answer.map_err(|e| format!("{e:?}")));
            }
            Ok(json!(attempt))
        }
    });
    worker.register_workflow("conformance.heartbeat-timeout", |ctx, _input| async move {
        let options = ActivityOptions::new()
            .heartbeat_timeout(Duration::from_secs(2))
            .start_to_close_timeout(Duration::from_secs(30))
            .retry_policy(ActivityRetryPolicy::new(2).backoff_intervals([Duration::ZERO]));
        ctx.activity_with_options("conformance.silent-after-heartbeat", options, json!([]))
            .await
    });
}

pub async fn heartbeat_timeout(ctx: Ctx) -> Outcome {
    let client = conformance_client(&ctx.url)?;
    let (queue, wid) = (new_id("q"), new_id("heartbeat"));
    let handle = client
        .start_workflow("conformance.heartbeat-timeout", &queue, &wid, json!([]))
        .await
        .map_err(|e| format!("start: {e}"))?;
    let run = handle.run_id.clone().ok_or("start returned no run id")?;
    let (release, late): (_, LateHeartbeat) = (Arc::new(Notify::new()), Arc::default());
    let mut worker = scenario_worker(client.clone(), &queue);
    register_silent_after_heartbeat(&mut worker, Arc::clone(&release), Arc::clone(&late));
    let events = serve(worker, async {
        ctx.history
            .wait_for_event(&wid, &run, "WorkflowCompleted")
            .await?;
        // Only now, long after its 2 s heartbeat deadline, does attempt 1 speak again.
        release.notify_one();
        ctx.history
            .wait_for(&wid, &run, "the late heartbeat's answer", |_| {
                late.lock().map(|l| l.is_some()).unwrap_or(false)
            })
            .await
    })
    .await?;
    let retry = of_type(&events, "ActivityRetryScheduled");
    check_eq!(retry.len(), 1,);
    check_eq!(retry[0]["retry_after_attempt"], json!(1));
    // The server's timeout enforcer retried it, naming the missed deadline.
    check_eq!(retry[0]["timeout_kind"], json!("heartbeat"));
    check!(
        !of_type(&events, "ActivityHeartbeatRecorded").is_empty(),
        "{:?}",
        types(&events)
    );
    check_eq!(of_type(&events, "ActivityCompleted").len(), 1);
    check_eq!(
        handle
            .result(result_options())
            .await
            .map_err(|e| format!("result: {e}"))?,
        json!(2)
    );
    // The real server answers a heartbeat of a timed-out attempt 200 with can_continue false, so
    // the SDK tells the activity to stop (issue 39: this server answered 409).
    let answer = late
        .lock()
        .expect("late heartbeat slot")
        .clone()
        .ok_or("no late heartbeat")?;
    let answer =
        answer.map_err(|e| format!("late heartbeat refused instead of answered: {}", clip(&e)))?;
    check!(answer.should_stop(), "{answer:?}");
    check_eq!(answer.can_continue, Some(false));
    Ok(())
}
