// Interop spec: JSON-RPC errors reach the official TypeScript MCP client
// (@modelcontextprotocol/client 2.x) with their code and message. In the
// Legacy era glmcp answers an error about a request it could parse with
// HTTP 200 and the error object (issue #13 item 9): with a 4xx the client
// throws a transport error ("Error POSTing to endpoint") and the code is
// lost. The 2026-07-28 era keeps its 400s, which this client also reads.
//
// Run by spec/interop_ts_test.go with:
//
//   GLMCP_URL    the MCP endpoint
//   GLMCP_TOKEN  a personal access token with the mcp scope
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run this through spec/interop_ts_test.go)`);
  return v;
}

const serverURL = new URL(env('GLMCP_URL'));
const token = env('GLMCP_TOKEN');

// anyResult is a Standard Schema that accepts any result: request() of a
// method outside the spec needs one.
const anyResult = { '~standard': { version: 1, vendor: 'glmcp-interop', validate: (value) => ({ value }) } };

async function connect(options) {
  const client = new Client({ name: 'glmcp-interop-errors', version: '1.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(serverURL, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

// rejectsWith asserts that promise fails with a ProtocolError of code whose
// message matches message (not a transport error).
async function rejectsWith(promise, code, message) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof ProtocolError, `want a ProtocolError, got ${err?.name}: ${err?.message}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return true;
  });
}

test('legacy era: JSON-RPC errors reach the caller with code and message', async () => {
  const client = await connect();
  try {
    assert.equal(client.getProtocolEra(), 'legacy');
    await rejectsWith(client.callTool({ name: 'no_such_tool', arguments: {} }), -32602, /Tool 'no_such_tool' not found\./);
    await rejectsWith(client.getPrompt({ name: 'no_such_prompt' }), -32602, /Prompt not found: "no_such_prompt"/);
    await rejectsWith(client.request({ method: 'glmcp/no_such_method', params: {} }, anyResult), -32601,
      /Method not found: glmcp\/no_such_method/);
    // The connection is still good afterwards.
    const res = await client.callTool({ name: 'get_mcp_server_version', arguments: {} });
    assert.notEqual(res.isError, true, JSON.stringify(res));
  } finally {
    await client.close();
  }
});

test('modern era (2026-07-28): the 400 keeps its code and message too', async () => {
  const client = await connect({ versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    assert.equal(client.getProtocolEra(), 'modern');
    await rejectsWith(client.callTool({ name: 'no_such_tool', arguments: {} }), -32602, /Tool 'no_such_tool' not found\./);
  } finally {
    await client.close();
  }
});
