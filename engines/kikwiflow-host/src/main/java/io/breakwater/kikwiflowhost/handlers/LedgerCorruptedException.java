package io.breakwater.kikwiflowhost.handlers;

/**
 * Listed in kikwiflow.retry.fatal-exceptions (application.yml): the engine compares the root cause's
 * exact class name, so this exception must be thrown without a cause of its own.
 */
public class LedgerCorruptedException extends RuntimeException {

    public LedgerCorruptedException(String message) {
        super(message);
    }
}
