// The minimal agent (minimal-agent.js) with its sessions in PostgreSQL instead of memory: what
// `youyou-agent/postgres` adds is this app's size minus the minimal agent's. `pg` is the app's
// own (a server app bundles it or not); it is left out of the count.
import { AgentBuilder, defineTool } from 'youyou-agent';
import { OpenAIProvider } from 'youyou-agent/openai';
import { PostgresSessionStorage, pgClient } from 'youyou-agent/postgres';
import * as z from 'zod/mini';

const echo = defineTool({
  name: 'echo',
  description: 'Repeats its text',
  parameters: z.object({ text: z.string() }),
  execute: async ({ arguments: { text } }) => text,
});

// An app build keeps only what runs: the app hands its entry point to the page.
window.ask = async function ask(apiKey, question, pool) {
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
    .registerSessionStorage(new PostgresSessionStorage({ sql: pgClient(pool) }))
    .build();
  const session = await agent.newSession();
  const turn = await session.sendMessage(question);
  return turn.result;
};
