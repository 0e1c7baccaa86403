// The browser side of an agent on a server: a RemoteAgent, one session rendered through
// `session.conversation`, one turn. What a page pays when its agent runs on the server.
import { RemoteAgent } from 'youyou-agent/remote';

window.chat = async function chat(url, token, question, render) {
  const agent = new RemoteAgent({ url, headers: async () => ({ authorization: `Bearer ${token}` }) });
  const session = await agent.newSession();
  session.conversation.subscribe(render);
  const turn = await session.sendMessage(question);
  return turn.result;
};
