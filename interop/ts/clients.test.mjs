// Interop spec: the MCP clients people point at GitLab, against glmcp
// (issue #20): the official TypeScript SDK v1 (@modelcontextprotocol/sdk)
// and v2 (@modelcontextprotocol/client), the LangChain.js MCP adapters, the
// MCP Inspector CLI and Claude Code's `claude mcp list` health check. Each
// connects and lists or calls tools in every era it speaks (SDK v2: both,
// chosen here; Claude Code: 2026-07-28, its own choice; SDK v1, LangChain
// and the Inspector CLI: 2025-11-25, their newest), and each, given a revoked token
// (and the Orbit endpoint a read_api token), prints a reason a person can
// act on: what is wrong with which credential, and what to do.
// mcp-remote is driven from spec/interop_mcp_remote_test.go.
//
// Run by spec/interop_ts_test.go with:
//
//   GLMCP_URL, GLMCP_EE_URL   the CE and Orbit endpoints
//   GLMCP_TOKEN               a personal access token with the mcp scope (EE seat)
//   GLMCP_REVOKED_TOKEN       a revoked one, and GLMCP_REVOKED_REASON what glmcp says about it
//   GLMCP_READAPI_TOKEN       one with read_api only, and GLMCP_READAPI_EE_REASON what Orbit says
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inspect, promisify } from 'node:util';

