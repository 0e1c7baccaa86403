// An agent with its own model provider (no `openai` anywhere), InMemorySessionStorage and one
// tool whose arguments are a `zod/mini` schema, running one turn.
import { AgentBuilder, InMemorySessionStorage, defineTool } from 'youyou-agent';
import * as z from 'zod/mini';

const echo = defineTool({
  name: 'echo',
  description: 'Repeats its text',
  parameters: z.object({ text: z.string() }),
  execute: async ({ arguments: { text } }) => text,
});

/** A provider that answers every request with the text of the last message. */
const parrot = {
  id: 'parrot',
  models: [
    {
      id: 'parrot-1',
      displayName: 'Parrot',
      contextWindow: 8_192,
      capabilities: { toolUse: true, vision: false, streaming: true },
    },
  ],
  async *chat(request) {
    const last = request.messages.at(-1);
    const text = last?.type === 'user' ? last.content.map((block) => block.text ?? '').join('') : '';
    yield { type: 'text_delta', text };
    yield { type: 'done', finishReason: 'stop' };
  },
};

// An app build keeps only what runs: the app hands its entry point to the page.
window.ask = async function ask(question) {
  const agent = await new AgentBuilder({ defaultModel: 'parrot-1' })
    .registerModelProvider(parrot)
    .registerTool(echo)
    .registerSessionStorage(new InMemorySessionStorage())
    .build();
  const session = await agent.newSession();
  const turn = await session.sendMessage(question);
  return turn.result;
};
