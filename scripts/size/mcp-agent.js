// The minimal agent (minimal-agent.js) plus the tools of one MCP server: what `youyou-agent/mcp`
// adds is this app's size minus the minimal agent's.
import { AgentBuilder, InMemorySessionStorage, defineTool } from 'youyou-agent';
import { mcpServer } from 'youyou-agent/mcp';
import { OpenAIProvider } from 'youyou-agent/openai';
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
    .registerToolSource(mcpServer({ name: 'docs', url: 'https://mcp.example.com/mcp' }))
    .registerSessionStorage(new InMemorySessionStorage())
    .build();
  const session = await agent.newSession();
  const turn = await session.sendMessage(question);
  return turn.result;
};
