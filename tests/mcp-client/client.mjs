// Drives the built `brain mcp` with the official MCP TypeScript SDK client, against the fixture home
// tests/tests/mcp.rs prepares: over stdio (env BRAIN_BIN, the binary, with BRAIN_HOME and BRAIN_NOW),
// or over Streamable HTTP when BRAIN_MCP_URL names a running `brain mcp --http` (tests/tests/mcp_http.rs).
// Prints one line per check and "N checks passed"; exits non-zero at the first failure.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, LATEST_PROTOCOL_VERSION, McpError } from "@modelcontextprotocol/sdk/types.js";

const url = process.env.BRAIN_MCP_URL;
const bin = process.env.BRAIN_BIN;
assert.ok(url || bin, "BRAIN_MCP_URL or BRAIN_BIN is set");
let passed = 0;
async function check(name, fn) {
  await fn();
  passed += 1;
  console.log(`ok ${passed} - ${name}`);
}

const transport = url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command: bin, args: ["mcp", "--output-schemas"], env: { ...process.env }, stderr: "inherit" });
const client = new Client({ name: "brain-mcp-test", version: "1.0.0" });
await client.connect(transport);

await check("initialize: version, server info, instructions with collections and counts", async () => {
  assert.equal(client.getServerVersion().name, "brain");
  assert.equal(transport.protocolVersion ?? LATEST_PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION);
  const text = client.getInstructions();
  assert.match(text, /"notes" \(notes, 3 docs\)/);
  assert.match(text, /"chrome-history" \(browser, 1 docs; low trust/);
  assert.ok(client.getServerCapabilities().tools, "tools capability");
  assert.ok(client.getServerCapabilities().resources, "resources capability");
});

let tools;
await check("tools/list: every tool with input and output schemas", async () => {
  tools = (await client.listTools()).tools;
  const names = tools.map((t) => t.name);
  for (const want of ["query", "get", "multi_get", "status", "recent", "remember"]) assert.ok(names.includes(want), `${want} in ${names}`);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", t.name);
    assert.equal(t.outputSchema?.type, "object", t.name);
    assert.equal(t.annotations?.readOnlyHint, t.name !== "remember", t.name);
  }
  const remember = tools.find((t) => t.name === "remember");
  assert.equal(remember.annotations.destructiveHint, false);
  assert.equal(remember.annotations.idempotentHint, false);
});

