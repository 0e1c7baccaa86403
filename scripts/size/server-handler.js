// The server side, for information (it runs on a server, not in a page): the handler with an
// agent factory, as a Workers or Deno app would bundle it.
import { AgentBuilder, InMemorySessionStorage } from 'youyou-agent';
import { createAgentHandler } from 'youyou-agent/server';
import { ScriptedModelProvider } from 'youyou-agent/testing';

window.handler = createAgentHandler({
  agent: ({ userId }) =>
    new AgentBuilder({ defaultModel: 'scripted-model' })
      .registerModelProvider(new ScriptedModelProvider())
      .registerSessionStorage(new InMemorySessionStorage({ namespace: userId }))
      .build(),
  authorize: (request) =>
    request.headers.get('authorization') === 'Bearer demo' ? { userId: 'demo' } : null,
});
