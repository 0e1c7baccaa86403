// A minimal agent on the Responses API: AgentBuilder, OpenAIResponsesProvider,
// InMemorySessionStorage and one tool whose arguments are a `zod/mini` schema, running one turn.
import { AgentBuilder, InMemorySessionStorage, defineTool } from 'youyou-agent';
import { OpenAIResponsesProvider } from 'youyou-agent/openai';
import * as z from 'zod/mini';

const echo = defineTool({
  name: 'echo',
  description: 'Repeats its text',
  parameters: z.object({ text: z.string() }),
  execute: async ({ arguments: { text } }) => text,
});

// An app build keeps only what runs: the app hands its entry point to the page.
window.ask = async function ask(apiKey, question) {
  const agent = await new AgentBuilder({ defaultModel: 'gpt-5-mini' })
    .registerModelProvider(
      new OpenAIResponsesProvider({
        apiKey,
        dangerouslyAllowBrowser: true,
        models: [
          {
            id: 'gpt-5-mini',
            displayName: 'GPT-5 mini',
            contextWindow: 400_000,
            capabilities: { toolUse: true, vision: true, streaming: true },
          },
        ],
      }),
    )
    .registerTool(echo)
    .registerSessionStorage(new InMemorySessionStorage())
    .build();
  const session = await agent.newSession();
  const turn = await session.sendMessage(question);
  return turn.result;
};
