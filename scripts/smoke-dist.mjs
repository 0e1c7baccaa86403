// Smoke test of the built package, as a user installs it: `npm pack`, install the tarball into a
// scratch project, then
// 1. without `openai` (an optional peer, so not installed): run a turn with a tool through
//    `youyou-agent`, `youyou-agent/testing` and `youyou-agent/mcp`, and type-check that consumer against the published
//    declarations;
// 2. with `openai@7` added: type-check a consumer that passes its own `OpenAI` client to
//    `OpenAIProvider`, and stream a response from a local server with and without that client
//    (openai 7 declares Node ≥ 22; what this uses of it runs on Node 20 too).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const OPENAI_7 = 'openai@7.55.0';

const root = resolve(new URL('..', import.meta.url).pathname);
const dir = mkdtempSync(join(tmpdir(), 'youyou-smoke-'));
const run = (cmd, args, cwd) => {
  try {
    return execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] }).toString();
  } catch (error) {
    // tsc reports on stdout: show it.
    process.stderr.write(error.stdout?.toString() ?? '');
    throw new Error(`smoke: ${cmd} ${args.join(' ')} failed (in ${cwd})`);
  }
};
// --prefer-offline: packages come from npm's cache (filled by this repository's `npm ci`) when
// they are there, from the registry otherwise.
const install = (...specs) =>
  run('npm', ['install', '--silent', '--no-audit', '--no-fund', '--prefer-offline', ...specs], dir);
const typeCheck = (file, types = []) => {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types,
      },
      files: [file],
    }),
  );
  run(join(root, 'node_modules/.bin/tsc'), ['-p', dir], dir);
};

const tarball = run('npm', ['pack', '--silent', '--pack-destination', dir], root).trim().split('\n').pop();
writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'smoke', private: true, type: 'module' }));
install(join(dir, tarball));
if (existsSync(join(dir, 'node_modules/openai')))
  throw new Error('openai was installed, but it is an optional peer');

const consumer = `
import { AgentBuilder, InMemorySessionStorage, defineTool, type AgentEvent } from 'youyou-agent';
import { ScriptedModelProvider, reply } from 'youyou-agent/testing';
import { mcpServer } from 'youyou-agent/mcp';
import * as z from 'zod/mini';

// The MCP entry resolves and types; building a source opens no connection.
const source = mcpServer({ name: 'notes', url: 'http://127.0.0.1:9/mcp' });
if (source.id === '' || typeof source.tools !== 'function') throw new Error('mcpServer gave no tool source');

const echo = defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }),
  execute: async ({ arguments: { text } }) => text.toUpperCase() });
const agent = await new AgentBuilder({ defaultModel: 'scripted-model' })
  .registerModelProvider(new ScriptedModelProvider({ script: [
    reply.toolCalls([{ name: 'echo', arguments: { text: 'hi' } }]), reply.text('done') ] }))
  .registerTool(echo).registerSessionStorage(new InMemorySessionStorage()).build();
const session = await agent.newSession();
const turn = await session.sendMessage('go');
const seen: AgentEvent['payload']['type'][] = [];
turn.events.subscribe((e) => seen.push(e.payload.type));
const result = await turn.result;
await agent.shutdown();
if (result.status !== 'completed' || !seen.includes('tool_call_end')) throw new Error('smoke turn failed: ' + seen.join(','));
if (session.interruptedTurn !== null) throw new Error('a finished turn reads as interrupted');
console.log('dist smoke (no openai installed): ' + seen.join(' → ') + '; youyou-agent/mcp loads');
`;
writeFileSync(join(dir, 'consumer.ts'), consumer);
typeCheck('consumer.ts');
process.stdout.write(run(join(root, 'node_modules/.bin/tsx'), ['consumer.ts'], dir));

