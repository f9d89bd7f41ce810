// Interop spec: the official TypeScript MCP client (@modelcontextprotocol/client
// 2.x), given only glmcp's endpoint URL and a pre-registered client id,
// discovers the authorization server from the 401 challenge (RFC 9728),
// signs in with the authorization code flow and PKCE, and then lists and
// calls tools.
//
// The Go spec spec/interop_ts_test.go starts glmcp and an in-test
// authorization server that approves the client at once, and runs this file
// with:
//
//   GLMCP_URL           the MCP endpoint, e.g. http://127.0.0.1:PORT/api/v4/mcp
//   GLMCP_AS_URL        the authorization server's issuer (only to check
//                       what the client discovered; the client is not told)
//   GLMCP_CLIENT_ID     the pre-registered public client id
//   GLMCP_REDIRECT_URI  the client's registered redirect URI (never served:
//                       the provider reads the redirect itself)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';

import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run this through spec/interop_ts_test.go)`);
  return v;
}

const serverURL = new URL(env('GLMCP_URL'));
const issuerURL = env('GLMCP_AS_URL');
const clientId = env('GLMCP_CLIENT_ID');
const redirectURI = env('GLMCP_REDIRECT_URI');

// HeadlessProvider is an OAuthClientProvider for a pre-registered public
// client that needs no browser: redirectToAuthorization follows the
// authorization URL with fetch, expects the authorization server to
// redirect straight back (it auto-approves this client) and keeps the
// callback parameters for finishAuth.
class HeadlessProvider {
  #client = { client_id: clientId };
  #tokens;
  #verifier;
  #discovery;
  #state;
  callback; // URLSearchParams of the redirect back, once authorized
  authorizationURLs = [];

  get redirectUrl() {
    return redirectURI;
  }

  get clientMetadata() {
    return {
      client_name: 'glmcp interop spec',
      redirect_uris: [redirectURI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state() {
    this.#state = randomUUID();
    return this.#state;
  }

  clientInformation() {
    return this.#client;
  }

  saveClientInformation(info) {
    this.#client = info;
  }

  tokens() {
    return this.#tokens;
  }

  saveTokens(tokens) {
    this.#tokens = tokens;
  }

  saveCodeVerifier(v) {
    this.#verifier = v;
  }

  codeVerifier() {
    if (!this.#verifier) throw new Error('no code verifier saved');
    return this.#verifier;
  }

  discoveryState() {
    return this.#discovery;
  }

  saveDiscoveryState(s) {
    this.#discovery = s;
  }

  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
  }

  async redirectToAuthorization(url) {
    this.authorizationURLs.push(new URL(url));
    const res = await fetch(url, { redirect: 'manual' });
    await res.text();
    assert.equal(res.status, 302, `authorization endpoint answered ${res.status}, want a redirect`);
    const back = new URL(res.headers.get('location'));
    assert.equal(`${back.origin}${back.pathname}`, redirectURI, 'redirected to the registered redirect URI');
    assert.equal(back.searchParams.get('state'), this.#state, 'state round-trips');
    this.callback = back.searchParams;
  }

  get accessToken() {
    return this.#tokens?.access_token;
  }
}

// recordingFetch logs every request the transport makes (the resource
// server and the authorization server), to check the discovery sequence.
function recordingFetch(log) {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    log.push({ method: init?.method ?? 'GET', url: url.href, status: res.status, www: res.headers.get('www-authenticate') });
    return res;
  };
}

test('OAuth discovery, authorization code + PKCE, then tools', async (t) => {
  const provider = new HeadlessProvider();
  const log = [];
  const metadataURL = new URL(`/.well-known/oauth-protected-resource${serverURL.pathname}`, serverURL);

  await t.test('first connect: 401, discovery, redirect to the authorization server', async () => {
    const client = new Client({ name: 'glmcp-interop', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(serverURL, { authProvider: provider, fetch: recordingFetch(log) });
    await assert.rejects(client.connect(transport), (err) => err instanceof UnauthorizedError);

    // The first request was refused with a challenge naming the metadata.
    assert.equal(log[0].method, 'POST');
    assert.equal(log[0].url, serverURL.href);
    assert.equal(log[0].status, 401);
    assert.equal(log[0].www, `Bearer realm="GitLab", resource_metadata="${metadataURL.href}"`);
    // The client followed the challenge to the metadata, then to the
    // authorization server named there.
    const fetched = log.slice(1).map((e) => `${e.method} ${e.url} ${e.status}`);
    assert.deepEqual(fetched, [
      `GET ${metadataURL.href} 200`,
      `GET ${issuerURL}/.well-known/oauth-authorization-server 200`,
    ]);

    assert.equal(provider.authorizationURLs.length, 1);
    const authz = provider.authorizationURLs[0];
    assert.equal(`${authz.origin}${authz.pathname}`, `${issuerURL}/authorize`);
    const q = authz.searchParams;
    assert.equal(q.get('client_id'), clientId);
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/);
    assert.equal(q.get('resource'), serverURL.href, 'RFC 8707 resource names the endpoint');
    assert.equal(q.get('scope'), 'mcp', 'scope from scopes_supported');
    assert.ok(provider.callback?.get('code'), 'the authorization server redirected back with a code');
    assert.equal(provider.callback.get('iss'), issuerURL, 'RFC 9207 iss');
    await transport.close();
  });

  await t.test('finishAuth redeems the code with the PKCE verifier', async () => {
    const transport = new StreamableHTTPClientTransport(serverURL, { authProvider: provider, fetch: recordingFetch(log) });
    const before = log.length;
    await transport.finishAuth(provider.callback);
    assert.ok(provider.accessToken, 'an access token was saved');
    const token = log.slice(before).filter((e) => e.method === 'POST');
    assert.deepEqual(token.map((e) => `${e.url} ${e.status}`), [`${issuerURL}/token 200`]);
    await transport.close();
  });

  await t.test('legacy era: connect, list tools, call get_mcp_server_version', async () => {
    const client = new Client({ name: 'glmcp-interop', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(serverURL, { authProvider: provider, fetch: recordingFetch(log) });
    await client.connect(transport);
    try {
      assert.equal(client.getProtocolEra(), 'legacy');
      assert.equal(client.getServerVersion()?.name, 'Official GitLab MCP Server');
      const { tools } = await client.listTools();
      const names = tools.map((x) => x.name);
      assert.ok(names.includes('get_mcp_server_version'), `tools: ${names}`);
      const res = await client.callTool({ name: 'get_mcp_server_version', arguments: {} });
      assert.notEqual(res.isError, true, JSON.stringify(res));
      assert.equal(res.content?.[0]?.type, 'text');
    } finally {
      await client.close();
    }
  });

  await t.test('modern era (2026-07-28): same token, server/discover, tools', async () => {
    const client = new Client({ name: 'glmcp-interop', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new StreamableHTTPClientTransport(serverURL, { authProvider: provider, fetch: recordingFetch(log) });
    await client.connect(transport);
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      const { tools } = await client.listTools();
      assert.ok(tools.some((x) => x.name === 'get_mcp_server_version'));
      const res = await client.callTool({ name: 'get_mcp_server_version', arguments: {} });
      assert.notEqual(res.isError, true, JSON.stringify(res));
    } finally {
      await client.close();
    }
  });

  await t.test('every request to glmcp after sign-in was accepted', () => {
    const afterSignIn = log.slice(log.findIndex((e) => e.url === `${issuerURL}/token`) + 1);
    const refused = afterSignIn.filter((e) => e.url === serverURL.href && e.method === 'POST' && e.status >= 400);
    assert.deepEqual(refused, []);
  });
});
