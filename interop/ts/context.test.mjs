// Interop spec: the official TypeScript MCP client (@modelcontextprotocol/client
// 2.x) uses glmcp's resources, prompts and completions in both protocol
// eras, and in the 2026-07-28 era subscribes to a resource on a listen
// stream and hears its update.
//
// Run by spec/context_ts_test.go with:
//
//   GLMCP_URL      the MCP endpoint
//   GLMCP_BASE     the instance's public URL (resource URIs live under it)
//   GLMCP_TOKEN    a personal access token of alice (developer of gitlab-org/gitlab-mcp)
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run this through spec/context_ts_test.go)`);
  return v;
}

const serverURL = new URL(env('GLMCP_URL'));
const base = env('GLMCP_BASE');
const token = env('GLMCP_TOKEN');
const project = 'gitlab-org/gitlab-mcp';

async function connect(mode) {
  const client = new Client(
    { name: 'glmcp-interop-context', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode } },
  );
  const transport = new StreamableHTTPClientTransport(serverURL, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

for (const [era, mode] of [['legacy', 'legacy'], ['modern', { pin: '2026-07-28' }]]) {
  test(`${era}: resources, prompts and completions`, async () => {
    const client = await connect(mode);
    try {
      assert.equal(client.getProtocolEra(), era);

      const list = await client.listResources();
      const projectURI = `${base}/${project}`;
      assert.ok(list.resources.some((r) => r.uri === projectURI), JSON.stringify(list.resources.map((r) => r.uri)));

      const templates = await client.listResourceTemplates();
      assert.ok(templates.resourceTemplates.some((t) => t.uriTemplate === `${base}/{+project}/-/issues/{iid}`));

      const read = await client.readResource({ uri: projectURI });
      assert.equal(read.contents[0].uri, projectURI);
      assert.equal(JSON.parse(read.contents[0].text).path_with_namespace, project);

      const issue = await client.readResource({ uri: `${projectURI}/-/issues/1` });
      assert.equal(JSON.parse(issue.contents[0].text).iid, 1);

      await assert.rejects(client.readResource({ uri: `${base}/acme/no-such-project` }), (err) => {
        assert.equal(err.code, -32602, String(err));
        return true;
      });

      const prompts = await client.listPrompts();
      assert.deepEqual(prompts.prompts.map((p) => p.name).sort(),
        ['explain_failed_pipeline', 'review_merge_request', 'summarize_changes', 'triage_issue']);
      const prompt = await client.getPrompt({ name: 'triage_issue', arguments: { project, iid: '1' } });
      assert.ok(prompt.messages.length > 0);

      const done = await client.complete({
        ref: { type: 'ref/prompt', name: 'triage_issue' },
        argument: { name: 'project', value: 'gitlab-org/gitlab-m' },
      });
      assert.ok(done.completion.values.includes(project), JSON.stringify(done.completion));
    } finally {
      await client.close();
    }
  });
}

test('modern: a resource subscription on a listen stream hears the update', async () => {
  const client = await connect({ pin: '2026-07-28' });
  const mrURI = `${base}/${project}/-/merge_requests/1`;
  try {
    const updated = new Promise((resolve) => {
      client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri));
    });
    const sub = await client.listen({ resourceSubscriptions: [mrURI, `${base}/acme/no-such-project`] });
    assert.deepEqual(sub.honoredFilter.resourceSubscriptions, [mrURI]);

    const res = await client.callTool({
      name: 'save_merge_request',
      arguments: { project_id: project, merge_request_iid: 1, title: 'Changed by the TypeScript client' },
    });
    assert.notEqual(res.isError, true, JSON.stringify(res));
    assert.equal(await updated, mrURI);
    await sub.close();
  } finally {
    await client.close();
  }
});
