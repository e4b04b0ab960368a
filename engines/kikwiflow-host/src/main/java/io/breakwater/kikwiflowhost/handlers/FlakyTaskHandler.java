package io.breakwater.kikwiflowhost.handlers;

import io.kikwiflow.execution.api.context.ExecutionContext;
import io.kikwiflow.execution.api.handler.TaskHandler;
import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fails transiently, then succeeds: the first {@code failTimes} executions of an instance (process
 * variable, default 2) throw a plain RuntimeException, so the node's retry policy schedules retries
 * (RETRY_SCHEDULED) and the next execution goes through. The count lives in memory, like the engine's
 * in-memory repository: a restart forgets both.
 */
@Component("flakyHandler")
public class FlakyTaskHandler implements TaskHandler {

    static final int DEFAULT_FAIL_TIMES = 2;

    private final Map<String, AtomicInteger> attemptsByInstance = new ConcurrentHashMap<>();

    @Override
    public void handle(ExecutionContext execution) {
        int attempt = attemptsByInstance
                .computeIfAbsent(execution.getProcessInstanceId(), id -> new AtomicInteger())
                .incrementAndGet();
        int failTimes = Variables.intOr(execution, "failTimes", DEFAULT_FAIL_TIMES);
        if (attempt <= failTimes) {
            throw new RuntimeException("Payment gateway timed out (attempt " + attempt + " of " + failTimes + " that fail)");
        }
    }
}
