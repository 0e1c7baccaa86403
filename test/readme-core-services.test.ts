/**
 * The examples of docs/readme/core-services.md (tools, plugins, skills), run through the public
 * API with a ScriptedModelProvider, so the README says what the runtime does.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { AgentBuilder, HookResult, defineTool } from '../src/index.js';
import type { AgentEventPayload, Plugin } from '../src/index.js';
import { ScriptedModelProvider, reply } from '../src/testing/index.js';

describe('README: core services', () => {
  it('tools: a mutating tool runs and its end event carries the output', async () => {
    const saveNote = defineTool({
      name: 'save_note',
      description: 'Saves a note',
      parameters: z.object({ text: z.string() }),
      mutating: true,
      execute: async ({ arguments: { text } }) => ({ content: `saved ${text.length} characters` }),
    });
    const provider = new ScriptedModelProvider({
      script: [
        reply.toolCalls([{ name: 'save_note', arguments: { text: 'buy milk' } }]),
        reply.text('Saved.'),
      ],
    });
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model', toolTimeoutMs: 30_000 })
      .registerModelProvider(provider)
      .registerTool(saveNote)
      .build();
    const turn = await (await agent.newSession()).sendMessage('Note: buy milk');
    const ends: AgentEventPayload[] = [];
    turn.events.subscribe(({ payload }) => {
      if (payload.type === 'tool_call_end') ends.push(payload);
    });
    expect((await turn.result).status).toBe('completed');
    expect(ends).toMatchObject([
      { toolName: 'save_note', success: true, output: { content: 'saved 8 characters' } },
    ]);
    await agent.shutdown();
  });

  it('plugins: initialize with config, hooks tapped in apply, shutdown at agent shutdown', async () => {
    const log: string[] = [];
    const guard: Plugin = {
      id: 'guard',
      displayName: 'Guard',
      description: 'Blocks dangerous tools and adds a line to every turn',
      initialize: (config) => void log.push(`initialize ${JSON.stringify(config)}`),
      apply(ctx) {
        ctx.tap('before_tool_use', ({ data, pluginConfig }) => {
          const blocked = (pluginConfig as { blocked: string[] }).blocked;
          if (blocked.includes(data.toolName)) return HookResult.abort(`${data.toolName} is not allowed`);
        });
        ctx.tap('turn_start', ({ data }) => HookResult.continueWith([...data, 'Today is a test day.']));
      },
      shutdown: () => void log.push('shutdown'),
    };
    const deleteFile = defineTool({
      name: 'delete_file',
      description: 'Deletes a file',
      parameters: z.object({ path: z.string() }),
      mutating: true,
      execute: async () => {
        log.push('deleted!');
        return 'deleted';
      },
    });
    const provider = new ScriptedModelProvider({
      script: [
        reply.toolCalls([{ name: 'delete_file', arguments: { path: '/etc' }, callId: 'c1' }]),
        reply.text('OK.'),
      ],
    });
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model' })
      .registerModelProvider(provider)
      .registerTool(deleteFile)
      .registerPlugin(guard, { blocked: ['delete_file'] })
      .build();
    expect(log).toEqual(['initialize {"blocked":["delete_file"]}']);
    const turn = await (await agent.newSession()).sendMessage('Delete /etc');
    await turn.result;
    expect(provider.requests[0]!.systemPrompt).toContain('Today is a test day.');
    expect(provider.requests[0]!.systemPrompt).toContain('Guard (guard)');
    expect(provider.requests[1]!.messages).toContainEqual({
      type: 'tool_result',
      callId: 'c1',
      content: 'Tool aborted by hook: delete_file is not allowed',
      isError: true,
    });
    await agent.shutdown();
    expect(log).toEqual(['initialize {"blocked":["delete_file"]}', 'shutdown']);
  });

  it('skills: /review injects the skill as a system message before the user message', async () => {
    const provider = new ScriptedModelProvider({ script: [reply.text('Two issues found.')] });
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model' })
      .registerModelProvider(provider)
      .registerSkill({
        name: 'review',
        description: 'Reviews a piece of code for bugs',
        prompt: 'Review the code the user gives you. List each bug with its line and a fix.',
      })
      .build();
    const session = await agent.newSession();
    await (
      await session.sendMessage('/review function add(a, b) { return a - b }')
    ).result;
    expect(session.messages.slice(0, 2)).toEqual([
      {
        type: 'system',
        content:
          '<skill>\n<name>review</name>\nReview the code the user gives you. List each bug with its line and a fix.\n</skill>',
      },
      { type: 'user', content: [{ type: 'text', text: '/review function add(a, b) { return a - b }' }] },
    ]);
    expect(provider.requests[0]!.systemPrompt).toContain('- /review: Reviews a piece of code for bugs');
    await agent.shutdown();
  });
});
