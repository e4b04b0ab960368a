package io.breakwater.kikwiflowhost;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Hosts the real Kikwiflow engine for Breakwater's tests and demo. Everything it serves comes from the
 * engine's own starters (management REST under /kikwiflow/api/v1, including POST /process-instances to
 * start one); this application only contributes process definitions (resources/processes) and task
 * handlers that fail in the ways an operator has to recognise.
 */
@SpringBootApplication
public class KikwiflowHostApplication {

    public static void main(String[] args) {
        SpringApplication.run(KikwiflowHostApplication.class, args);
    }
}
