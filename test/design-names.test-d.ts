/**
 * Type tests of this round's public names, as the design contract spells them: code outside this
 * repository is written against exactly these (locks, resumable turns, approval, structured
 * output, budgets, tool sources, `youyou-agent/mcp`). A renamed or retyped name fails `tsc`.
 */
import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import {
  AgentBuilder,
  defineTool,
  WebLocksSessionLock,
  InMemorySessionStorage,
  AgentError,
  type Agent,
  type Session,
  type RunningTurn,
  type SessionLock,
  type LockLease,
  type ToolSource,
  type ApprovalQuery,
  type ToolHandler,
  type InterruptedTurn,
  type TurnResult,
  type AgentConfig,
  type SessionStorage,
  type Conversation,
} from '../src/index.js';
import { mcpServer, type McpToolInfo, type McpClientLike } from '../src/mcp.js';
import { OpenAIProvider } from '../src/openai.js';
declare const agent: Agent;
declare const session: Session;
declare const turn: RunningTurn;
declare const storage: SessionStorage;
declare const lock: SessionLock;
declare const source: ToolSource;
async function check() {
  const lease: LockLease | null = await lock.acquire('s', 'ifAvailable', new AbortController().signal);
  if (lease) {
    const l: Promise<void> = lease.lost;
    lease.release();
    void l;
  }
  new AgentBuilder({ defaultModel: 'm' })
    .registerSessionLock(lock)
    .registerSessionLock(null)
    .registerToolSource(source);
  await agent.resumeSession('id', { ifLocked: 'reject' });
  await agent.resumeSession('id', { ifLocked: 'wait', signal: new AbortController().signal });
  await agent.resumeSession('id', { ifLocked: 'steal' });
  agent.sessionChanges.subscribe(
    (c: { sessionId: string; kind: 'appended' | 'deleted' | 'locked' | 'released' }) => c,
  );
  const epoch: number | undefined = await storage.claimWriter?.('s');
  await storage.saveEvent('s', {} as never, { writerEpoch: epoch ?? 0 });
  await storage.saveDraft?.('s', { turnId: 't', text: 'x', updatedAt: 'now' });
  await storage.saveDraft?.('s', null);
  const d: { turnId: string; text: string; updatedAt: string } | null | undefined =
    await storage.loadDraft?.('s');
  void d;
  const it: InterruptedTurn | null = session.interruptedTurn;
  if (it) {
    const { turnId, reason, pendingApprovals, unfinishedToolCalls, partialText } = it;
    const u = unfinishedToolCalls[0]!;
    void [
      turnId,
      reason satisfies 'awaiting_approval' | 'awaiting_model' | 'tools_unfinished',
      pendingApprovals,
      u.callId,
      u.toolName,
      u.mutating,
      u.maybeExecuted,
      partialText,
    ];
  }
  const t2: RunningTurn = await session.continueTurn({ rerunMaybeExecuted: true });
  await session.discardInterruptedTurn();
  void t2;
  const tool: ToolHandler<{ a: string }> = defineTool({
    name: 'x',
    description: 'd',
    parameters: z.object({ a: z.string() }),
    needsApproval: (q: ApprovalQuery<{ a: string }>) =>
      q.arguments.a === q.callId + q.toolName + q.sessionId + q.turnId,
    execute: async () => 'ok',
  });
  void tool;
  const cfg: AgentConfig = {
    defaultModel: 'm',
    approval: { policy: async (q) => (q.toolName ? 'ask' : undefined), timeoutMs: 0 },
    budget: { maxCostPerTurn: 1, maxCostPerSession: 2, maxTokensPerTurn: 3, maxTokensPerSession: 4 },
  };
  void cfg;
  const p = turn.pendingApprovals[0]!;
  const _p: [string, string, unknown, string] = [p.callId, p.toolName, p.arguments, p.requestedAt];
  void _p;
  await turn.approve('c', { always: true });
  await turn.deny('c', { reason: 'r', always: false });
  const t3 = await session.sendMessage('x', {
    output: { schema: z.object({ n: z.number() }), name: 'plan', maxRepairs: 1 },
    budget: { maxCost: 1, maxTokens: 2 },
  });
  const r = await t3.result;
  const n: number | undefined = r.output?.n;
  const cost: number | null = r.cost;
  void [n, cost];
  const res: TurnResult = r;
  void res;
  const s: ToolSource = mcpServer({
    name: 'n',
    url: new URL('http://127.0.0.1/'),
    headers: async () => ({}),
    toolNames: 'prefixed',
    filter: (t: McpToolInfo) => !!t,
    approval: 'destructive',
    cache: { ttlMs: 1 },
    client: undefined as McpClientLike | undefined,
  });
  const s2 = mcpServer({
    name: 'n',
    url: 'http://127.0.0.1/',
    headers: { a: 'b' },
    toolNames: 'original',
    filter: ['a'],
    approval: 'always',
    cache: false,
  });
  void [s, s2];
  const tools: readonly ToolHandler[] = await source.tools(new AbortController().signal);
  void tools;
  void source.changes;
  await source.close?.();
  void source.id;
  void [WebLocksSessionLock, InMemorySessionStorage, AgentError, OpenAIProvider];
  const c: Conversation | null = null;
  void c;
}
describe('the public names of locks, resumable turns, approval, output, budgets and MCP', () => {
  it('type-check as the contract spells them', () => {
    expectTypeOf(check).returns.resolves.toBeVoid();
  });
});
