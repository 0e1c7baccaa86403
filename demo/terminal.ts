/**
 * `npm run demo:terminal` (terminal edition): an agent with two tools, streaming through the real
 * `openai` SDK over HTTP to a local OpenAI-compatible server, with persistence and resume.
 * Pass your own question: `npm run demo:terminal -- "What is the weather in Lyon?"`.
 */
import { z } from 'zod';
import { AgentBuilder, InMemorySessionStorage, defineTool, type AgentEvent } from '../src/index.js';
import { OpenAIProvider } from '../src/openai.js';
import { startMockModelServer } from './mock-model-server.js';

const dim = (s: string) => `\x1b[2m${s}\x1b[0m`;
const cyan = (s: string) => `\x1b[36m${s}\x1b[0m`;
const yellow = (s: string) => `\x1b[33m${s}\x1b[0m`;

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ arguments: { city } }) => `${city}: sunny, 21°C`,
});
const time = defineTool({
  name: 'get_time',
  description: 'Local time in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ arguments: { city } }) => `${city}: ${new Date().toISOString().slice(11, 16)} UTC`,
});

function render(event: AgentEvent): void {
  const p = event.payload;
  switch (p.type) {
    case 'text_delta':
      process.stdout.write(p.text);
      break;
    case 'tool_call_start':
      console.log(yellow(`  ⚙ ${p.toolName}(${JSON.stringify(p.arguments)})`));
      break;
    case 'tool_call_end':
      console.log(
        yellow(`  ✓ ${p.toolName} → ${p.output.content} ${dim(`(${p.durationMs.toFixed(1)} ms)`)}`),
      );
      break;
    case 'usage':
      console.log(dim(`\n  [usage] in ${p.usage.inputTokens} / out ${p.usage.outputTokens} tokens`));
      break;
    case 'turn_complete':
      console.log(dim(`  [turn complete: ${p.finishReason}]`));
      break;
    case 'error':
      console.log(yellow(`  [${p.fatal ? 'fatal ' : ''}error] ${p.error.message}`));
      break;
    default:
  }
}

const server = await startMockModelServer();
const storage = new InMemorySessionStorage();
const agent = await new AgentBuilder({
  defaultModel: 'demo-model',
  systemInstructions: ['You are a helpful assistant.'],
})
  .registerModelProvider(
    new OpenAIProvider({
      baseURL: server.baseURL,
      apiKey: 'not-needed-locally',
      models: [
        {
          id: 'demo-model',
          displayName: 'Demo model',
          contextWindow: 32_000,
          capabilities: { toolUse: true, vision: false, streaming: true },
        },
      ],
    }),
  )
  .registerTool(weather)
  .registerTool(time)
  .registerSessionStorage(storage)
  .build();

const questions =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2)
    : ['What is the weather and the time in Lyon?', 'Thanks!'];
const session = await agent.newSession();
console.log(dim(`model server ${server.baseURL} · session ${session.id}\n`));
for (const question of questions) {
  console.log(cyan(`> ${question}`));
  const turn = await session.sendMessage(question);
  turn.events.subscribe(render);
  await turn.result;
  console.log();
}
await session.close();

const resumed = await agent.resumeSession(session.id);
console.log(
  dim(
    `resumed ${resumed.id} from storage: ${resumed.messages.length} messages, the same as before the close.`,
  ),
);
await agent.shutdown();
await server.close();
