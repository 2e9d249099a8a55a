// Reads one bundled contract schema (JSON) on stdin, prints json-schema-to-typescript's output.
// Called by generators/typescript_bindings.py; post-processing and the file header live there.
import { compile } from "json-schema-to-typescript";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const schema = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const output = await compile(schema, schema.title, {
  bannerComment: "",
  // Every $def becomes a type, not only those reachable from the (empty) root.
  unreachableDefinitions: true,
  // Honour the schema's own additionalProperties (true: open objects get an index signature).
  additionalProperties: true,
  format: true,
  // All refs are local (#/$defs/...): never read files or the network.
  $refOptions: { resolve: { file: false, http: false } },
});
process.stdout.write(output);