import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run this through spec/interop_ts_test.go)`);
  return v;
}

const ce = env('GLMCP_URL');
const ee = env('GLMCP_EE_URL');
const token = env('GLMCP_TOKEN');
const revoked = env('GLMCP_REVOKED_TOKEN');
const revokedReason = env('GLMCP_REVOKED_REASON');
const readAPI = env('GLMCP_READAPI_TOKEN');
const readAPIReason = env('GLMCP_READAPI_EE_REASON');

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const bearer = (t) => ({ Authorization: `Bearer ${t}` });

// failure runs fn and returns what console.error prints of what it throws
// (message, cause and the error's data: SDK v2 keeps the response body in
// data.text).
async function failure(fn) {
  try {
    await fn();
  } catch (err) {
    return inspect(err, { depth: 6, breakLength: Infinity });
  }
  assert.fail('expected a failure');
}

// --- TypeScript SDK v1 ---------------------------------------------------

async function connectV1(url, t) {
  const client = new ClientV1({ name: 'glmcp-interop-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers: bearer(t) } }));
  return client;
}

test('SDK v1: negotiates 2025-11-25, lists and calls tools on both endpoints', async () => {
  for (const url of [ce, ee]) {
    const client = await connectV1(url, token);
    try {
      assert.equal(client.transport.protocolVersion, '2025-11-25');
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'get_mcp_server_version'), JSON.stringify(tools.map((t) => t.name)));
      const res = await client.callTool({ name: 'get_mcp_server_version', arguments: {} });
      assert.notEqual(res.isError, true, JSON.stringify(res));
      assert.equal(res.structuredContent.edition, url === ee ? 'ee' : 'ce');
    } finally {
      await client.close();
    }
  }
});

test('SDK v1: a revoked token and a read_api token on Orbit say why', async () => {
  assert.ok((await failure(() => connectV1(ce, revoked))).includes(revokedReason));
  assert.ok((await failure(() => connectV1(ee, readAPI))).includes(readAPIReason));
});

// --- TypeScript SDK v2 ---------------------------------------------------

async function connectV2(url, t, options) {
  const client = new ClientV2({ name: 'glmcp-interop-v2', version: '1.0.0' }, options);
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers: bearer(t) } }));
  return client;
}

const eras = [
  ['legacy', undefined],
  ['modern', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
];

test('SDK v2: both eras list and call tools on both endpoints', async () => {
  for (const url of [ce, ee]) {
    for (const [era, options] of eras) {
      const client = await connectV2(url, token, options);
      try {
        assert.equal(client.getProtocolEra(), era);
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'get_mcp_server_version'));
        const res = await client.callTool({ name: 'get_mcp_server_version', arguments: {} });
        assert.notEqual(res.isError, true, JSON.stringify(res));
      } finally {
        await client.close();
      }
    }
  }
});

test('SDK v2: a revoked token and a read_api token on Orbit say why, in both eras', async () => {
  for (const [era, options] of eras) {
    const a = await failure(async () => {
      const c = await connectV2(ce, revoked, options);
      await c.listTools();
    });
    assert.ok(a.includes(revokedReason), `${era}: ${a}`);
    // A 403 is a step-up: this client shows the challenge's scope only,
    // so the scope named is one a person can create a token with.
    const b = await failure(async () => {
      const c = await connectV2(ee, readAPI, options);
      await c.listTools();
    });
    assert.ok(b.includes('Insufficient scope: required "mcp"'), `${era}: ${b}`);
  }
});

// --- LangChain.js MCP adapters ---------------------------------------------

function langchain(url, t) {
  return new MultiServerMCPClient({
    throwOnLoadError: true,
    useStandardContentBlocks: true,
    mcpServers: { gitlab: { transport: 'http', url, headers: bearer(t), automaticSSEFallback: false } },
  });
}

test('LangChain adapters: load the tools as LangChain tools and run one', async () => {
  for (const url of [ce, ee]) {
    const client = langchain(url, token);
    try {
      const tools = await client.getTools();
      const version = tools.find((t) => t.name === 'get_mcp_server_version');
      assert.ok(version, JSON.stringify(tools.map((t) => t.name)));
      const out = await version.invoke({});
      assert.match(JSON.stringify(out), /0\.|dev/);
    } finally {
      await client.close();
    }
  }
});

test('LangChain adapters: a revoked token and a read_api token on Orbit say why', async () => {
  for (const [url, t, want] of [[ce, revoked, revokedReason], [ee, readAPI, readAPIReason]]) {
    const client = langchain(url, t);
    try {
      const msg = await failure(() => client.getTools());
      assert.ok(msg.includes(want), msg);
    } finally {
      await client.close();
    }
  }
});

// --- MCP Inspector CLI -----------------------------------------------------

// inspector runs the Inspector's CLI mode; it finds its own package.json
// relative to the working directory, hence cwd.
async function inspector(url, t, ...args) {
  const dir = join(here, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');
  try {
    const { stdout, stderr } = await run(process.execPath,
      ['index.js', url, '--transport', 'http', '--header', `Authorization: Bearer ${t}`, ...args],
      { cwd: dir, timeout: 60_000 });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    return { code: err.code, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

test('Inspector CLI: lists and calls tools on both endpoints', async () => {
  for (const url of [ce, ee]) {
    const list = await inspector(url, token, '--method', 'tools/list');
    assert.equal(list.code, 0, list.out);
    assert.ok(JSON.parse(list.out).tools.some((t) => t.name === 'get_mcp_server_version'), list.out);
    const call = await inspector(url, token, '--method', 'tools/call', '--tool-name', 'get_mcp_server_version');
    assert.equal(call.code, 0, call.out);
    assert.equal(JSON.parse(call.out).structuredContent.edition, url === ee ? 'ee' : 'ce');
  }
});

test('Inspector CLI: a revoked token and a read_api token on Orbit say why', async () => {
  for (const [url, t, want] of [[ce, revoked, revokedReason], [ee, readAPI, readAPIReason]]) {
    const r = await inspector(url, t, '--method', 'tools/list');
    assert.notEqual(r.code, 0, r.out);
    assert.ok(r.out.includes(want), r.out);
  }
});

// --- Claude Code: claude mcp add / claude mcp list ---------------------------

test('Claude Code: mcp list connects with a good token and says why it cannot with others', async () => {
  const home = await mkdtemp(join(tmpdir(), 'glmcp-claude-'));
  const claude = join(here, 'node_modules', '.bin', 'claude');
  // Its own HOME and config: nothing shared with the user, no API key needed.
  const opts = { cwd: home, timeout: 120_000, env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') } };
  try {
    const servers = [
      ['good-ce', ce, token],
      ['good-ee', ee, token],
      ['revoked', ce, revoked],
      ['readapi-ee', ee, readAPI],
    ];
    for (const [name, url, t] of servers) {
      await run(claude, ['mcp', 'add', '--transport', 'http', name, url, '--header', `Authorization: Bearer ${t}`], opts);
    }
    const { stdout } = await run(claude, ['mcp', 'list'], opts);
    const line = (name) => stdout.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '';
    assert.match(line('good-ce'), /✔ Connected/, stdout);
    assert.match(line('good-ee'), /✔ Connected/, stdout);
    assert.match(line('revoked'), /✘ Failed to connect/, stdout);
    // Claude Code shows the body's start: the reason leads it.
    assert.ok(line('revoked').includes(revokedReason), stdout);
    // A 403 step-up shows the challenge's scope: one a person can create.
    assert.ok(line('readapi-ee').includes('Insufficient scope: required "mcp"'), stdout);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
