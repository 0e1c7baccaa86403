// The minimal agent (minimal-agent.js) traced by `youyou-agent/otel` on the API's global tracer:
// what the plugin (and `@opentelemetry/api`) add is this app's size minus the minimal agent's.
import { AgentBuilder, InMemorySessionStorage, defineTool } from 'youyou-agent';
import { OpenAIProvider } from 'youyou-agent/openai';
import { otelPlugin } from 'youyou-agent/otel';
import * as z from 'zod/mini';

const echo = defineTool({
  name: 'echo',
  description: 'Repeats its text',
  parameters: z.object({ text: z.string() }),
  execute: async ({ arguments: { text } }) => text,
});

// An app build keeps only what runs: the app hands its entry point to the page.
window.ask = async function ask(apiKey, question) {
  const agent = await new AgentBuilder({ defaultModel: 'gpt-4o-mini' })
    .registerModelProvider(
      new OpenAIProvider({
        apiKey,
        dangerouslyAllowBrowser: true,
        models: [
          {
            id: 'gpt-4o-mini',
            displayName: 'GPT-4o mini',
            contextWindow: 128_000,
            capabilities: { toolUse: true, vision: true, streaming: true },
          },
        ],
      }),
    )
    .registerTool(echo)
    .registerPlugin(otelPlugin())
    .registerSessionStorage(new InMemorySessionStorage())
    .build();
  const session = await agent.newSession();
  const turn = await session.sendMessage(question);
  return turn.result;
};
