package io.breakwater.kikwiflowhost.handlers;

import io.kikwiflow.execution.api.context.ExecutionContext;
import io.kikwiflow.execution.api.handler.TaskHandler;
import org.springframework.stereotype.Component;

/**
 * Always fails with an ordinary (retryable) exception: the node's EXPONENTIAL_BACKOFF policy retries it
 * until maxRetries executions are spent, and then the engine opens a FAILED_JOB incident.
 */
@Component("alwaysTransientHandler")
public class AlwaysTransientTaskHandler implements TaskHandler {

    @Override
    public void handle(ExecutionContext execution) {
        throw new RuntimeException("Ledger service unavailable (HTTP 503)");
    }
}
