// Smoke test of the built package, as a user installs it: `npm pack`, install the tarball into a
// scratch project, then run a turn with a tool through `youyou-agent` and `youyou-agent/testing`
// and type-check a consumer file against the published declarations.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const dir = mkdtempSync(join(tmpdir(), 'youyou-smoke-'));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] }).toString();

const tarball = run('npm', ['pack', '--silent', '--pack-destination', dir], root).trim().split('\n').pop();
writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'smoke', private: true, type: 'module' }));
// --offline: the dependencies come from npm's cache, filled by this repository's `npm ci`.
run('npm', ['install', '--silent', '--no-audit', '--no-fund', '--offline', join(dir, tarball)], dir);

const consumer = `
import { AgentBuilder, InMemorySessionStorage, defineTool, type AgentEvent } from 'youyou-agent';
import { ScriptedModelProvider, reply } from 'youyou-agent/testing';
import * as z from 'zod/mini';

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
console.log('dist smoke: ' + seen.join(' → '));
`;
writeFileSync(join(dir, 'consumer.ts'), consumer);
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
    },
    files: ['consumer.ts'],
  }),
);
run(join(root, 'node_modules/.bin/tsc'), ['-p', dir], dir);
process.stdout.write(run(join(root, 'node_modules/.bin/tsx'), ['consumer.ts'], dir));
