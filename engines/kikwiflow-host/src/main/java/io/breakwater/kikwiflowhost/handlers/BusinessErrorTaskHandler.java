package io.breakwater.kikwiflowhost.handlers;

import io.kikwiflow.exception.ProcessErrorException;
import io.kikwiflow.execution.api.context.ExecutionContext;
import io.kikwiflow.execution.api.handler.TaskHandler;
import org.springframework.stereotype.Component;

/**
 * Raises a business error that no BOUNDARY_ERROR_HANDLER catches: the engine opens an
 * UNHANDLED_BUSINESS_ERROR incident at once, without spending the retry budget.
 */
@Component("businessErrorHandler")
public class BusinessErrorTaskHandler implements TaskHandler {

    @Override
    public void handle(ExecutionContext execution) {
        throw new ProcessErrorException("CREDIT_REJECTED", "Credit bureau rejected the applicant");
    }
}
