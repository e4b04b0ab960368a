// avsc's types-only entry point: the Avro type system without its file, stream and RPC layers
// (which need Node's zlib/stream), so the codec stays light in browser bundles.
declare module "avsc/etc/browser/avsc-types" {
  import type { Type, types } from "avsc";

  const avroTypes: { Type: typeof Type; types: typeof types };
  export default avroTypes;
}
