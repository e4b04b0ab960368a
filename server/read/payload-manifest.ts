import { VALUE_SCHEMA, VALUE_SCHEMA_FINGERPRINT_HEX } from "../codec/codec";
import type { Json } from "./format";

/**
 * The export's `codec_schemas` and `payload_manifest` as the current engine writes them
 * (durable-workflow/workflow@8dc90d6 src/V2/Support/HistoryExport.php `collectCodecSchemas`,
 * `payloadManifest`, `addPayloadManifestEntry`; src/Serializers/Avro.php `payloadMetadata`).
 */

/**
 * The Value schema as the engine embeds it: `Avro::VALUE_SCHEMA_JSON` (Avro.php@8dc90d6), which is
 * byte for byte the SDK's `_avro.VALUE_SCHEMA_JSON` (sdk-python@b15778e) — the bundle verifier
 * compares the two as strings, so this must be the compact JSON in declaration order.
 */
export const VALUE_SCHEMA_JSON = JSON.stringify(VALUE_SCHEMA);

/** `crc64-avro:` + the 8 fingerprint bytes of the single-object frame in wire order (Avro.php@8dc90d6). */
export const VALUE_SCHEMA_FINGERPRINT = `crc64-avro:${VALUE_SCHEMA_FINGERPRINT_HEX}`;

/** `CodecRegistry::defaultCodec()` of the v2 engine. */
export const DEFAULT_CODEC = "avro";

/** `HistoryExport::payloadEncoding` (HistoryExport.php@8dc90d6): by codec, not by the bytes. */
function payloadEncoding(codec: string): string {
  if (codec === "avro") return "base64-avro-single-object";
  if (codec === "workflow-serializer-y" || codec === "Workflow\\Serializers\\Y") return "php-serialized-escaped";
  if (codec === "workflow-serializer-base64" || codec === "Workflow\\Serializers\\Base64")
    return "php-serialized-base64";
  return "opaque-string";
}

/** `Avro::looksLikeJson` (Avro.php@8dc90d6): the first character only. */
function looksLikeJson(data: string): boolean {
  const first = data.charAt(0);
  return ["{", "[", '"', "-", "t", "f", "n"].includes(first) || (first >= "0" && first <= "9");
}

/** PHP `base64_decode($data, true)`: only the base64 alphabet with at most two trailing `=`. */
function strictBase64(data: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.replace(/=+$/, "").length % 4 === 1) return null;
  return Buffer.from(data, "base64");
}

interface AvroMetadata {
  framing: string | null;
  prefix_hex: string | null;
  writer_schema: string | null;
  writer_schema_fingerprint: string | null;
  diagnostic: string | null;
}

/**
 * `Avro::payloadMetadata` (Avro.php@8dc90d6). The fingerprint is read from the frame itself (bytes
 * 2–9, after the `C3 01` magic); the writer schema is embedded only when it is the Value schema's.
 */
export function avroPayloadMetadata(data: string): AvroMetadata {
  const meta: AvroMetadata = {
    framing: null,
    prefix_hex: null,
    writer_schema: null,
    writer_schema_fingerprint: null,
    diagnostic: null,
  };
  const bytes = strictBase64(data);
  if (bytes === null)
    return { ...meta, diagnostic: looksLikeJson(data) ? "json_bytes_labeled_avro" : "invalid_base64" };
  if (bytes.length === 0) return { ...meta, diagnostic: "empty_payload" };
  meta.prefix_hex = bytes.subarray(0, 2).toString("hex");
  if (bytes[0] !== 0xc3 || bytes[1] !== 0x01) return { ...meta, diagnostic: "invalid_single_object_magic" };
  meta.framing = "single_object";
  const fingerprint = bytes.subarray(2, 10).toString("hex");
  meta.writer_schema_fingerprint = `crc64-avro:${fingerprint}`;
  if (fingerprint === VALUE_SCHEMA_FINGERPRINT_HEX) meta.writer_schema = VALUE_SCHEMA_JSON;
  else meta.diagnostic = "unsupported_payload_schema";
  return meta;
}

/** `HistoryExport::payloadBlob`: a non-empty string, or an envelope's non-empty `blob`. */
export function payloadBlob(payload: unknown): string | null {
  if (typeof payload === "string" && payload !== "") return payload;
  if (payload && typeof payload === "object" && !Array.isArray(payload)) {
    const b = (payload as Json).blob;
    if (typeof b === "string" && b !== "") return b;
  }
  return null;
}

