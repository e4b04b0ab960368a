import type { AuthConfig } from "../auth";
import { WORKER_PROTOCOL_HEADER, WORKER_PROTOCOL_VERSION } from "../worker-protocol";
import { CONTROL_PLANE_HEADER, CONTROL_PLANE_VERSION } from "./envelope";

/**
 * The official Python SDK releases this server is tested with (conformance/python-sdk pins
 * 2.12.0). Every 2.x release requests worker protocol 1.19 or 1.20; 0.4.x requests 1.1, which the
 * real negotiation rule (same major, minor ≤ advertised) also admits. Informational: clients decide by the protocol
 * manifests (`authority: protocol_manifests`).
 */
export const SUPPORTED_PYTHON_SDK = ">=2.12,<2.13";

export const AUTH_COMPOSITION_SCHEMA = "durable-workflow.v2.auth-composition.contract";
export const AUTH_COMPOSITION_VERSION = 1;
export const REQUEST_CONTRACT_SCHEMA = "durable-workflow.v2.control-plane-request.contract";
export const REQUEST_CONTRACT_VERSION = 1;

/**
 * `auth_composition_contract`: the carrier auth-composition manifest of the real server
 * (durable-workflow/server app/Support/AuthCompositionContract.php@11d35b7), which sdk-python
 * 2.12.0 parses fail-closed before it registers a worker (durable_workflow/auth_composition.py
 * `parse_auth_composition_contract`: precedence, canonical_environment, token supported and
 * redacted, mtls and signed_headers reserved, effective_config.required_fields, redaction).
 * Bearer tokens are the one supported material, as here. `driver` and `roles` are this server's
 * additive fields (`unknown_field_policy` lets carriers ignore them).
 */
export function authCompositionContract(auth: AuthConfig): Record<string, unknown> {
  return {
    schema: AUTH_COMPOSITION_SCHEMA,
    version: AUTH_COMPOSITION_VERSION,
    scope: "external_execution_carriers",
    unknown_field_policy: "ignore_additive_reject_unknown_required",
    precedence: {
      connection_values: ["flag", "environment", "selected_profile", "default"],
      profile_selection: ["flag_env", "DW_ENV", "current_profile", "default_profile"],
      notes: [
        "flags win only for the current invocation",
        "environment values are portable carrier inputs and must not be persisted by default",
        "selected profile values are persisted configuration, but secret fields should be references",
        "defaults are explicit and must appear in effective-config diagnostics",
      ],
    },
    canonical_environment: {
      server_url: "DURABLE_WORKFLOW_SERVER_URL",
      namespace: "DURABLE_WORKFLOW_NAMESPACE",
      auth_token: "DURABLE_WORKFLOW_AUTH_TOKEN",
      tls_verify: "DURABLE_WORKFLOW_TLS_VERIFY",
      profile: "DW_ENV",
    },
    auth_material: {
      token: {
        status: "supported",
        transport: "bearer_authorization_header",
        persisted_as: "secret_reference_or_profile_env_reference",
        effective_config_value: "redacted",
      },
      mtls: {
        status: "reserved",
        persisted_as: "certificate_and_key_references",
        effective_config_value: "references_only",
      },
      signed_headers: {
        status: "reserved",
        persisted_as: "key_reference_and_header_allowlist",
        effective_config_value: "references_only",
      },
      extensions: {
        status: "reserved",
        rule: "new auth material types must define redaction, persistence, and source precedence before use",
      },
    },
    effective_config: {
      required_fields: ["server_url", "namespace", "profile", "auth", "tls", "identity"],
      source_values: ["flag", "environment", "selected_profile", "profile_env", "default", "server"],
      field_contracts: {
        server_url: { value: "normalized_absolute_url", source: "one_of_source_values" },
        namespace: { value: "non_empty_namespace_name", source: "one_of_source_values" },
        profile: { name: "nullable_string", source: "flag_env_or_DW_ENV_or_current_profile_or_default_profile" },
        auth: {
          type: "token_or_mtls_or_signed_headers_or_none",
          source: "one_of_source_values",
          value: "redacted_or_reference_only",
        },
        tls: { verify: "boolean", source: "one_of_source_values" },
        identity: { subject: "nullable_string", roles: "list_of_strings", source: "server_or_carrier" },
      },
    },
    redaction: {
      never_echo: [
        "bearer_tokens",
        "private_keys",
        "shared_signature_keys",
        "client_certificate_private_key_material",
        "raw_authorization_headers",
      ],
      allowed_diagnostics: [
        "redacted",
        "secret_reference_name",
        "environment_variable_name",
        "profile_name",
        "certificate_reference_name",
        "key_reference_name",
      ],
    },
    resolution: {
      server_url: "carriers normalize and use the winning absolute URL without appending hidden path defaults",
      namespace: "carriers send the winning namespace explicitly when the protocol supports namespace headers",
      identity:
        "servers may report authenticated subject and roles; carriers must treat identity as server-asserted when present",
      tls: "carriers must fail closed on invalid TLS unless the winning tls.verify value is false",
    },
    driver: auth.driver,
    roles: ["worker", "operator", "admin"],
  };
}

/**
 * `client_compatibility` in the real server's shape (app/Support/ClientCompatibility.php@11d35b7).
 * Its `required_protocols.worker_protocol` there also names the external-execution contracts
 * (external_execution_surface, external_executor_config, invocable_carrier, external_task_input,
 * external_task_result); this server implements none of them, so it requires and lists none.
 */
export function clientCompatibility(): Record<string, unknown> {
  return {
    schema: "durable-workflow.v2.client-compatibility",
    version: 1,
    authority: "protocol_manifests",
    top_level_version_role: "informational",
    fail_closed: true,
    required_protocols: {
      auth_composition: { schema: AUTH_COMPOSITION_SCHEMA, version: AUTH_COMPOSITION_VERSION },
      control_plane: {
        version: CONTROL_PLANE_VERSION,
        header: CONTROL_PLANE_HEADER,
        request_contract: { schema: REQUEST_CONTRACT_SCHEMA, version: REQUEST_CONTRACT_VERSION },
      },
      worker_protocol: { version: WORKER_PROTOCOL_VERSION, header: WORKER_PROTOCOL_HEADER },
    },
    clients: {
      // No `supported_versions` for the CLI: it then treats itself as supported (server-api.md §7 item 21).
      cli: { requires: ["auth_composition.version", "control_plane.version", "control_plane.request_contract"] },
      "sdk-python": {
        supported_versions: SUPPORTED_PYTHON_SDK,
        requires: [
          "auth_composition.version",
          "control_plane.version",
          "control_plane.request_contract",
          "worker_protocol.version",
        ],
      },
    },
  };
}