let top;
await check("query: plain string, ranked results with provenance (validated against outputSchema by the SDK)", async () => {
  const r = await client.callTool({ name: "query", arguments: { query: "lock contention" } });
  assert.equal(r.isError, false);
  const results = r.structuredContent.results;
  top = results[0];
  assert.equal(top.uri, "brain://notes/kb/tantivy-locks.md");
  assert.match(top.docid, /^#[0-9a-f]{6}$/);
  assert.equal(top.score, 1);
  assert.equal(top.age, "2 days ago");
  assert.ok(top.line > 1 && top.snippet.includes("lock"));
  const chrome = results.find((x) => x.collection === "chrome-history");
  assert.equal(chrome.untrusted, true);
  assert.match(chrome.snippet, /^<untrusted>.*<\/untrusted>$/);
  assert.match(r.content[0].text, /<untrusted source="brain:\/\/chrome-history\//);
});

await check("query: typed lex searches with collections, since and minScore", async () => {
  const r = await client.callTool({
    name: "query",
    arguments: { searches: [{ type: "lex", query: "lock" }], collections: ["notes"], since: "2026-04-09", minScore: 0.1 },
  });
  const uris = r.structuredContent.results.map((x) => x.uri);
  // tantivy-locks (2026-04-08) and rust-tips (2026-03-01) are older than `since`; sessions are not notes.
  assert.deepEqual(uris, ["brain://notes/kb/draft-locks.md"]);
});

await check("query: vec searches without an embedding model are a tool error carrying the error record", async () => {
  const r = await client.callTool({ name: "query", arguments: { searches: [{ type: "vec", query: "how do locks work" }] } });
  assert.equal(r.isError, true);
  const rec = JSON.parse(r.content[0].text);
  assert.equal(rec.kind, "error");
  assert.equal(rec.error, "model_missing");
  assert.ok(rec.fix.length > 0);
});

await check("get: by #docid from a result, from its line", async () => {
  const r = await client.callTool({ name: "get", arguments: { file: top.docid, fromLine: top.line, maxLines: 1 } });
  assert.equal(r.structuredContent.uri, top.uri);
  assert.equal(r.structuredContent.fromLine, top.line);
  assert.equal(r.structuredContent.lines, 1);
  assert.ok(r.structuredContent.text.includes("lock"));
  assert.equal(r.structuredContent.nextLine, top.line + 1);
});

await check("get: an unknown docid is a no_results tool error", async () => {
  const r = await client.callTool({ name: "get", arguments: { file: "#000000" } });
  assert.equal(r.isError, true);
  assert.equal(JSON.parse(r.content[0].text).error, "no_results");
});

await check("multi_get: a glob, with the big file skipped and a note", async () => {
  const r = await client.callTool({ name: "multi_get", arguments: { pattern: "notes/kb/*.md", maxBytes: 400 } });
  const docs = r.structuredContent.documents;
  assert.equal(docs.length, 3);
  assert.ok(docs.some((d) => d.skipped && d.text === undefined), "one skipped");
  assert.ok(docs.some((d) => d.text?.includes("Rust tips")), "one read");
  assert.match(r.content[0].text, /\[skipped: brain:\/\/notes\/kb\//);
});

await check("resources: the brain:// template, and reading a document", async () => {
  const t = await client.listResourceTemplates();
  assert.equal(t.resourceTemplates[0].uriTemplate, "brain://{collection}/{+path}");
  const r = await client.readResource({ uri: "brain://notes/kb/rust-tips.md" });
  assert.equal(r.contents[0].mimeType, "text/markdown");
  assert.match(r.contents[0].text, /# Rust tips/);
  const low = await client.readResource({ uri: "brain://chrome-history/2026/2026-04-09.md" });
  assert.match(low.contents[0].text, /^<untrusted source=/);
});

await check("resources/read of a missing document is -32602", async () => {
  await assert.rejects(client.readResource({ uri: "brain://notes/kb/missing.md" }), (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
});

await check("an unknown tool is -32602; ping answers", async () => {
  await assert.rejects(client.callTool({ name: "search", arguments: {} }), (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
  assert.deepEqual(await client.ping(), {});
});

await check("status: counts per collection, index and backlog (validated against outputSchema by the SDK)", async () => {
  const r = await client.callTool({ name: "status", arguments: {} });
  assert.equal(r.isError, false);
  const st = r.structuredContent;
  assert.equal(st.kind, "status");
  assert.equal(st.docs, 6);
  assert.equal(st.lexical_index, true);
  assert.equal(st.need_embeddings, 6);
  assert.deepEqual(st.collections.map((c) => [c.name, c.docs]), [["brain", 2], ["chrome-history", 1], ["inbox", 0], ["notes", 3]]);
  assert.match(r.content[0].text, /6 docs; lexical index yes/);
});

await check("recent: the last 7 days newest first, low-trust titles fenced", async () => {
  const r = await client.callTool({ name: "recent", arguments: { since: "7d" } });
  assert.equal(r.isError, false);
  const rep = r.structuredContent;
  assert.equal(rep.n_total, 4);
  assert.deepEqual(rep.items.map((i) => i.uri), [
    "brain://brain/2026/04/s2.md",
    "brain://chrome-history/2026/2026-04-09.md",
    "brain://notes/kb/draft-locks.md",
    "brain://notes/kb/tantivy-locks.md",
  ]);
  assert.equal(rep.items[0].age, "3 h ago");
  const chrome = rep.items[1];
  assert.equal(chrome.untrusted, true);
  assert.match(chrome.title, /^<untrusted>.*<\/untrusted>$/);
  assert.match(r.content[0].text, /<untrusted source="brain:\/\/chrome-history\//);
});

await check("recent: an empty window is an empty result; a bad `since` is a bad_query tool error", async () => {
  const r = await client.callTool({ name: "recent", arguments: { since: "1h", collections: ["notes"] } });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.n_total, 0);
  assert.deepEqual(r.structuredContent.items, []);
  const bad = await client.callTool({ name: "recent", arguments: { since: "last tuesday" } });
  assert.equal(bad.isError, true);
  assert.equal(JSON.parse(bad.content[0].text).error, "bad_query");
});

await check("remember: an entry is saved and the next query finds it", async () => {
  const r = await client.callTool({
    name: "remember",
    arguments: { text: "Decided: pelican is the codename of the index rewrite", type: "decision", tags: ["search"], project: "brain" },
  });
  assert.equal(r.isError, false);
  const e = r.structuredContent;
  assert.equal(e.kind, "inbox_entry");
  assert.equal(e.type, "decision");
  assert.equal(e.uri, "brain://inbox/2026-04-10.md");
  assert.equal(e.indexed, true);
  const q = await client.callTool({ name: "query", arguments: { query: "pelican" } });
  assert.equal(q.structuredContent.results[0].uri, e.uri);
  assert.match(q.structuredContent.results[0].snippet, /pelican is the codename/);
});

await check("remember: a secret is refused with the error record and its reason", async () => {
  const r = await client.callTool({ name: "remember", arguments: { text: "the key is AKIAIOSFODNN7EXAMPLE", force: true } });
  assert.equal(r.isError, true);
  const rec = JSON.parse(r.content[0].text);
  assert.equal(rec.kind, "error");
  assert.equal(rec.error, "refused");
  assert.equal(rec.reason, "secret");
  assert.ok(rec.fix.length > 0);
});

await client.close();
console.log(`${passed} checks passed over ${url ? "HTTP" : "stdio"}`);
