// Interop spec: the official TypeScript MCP client (@modelcontextprotocol/client
// 2.x), pinned to protocol revision 2026-07-28 and declaring elicitation,
// completes glmcp's Ask flow: create_issue under an "ask" tool rule answers
// input_required with an elicitation; the client's elicitation handler
// sees what will be written and accepts (one issue written) or declines
// (nothing written, an error result).
//
// Run by spec/tool_rules_ts_test.go with:
//
//   GLMCP_URL      the MCP endpoint
//   GLMCP_TOKEN    a personal access token of a developer of GLMCP_PROJECT
//   GLMCP_PROJECT  the project whose create_issue is under an ask rule
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run this through spec/tool_rules_ts_test.go)`);
  return v;
}

const serverURL = new URL(env('GLMCP_URL'));
const token = env('GLMCP_TOKEN');
const project = env('GLMCP_PROJECT');

test('Ask rule: elicitation accepted writes, declined does not', async () => {
  const asked = [];
  let answer = 'accept';
  const client = new Client(
    { name: 'glmcp-interop-ask', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return answer === 'accept' ? { action: 'accept', content: {} } : { action: answer };
  });
  const transport = new StreamableHTTPClientTransport(serverURL, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  try {
    assert.equal(client.getProtocolEra(), 'modern');
    const args = { id: project, title: 'written by the TypeScript client' };
    const ok = await client.callTool({ name: 'create_issue', arguments: args });
    assert.notEqual(ok.isError, true, JSON.stringify(ok));
    assert.equal(asked.length, 1);
    assert.match(asked[0], /create_issue/);
    assert.match(asked[0], /title: written by the TypeScript client/);
    assert.ok(asked[0].includes(project), asked[0]);

    answer = 'decline';
    const no = await client.callTool({ name: 'create_issue', arguments: args });
    assert.equal(no.isError, true, JSON.stringify(no));
    assert.equal(asked.length, 2);
  } finally {
    await client.close();
  }
});