// The declarations never name the SDK's types, so a second copy of the SDK in an app cannot clash.
const types = join(dir, 'node_modules/youyou-agent/dist');
for (const file of readdirSync(types, { recursive: true }).filter((name) => name.endsWith('.d.ts'))) {
  if (/from ['"]openai|import\(['"]openai/.test(readFileSync(join(types, file), 'utf8'))) {
    throw new Error(`smoke: dist/${file} refers to the openai package's types`);
  }
}

// This consumer runs a local server, so it needs Node's types too (the version this repository uses).
const nodeTypes = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies['@types/node'];
install(OPENAI_7, `@types/node@${nodeTypes}`);
const ownClient = `
import { createServer } from 'node:http';
import OpenAI, { AzureOpenAI } from 'openai';
import { AgentError, ProviderRegistry, type ChatRequest } from 'youyou-agent';
import { OpenAIProvider, type OpenAIProviderOptions } from 'youyou-agent/openai';

// Node gets the bundled build (scripts/build-node.mjs), whose entries share one copy of each
// module: an error thrown by one entry is an instance of the class the other exports.
for (const entry of ['youyou-agent', 'youyou-agent/openai']) {
  if (!import.meta.resolve(entry).includes('/dist/node/')) throw new Error(entry + ': not the Node build');
}
// The root entry's registerWithConfig loads the OpenAI provider by import(): in the Node build
// a chunk of its own, with the same classes as youyou-agent/openai.
const registry = new ProviderRegistry();
const loaded = await registry.registerWithConfig('local', 'openai-compatible', {
  apiKey: 'k',
  baseURL: 'http://127.0.0.1:9/v1',
  models: [{ id: 'm', displayName: 'M', contextWindow: 8192, capabilities: { toolUse: true, vision: false, streaming: true } }],
});
if (!(loaded instanceof OpenAIProvider)) throw new Error('registerWithConfig made another OpenAIProvider class');
try {
  new OpenAIProvider({ models: [] });
  throw new Error('OpenAIProvider accepted no models');
} catch (error) {
  if (!(error instanceof AgentError) || error.code !== 'INVALID_INPUT') throw error;
}

// A local Chat Completions server that streams "hi".
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\\n\\ndata: [DONE]\\n\\n');
  });
});
await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
const { port } = server.address() as { port: number };
const baseURL = 'http://127.0.0.1:' + port + '/v1';

const models: OpenAIProviderOptions['models'] = [{ id: 'm', displayName: 'M', contextWindow: 8192,
  capabilities: { toolUse: true, vision: false, streaming: true } }];
const providers = [
  new OpenAIProvider({ baseURL, apiKey: 'k', models }),
  new OpenAIProvider({ client: new OpenAI({ apiKey: 'k', baseURL }), models }),
];
// Type-checked only: an Azure client is accepted too.
export const azure = () =>
  new OpenAIProvider({ client: new AzureOpenAI({ apiKey: 'k', endpoint: baseURL, apiVersion: '2024-10-21' }), models });

for (const provider of providers) {
  let text = '';
  const request: ChatRequest = { model: 'm', systemPrompt: '', messages: [], tools: [], purpose: 'turn' };
  for await (const event of provider.chat(request, new AbortController().signal)) {
    if (event.type === 'text_delta') text += event.text;
  }
  if (text !== 'hi') throw new Error('openai 7 smoke: expected "hi", got ' + JSON.stringify(text));
}
server.close();
console.log('dist smoke (${OPENAI_7}): its own client type-checks; a stream runs with and without it; Node loads dist/node/');
`;
writeFileSync(join(dir, 'own-client.ts'), ownClient);
typeCheck('own-client.ts', ['node']);
process.stdout.write(run(join(root, 'node_modules/.bin/tsx'), ['own-client.ts'], dir));

// The agent on a server: youyou-agent/server behind node:http, youyou-agent/remote as its client.
const onServer = `
import { createServer } from 'node:http';
import { AgentBuilder, InMemorySessionStorage } from 'youyou-agent';
import { RemoteAgent } from 'youyou-agent/remote';
import { createAgentHandler, toNodeListener } from 'youyou-agent/server';
import { ScriptedModelProvider, reply } from 'youyou-agent/testing';

const model = new ScriptedModelProvider({ script: [reply.text('from the server', { chunks: 3 })] });
const handler = createAgentHandler({
  agent: ({ userId }) => new AgentBuilder({ defaultModel: 'scripted-model' }).registerModelProvider(model)
    .registerSessionStorage(new InMemorySessionStorage({ namespace: userId })).build(),
  authorize: (request) => (request.headers.get('authorization') === 'Bearer t' ? { userId: 'u' } : null),
});
const server = createServer(toNodeListener(handler));
await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
const { port } = server.address() as { port: number };
const session = await new RemoteAgent({ url: 'http://127.0.0.1:' + port + '/agent', headers: { authorization: 'Bearer t' } }).newSession();
const turn = await session.sendMessage('hi');
let text = '';
turn.events.subscribe((e) => { if (e.payload.type === 'text_delta') text += e.payload.text; });
const result = await turn.result;
await session.close();
server.closeAllConnections();
server.close();
if (result.status !== 'completed' || text !== 'from the server') throw new Error('server smoke: ' + result.status + ' ' + text);
console.log('dist smoke: youyou-agent/server and youyou-agent/remote run a turn over HTTP');
`;
writeFileSync(join(dir, 'on-server.ts'), onServer);
typeCheck('on-server.ts', ['node']);
process.stdout.write(run(join(root, 'node_modules/.bin/tsx'), ['on-server.ts'], dir));
