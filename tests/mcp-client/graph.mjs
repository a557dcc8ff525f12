// The memory-graph tools (`entity`, `related`) through the official MCP TypeScript SDK client,
// over the fixture vault tests/tests/vault.rs indexes (env BRAIN_BIN, BRAIN_HOME, BRAIN_NOW). The
// SDK checks every structuredContent against the tool's outputSchema. Prints "N checks passed".
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.env.BRAIN_BIN;
assert.ok(bin, "BRAIN_BIN is set");
let passed = 0;
async function check(name, fn) {
  await fn();
  passed += 1;
  console.log(`ok ${passed} - ${name}`);
}
const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--read-only", "--output-schemas"], env: { ...process.env }, stderr: "inherit" });
const client = new Client({ name: "brain-graph-test", version: "1.0.0" });
await client.connect(transport);

await check("tools/list: entity and related, read-only, with output schemas", async () => {
  const tools = (await client.listTools()).tools;
  for (const name of ["entity", "related"]) {
    const t = tools.find((x) => x.name === name);
    assert.ok(t, name);
    assert.equal(t.annotations.readOnlyHint, true);
    assert.equal(t.outputSchema.type, "object");
  }
});

await check("entity by an @handle: the page, facts current and superseded", async () => {
  const r = await client.callTool({ name: "entity", arguments: { name: "@schen" } });
  assert.equal(r.isError ?? false, false, JSON.stringify(r));
  const s = r.structuredContent;
  assert.equal(s.entity.name, "Sarah Chen");
  assert.deepEqual(s.facts.map((f) => f.status), ["current", "current", "superseded"]);
  assert.match(r.content[0].text, /^Sarah Chen \(person\)/);
});

await check("entity by a shared alias: an error naming both, never a guess", async () => {
  const r = await client.callTool({ name: "entity", arguments: { name: "SC" } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /Sarah Chen.*Supply chain/);
  assert.match(r.content[0].text, /"error":"bad_query"/);
});

await check("related: everything a record contradicts", async () => {
  const r = await client.callTool({ name: "related", arguments: { what: "notes/decisions/no-retries.md", kinds: ["contradicts"] } });
  assert.equal(r.isError ?? false, false, JSON.stringify(r));
  assert.deepEqual(r.structuredContent.related.map((x) => x.id), ["notes/decisions/retry-policy.md"]);
});

await check("related: depth 2 reaches the project; bad depth and kind are errors", async () => {
  const r = await client.callTool({ name: "related", arguments: { what: "notes/decisions/retry-policy.md", depth: 2 } });
  assert.ok(r.structuredContent.related.some((x) => x.depth === 2 && x.id === "life/projects/billing"));
  const bad = await client.callTool({ name: "related", arguments: { what: "notes/pinned.md", kinds: ["blocks"] } });
  assert.equal(bad.isError, true);
  const deep = await client.callTool({ name: "related", arguments: { what: "x", depth: 9 } });
  assert.equal(deep.isError, true);
  assert.match(deep.content[0].text, /depth/);
});

await client.close();
console.log(`${passed} checks passed over stdio`);
