//! Workflows and activities written with the official Rust SDK, shared by the conformance
//! scenarios (tests/) and the console's e2e runs (src/bin/e2e_runs.rs).

use std::time::Duration;

use durable_workflow::{
    json, ActivityError, ActivityOptions, ActivityRetryPolicy, ChildWorkflowOptions, Error, Value,
    Worker,
};

pub const RETRY_WORKFLOW: &str = "conformance.retry";
pub const FLAKY_ACTIVITY: &str = "conformance.flaky";
pub const NON_RETRYABLE_WORKFLOW: &str = "conformance.non-retryable";
pub const REFUSE_BY_FLAG: &str = "conformance.refuse-by-flag";
pub const REFUSE_BY_TYPE: &str = "conformance.refuse-by-type";

/// The workflow's first argument (the SDK hands a workflow its argument list).
pub fn arg(input: &Value, index: usize) -> Value {
    input.get(index).cloned().unwrap_or(Value::Null)
}

/// An activity that fails until attempt `succeed_on`, retried by a policy with a backoff list:
/// 1 s after attempt 1, 2 s after attempt 2.
pub fn register_retry(worker: &mut Worker) {
    worker.register_activity(FLAKY_ACTIVITY, |ctx, input| async move {
        let succeed_on = arg(&input, 0).as_u64().unwrap_or(3);
        let attempt = ctx.retry_info().attempt_number();
        if attempt < succeed_on {
            return Err(
                ActivityError::new("FlakyError", format!("attempt {attempt} fails")).into(),
            );
        }
        Ok(json!(attempt))
    });
    worker.register_workflow(RETRY_WORKFLOW, |ctx, input| async move {
        let options = ActivityOptions::new()
            .retry_policy(
                ActivityRetryPolicy::new(3)
                    .backoff_intervals([Duration::from_secs(1), Duration::from_secs(2)]),
            )
            .start_to_close_timeout(Duration::from_secs(30));
        ctx.activity_with_options(FLAKY_ACTIVITY, options, json!([arg(&input, 0)]))
            .await
    });
}

/// Activities that fail for good: one flags its failure non-retryable, the other is stopped by
/// the policy's `non_retryable_error_types`. The workflow catches the failure and returns it.
pub fn register_non_retryable(worker: &mut Worker) {
    worker.register_activity(REFUSE_BY_FLAG, |_ctx, _input| async move {
        Err::<Value, _>(
            ActivityError::new("CardStolen", "card reported stolen")
                .non_retryable(true)
                .into(),
        )
    });
    worker.register_activity(REFUSE_BY_TYPE, |_ctx, _input| async move {
        Err::<Value, _>(ActivityError::new("PaymentDeclined", "insufficient funds").into())
    });
    worker.register_workflow(NON_RETRYABLE_WORKFLOW, |ctx, input| async move {
        let activity_type = arg(&input, 0)
            .as_str()
            .unwrap_or(REFUSE_BY_FLAG)
            .to_string();
        let policy = ActivityRetryPolicy::new(5)
            .backoff_intervals([Duration::from_secs(1); 4])
            .non_retryable_error_type("PaymentDeclined");
        let options = ActivityOptions::new()
            .retry_policy(policy)
            .start_to_close_timeout(Duration::from_secs(30));
        match ctx
            .activity_with_options(activity_type, options, json!([]))
            .await
        {
            Err(Error::ActivityFailed(failure)) => Ok(json!({
                "caught": failure.exception_type,
                "non_retryable": failure.non_retryable,
            })),
            Err(other) => Err(other),
            Ok(_) => Ok(json!({"caught": null})),
        }
    });
}

/// Sleeps on a durable timer of `input[0]` seconds.
pub fn register_timer(worker: &mut Worker) {
    worker.register_workflow("conformance.timer", |ctx, input| async move {
        let seconds = arg(&input, 0).as_u64().unwrap_or(1);
        ctx.sleep(Duration::from_secs(seconds)).await?;
        Ok(json!("woke"))
    });
}

/// Waits for the `approve` signal and returns who approved.
pub fn register_approval(worker: &mut Worker) {
    worker.register_workflow("conformance.approval", |ctx, _input| async move {
        let arguments = ctx.wait_signal("approve").await?;
        Ok(json!({"approved_by": arguments.first().cloned().unwrap_or(Value::Null)}))
    });
}

/// A parent that runs a child doubling its argument on the same queue.
pub fn register_parent_and_child(worker: &mut Worker, task_queue: &str) {
    worker.register_workflow("conformance.child", |_ctx, input| async move {
        Ok(json!(arg(&input, 0).as_u64().unwrap_or(0) * 2))
    });
    let queue = task_queue.to_string();
    worker.register_workflow("conformance.parent", move |ctx, input| {
        let queue = queue.clone();
        async move {
            let child = ctx
                .start_child_workflow(
                    "conformance.child",
                    ChildWorkflowOptions::new(queue),
                    json!([arg(&input, 0)]),
                )
                .await?;
            Ok(json!({"child_result": child.result, "child_workflow_id": child.child.workflow_id}))
        }
    });
}

/// Counts down from `input[0]`, continuing as new at every step, and completes at zero.
pub fn register_countdown(worker: &mut Worker) {
    worker.register_workflow("conformance.countdown", |ctx, input| async move {
        let left = arg(&input, 0).as_u64().unwrap_or(0);
        if left > 0 {
            return ctx.continue_as_new(json!([left - 1]));
        }
        Ok(json!("liftoff"))
    });
}

/// Sleeps ten minutes: only a cancel or a terminate from the client closes it in time.
pub fn register_long_sleep(worker: &mut Worker) {
    worker.register_workflow("conformance.long-sleep", |ctx, _input| async move {
        ctx.sleep(Duration::from_secs(600)).await?;
        Ok(json!("slept"))
    });
}
