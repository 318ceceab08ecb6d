// End-to-end check of `agent-host mcp` with a client nobody here wrote: the
// official TypeScript MCP SDK's stdio client.
//
//   node check.mjs AGENT_HOST WORKSPACE CLIENT_ROOT OUTSIDE_FILE
//
// It starts AGENT_HOST mcp --root WORKSPACE, offers CLIENT_ROOT as a client
// root, and checks: the tool list (no exec without --allow-exec), a write
// and a read back, an edit with its diff, a read in the client's root, a
// refused escape (isError, naming the roots, the outside file unread), and a
// resources/updated notification for a subscribed file after a write,
// directory_tree and search_files (their structured content checked by the
// SDK against their output schemas), and a PNG read exactly. It
// prints one line per check and exits non-zero on the first failure.
import assert from "node:assert/strict";
import fs from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ListRootsRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [bin, ws, clientRoot, outside] = process.argv.slice(2);
if (!bin || !ws || !clientRoot || !outside) {
  console.error("usage: node check.mjs AGENT_HOST WORKSPACE CLIENT_ROOT OUTSIDE_FILE");
  process.exit(2);
}

const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
const ok = (what) => console.log(`ok: ${what}`);

const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--root", ws], stderr: "inherit" });
const client = new Client({ name: "agenthost-e2e-ts", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({
  roots: [{ uri: pathToFileURL(clientRoot).href, name: "client root" }],
}));
const updates = [];
let onUpdate = () => {};
client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
  updates.push(n.params.uri);
  onUpdate();
});

const timeout = setTimeout(() => {
  console.error("FAIL: timed out");
  process.exit(1);
}, 30000);

try {
  await client.connect(transport);
  const info = client.getServerVersion();
  assert.equal(info.name, "agent-host");
  ok(`connected to ${info.name} ${info.version}`);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  for (const want of ["read_file", "write_file", "edit_file", "move_file", "walk", "list_roots", "send_user_file"]) {
    assert.ok(names.includes(want), `tool ${want} missing from ${names}`);
  }
  assert.ok(!names.includes("exec") && !names.includes("run_capture"), `exec offered without --allow-exec: ${names}`);
  for (const t of tools) {
    assert.ok(t.description && t.inputSchema?.type === "object", `tool ${t.name} lacks a description or schema`);
  }
  ok(`listed ${names.length} tools: ${names.join(", ")}`);

  let res = await client.callTool({ name: "write_file", arguments: { path: "hello.txt", content: "hello from TypeScript\n" } });
  assert.ok(!res.isError, text(res));
  assert.equal(res.structuredContent?.size, 22);
  res = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
  assert.ok(!res.isError, text(res));
  assert.equal(text(res), "hello from TypeScript\n");
  ok("wrote and read back hello.txt");

  res = await client.callTool({
    name: "edit_file",
    arguments: { path: "hello.txt", edits: [{ oldText: "TypeScript", newText: "Node" }] },
  });
  assert.ok(!res.isError, text(res));
  assert.match(text(res), /-hello from TypeScript\n\+hello from Node\n/);
  ok("edited hello.txt, got the diff");

  res = await client.callTool({ name: "read_file", arguments: { path: join(clientRoot, "root.txt") } });
  assert.ok(!res.isError, text(res));
  assert.equal(text(res), "in the client root\n");
  ok("read a file in the client's root");

  for (const path of [outside, "../" + outside.split("/").slice(-2).join("/"), "~/.ssh/id_rsa"]) {
    res = await client.callTool({ name: "read_file", arguments: { path } });
    assert.equal(res.isError, true, `escape ${path} not refused: ${text(res)}`);
    assert.match(text(res), /outside the directories/);
    assert.ok(text(res).includes(ws), `the refusal does not name the workspace root: ${text(res)}`);
    assert.ok(!text(res).includes("SECRET"), `the refusal leaked the file: ${text(res)}`);
  }
  res = await client.callTool({ name: "write_file", arguments: { path: outside, content: "pwned" } });
  assert.equal(res.isError, true);
  ok("escapes refused with isError, naming the roots");

  const uri = pathToFileURL(join(ws, "hello.txt")).href;
  await client.subscribeResource({ uri });
  const got = new Promise((resolve) => {
    onUpdate = () => updates.includes(uri) && resolve();
  });
  res = await client.callTool({ name: "write_file", arguments: { path: "hello.txt", content: "changed\n" } });
  assert.ok(!res.isError, text(res));
  await got;
  ok(`notifications/resources/updated for ${uri} after a write`);

  const rr = await client.readResource({ uri });
  assert.equal(rr.contents[0].text, "changed\n");
  ok("read the resource");

  // The SDK checks structuredContent against each tool's outputSchema
  // (directory_tree's is recursive, through $defs): a mismatch throws.
  res = await client.callTool({ name: "directory_tree", arguments: {} });
  assert.ok(!res.isError, text(res));
  assert.ok(res.structuredContent.entries.some((e) => e.name === "hello.txt" && e.type === "file"), JSON.stringify(res.structuredContent));
  res = await client.callTool({ name: "search_files", arguments: { pattern: "*.txt" } });
  assert.ok(!res.isError, text(res));
  assert.deepEqual(res.structuredContent.matches, [{ path: "hello.txt", type: "file" }]);
  ok("directory_tree and search_files, structured content valid against their output schemas");

  // walk's structured content is written by the server itself and, this
  // large, spliced in by its transport: the SDK checks it against walk's
  // outputSchema too.
  res = await client.callTool({ name: "walk", arguments: { maxEntries: 50000 } });
  assert.ok(!res.isError, text(res));
  const walked = res.structuredContent.entries.filter((e) => e.path.startsWith("many/"));
  assert.equal(walked.length, 1500, JSON.stringify(res.structuredContent).slice(0, 300));
  assert.ok(text(res).includes("many/f0007.dat\n"), text(res).slice(0, 300));
  ok("walk of 1,500 files, structured content valid against its output schema");

  const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a7e1e6b00000000049454e44ae426082", "hex");
  await client.callTool({ name: "write_file", arguments: { path: "dot.png", content: "" } });
  fs.writeFileSync(join(ws, "dot.png"), png);
  res = await client.callTool({ name: "read_media_file", arguments: { path: "dot.png" } });
  assert.ok(!res.isError, JSON.stringify(res));
  assert.equal(res.content[0].type, "image");
  assert.equal(res.content[0].mimeType, "image/png");
  assert.ok(Buffer.from(res.content[0].data, "base64").equals(png), "the image's bytes changed");
  const pr = await client.readResource({ uri: pathToFileURL(join(ws, "dot.png")).href });
  assert.equal(pr.contents[0].mimeType, "image/png");
  assert.ok(Buffer.from(pr.contents[0].blob, "base64").equals(png), "the blob's bytes changed");
  ok("read_media_file and resources/read give a PNG's bytes exactly, typed image/png");

  await client.close();
  clearTimeout(timeout);
  console.log("e2e/ts: all checks passed");
} catch (err) {
  console.error("FAIL:", err);
  process.exit(1);
}
