package io.breakwater.kikwiflowhost.handlers;

import io.kikwiflow.execution.api.context.ExecutionContext;
import io.kikwiflow.execution.api.handler.TaskHandler;
import org.springframework.stereotype.Component;

/**
 * Fails with a configured fatal exception on every execution: the engine opens a FAILED_JOB incident at
 * once, whatever retries the policy had left. Failing again after a retry is deliberate: it lets a test
 * retry an incident, see it RESOLVED with the task PENDING, and then see the next incident open.
 */
@Component("fatalHandler")
public class FatalTaskHandler implements TaskHandler {

    @Override
    public void handle(ExecutionContext execution) {
        throw new LedgerCorruptedException("Ledger entry checksum mismatch");
    }
}
