package io.breakwater.kikwiflowhost.handlers;

import io.kikwiflow.execution.api.context.ExecutionContext;
import io.kikwiflow.model.execution.ProcessVariable;

/** Reads optional numeric process variables that tests pass when they start an instance. */
final class Variables {

    private Variables() {
    }

    static int intOr(ExecutionContext execution, String name, int fallback) {
        if (!execution.hasVariable(name)) {
            return fallback;
        }
        ProcessVariable variable = execution.getVariable(name);
        Object value = variable != null ? variable.value() : null;
        if (value instanceof Number number) {
            return number.intValue();
        }
        if (value instanceof String text && !text.isBlank()) {
            return Integer.parseInt(text.trim());
        }
        return fallback;
    }
}