/** One manifest entry (`addPayloadManifestEntry`, HistoryExport.php@8dc90d6); no redaction in this server. */
export function manifestEntry(path: string, codecIn: string | null | undefined, payload: unknown): Json {
  const codec = codecIn || DEFAULT_CODEC;
  const blob = payloadBlob(payload);
  const entry: Json = {
    path,
    codec,
    available: blob !== null,
    redacted: false,
    encoding: payloadEncoding(codec),
    avro_framing: null,
    avro_prefix_hex: null,
    writer_schema: null,
    writer_schema_fingerprint: null,
    diagnostic: null,
  };
  if (blob === null) return { ...entry, diagnostic: "payload_unavailable" };
  if (codec === "avro") {
    const m = avroPayloadMetadata(blob);
    Object.assign(entry, {
      avro_framing: m.framing,
      avro_prefix_hex: m.prefix_hex,
      writer_schema: m.writer_schema,
      writer_schema_fingerprint: m.writer_schema_fingerprint,
      diagnostic: m.diagnostic,
    });
  }
  return entry;
}

/** The sections of a bundle the manifest walks, in the engine's order. */
export interface ManifestSource {
  payloads: { codec: string; arguments: { data: unknown }; output: { codec: string | null; data: unknown } };
  history_events: readonly { type: string; payload: Json }[];
  commands: readonly { payload_codec: string | null; payload: unknown }[];
  signals: readonly { payload_codec: string | null; arguments: unknown }[];
  activities: readonly { payload_codec: string | null; arguments: unknown; result: unknown }[];
}

/**
 * `HistoryExport::payloadManifest` (HistoryExport.php@8dc90d6): run arguments and output, the
 * outputs of WorkflowCompleted / ChildRunCompleted events, command payloads, signal arguments,
 * update arguments/results (this server records no updates), activity arguments and results.
 */
export function* payloadManifestSteps(b: ManifestSource): Generator<void, Json, void> {
  const runCodec = b.payloads.codec || DEFAULT_CODEC;
  const outputCodec = b.payloads.output.codec || runCodec;
  const entries: Json[] = [
    manifestEntry("payloads.arguments.data", runCodec, b.payloads.arguments.data),
    manifestEntry("payloads.output.data", outputCodec, b.payloads.output.data),
  ];
  for (let i = 0; i < b.history_events.length; i++) {
    const e = b.history_events[i] as ManifestSource["history_events"][number];
    if (e.type !== "WorkflowCompleted" && e.type !== "ChildRunCompleted") continue;
    const declared =
      typeof e.payload.payload_codec === "string" && e.payload.payload_codec !== "" ? e.payload.payload_codec : null;
    const codec = declared ?? (e.type === "WorkflowCompleted" ? outputCodec : null);
    for (const field of e.type === "ChildRunCompleted" ? ["output", "result"] : ["output"]) {
      entries.push(manifestEntry(`history_events.${i}.payload.${field}`, codec, e.payload[field]));
    }
    yield;
  }
  b.commands.forEach((c, i) => entries.push(manifestEntry(`commands.${i}.payload`, c.payload_codec, c.payload)));
  yield;
  b.signals.forEach((s, i) => entries.push(manifestEntry(`signals.${i}.arguments`, s.payload_codec, s.arguments)));
  yield;
  for (let i = 0; i < b.activities.length; i++) {
    const a = b.activities[i] as ManifestSource["activities"][number];
    const codec = a.payload_codec || runCodec;
    entries.push(
      manifestEntry(`activities.${i}.arguments`, codec, a.arguments),
      manifestEntry(`activities.${i}.result`, codec, a.result),
    );
    yield;
  }
  return { version: 1, entries };
}

/** Does any payload section name `codec` (`HistoryExport::bundleUsesCodec`, HistoryExport.php@8dc90d6)? */
function bundleUsesCodec(b: ManifestSource & { tasks: readonly Json[] }, codec: string): boolean {
  if (b.payloads.codec === codec || b.payloads.output.codec === codec) return true;
  if (b.history_events.some((e) => e.payload.payload_codec === codec)) return true;
  const rows: readonly (readonly { payload_codec?: unknown }[])[] = [b.commands, b.signals, b.tasks, b.activities];
  return rows.some((section) => section.some((r) => r.payload_codec === codec));
}

/**
 * `HistoryExport::collectCodecSchemas` (HistoryExport.php@8dc90d6). The engine encodes an empty
 * map as PHP `[]`, which the SDK verifier refuses (`codec_schemas` must be an object), so an export
 * without Avro payloads carries `{}` here.
 */
export function codecSchemas(b: ManifestSource & { tasks: readonly Json[] }): Json {
  if (!bundleUsesCodec(b, "avro")) return {};
  return {
    avro: {
      encoding: "base64-avro-single-object",
      framing: "single_object",
      magic_hex: "c301",
      current_fingerprint: VALUE_SCHEMA_FINGERPRINT_HEX,
      writer_schemas: {
        [VALUE_SCHEMA_FINGERPRINT_HEX]: { schema: VALUE_SCHEMA_JSON, fingerprint: VALUE_SCHEMA_FINGERPRINT },
      },
    },
  };
}
