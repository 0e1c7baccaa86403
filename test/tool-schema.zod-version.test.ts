/**
 * Tool schemas must be zod 4 (classic or mini): `build()` rejects a zod 3 schema with an
 * `INVALID_INPUT` that says what to do, instead of a bare "not a zod schema".
 */
import { describe, expect, it } from 'vitest';
import { z as classic } from 'zod';
import * as mini from 'zod/mini';
import { z as v3 } from 'zod/v3';
import { AgentBuilder, AgentError, defineTool, type ToolHandler } from '../src/index.js';
import { ScriptedModelProvider, SCRIPTED_MODEL } from '../src/testing/index.js';

function agentWith(parameters: unknown) {
  const tool = { name: 'lookup', description: 'd', parameters, execute: async () => 'ok' };
  return new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id })
    .registerModelProvider(new ScriptedModelProvider({ script: [] }))
    .registerTool(tool as ToolHandler)
    .build();
}

async function buildError(parameters: unknown): Promise<AgentError> {
  const error = await agentWith(parameters).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(AgentError.isInstance(error)).toBe(true);
  return error as AgentError;
}

describe('tool schemas and zod versions', () => {
  it('builds with zod 4 schemas, classic and mini', async () => {
    for (const parameters of [classic.object({ q: classic.string() }), mini.object({ q: mini.string() })]) {
      const agent = await agentWith(parameters);
      await agent.shutdown();
    }
  });

  it('rejects a zod 3 schema with INVALID_INPUT saying zod 4 is needed and how zod 3.25 gets it', async () => {
    const error = await buildError(v3.object({ q: v3.string() }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('tools[0].parameters');
    expect(error.message).toContain('zod 3 schema');
    expect(error.message).toContain('zod 4 is needed');
    expect(error.message).toContain("'zod/v4'");
  });

  it('says the same of a zod 3 schema wrapped by defineTool', async () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'd',
      parameters: v3.object({ q: v3.string() }) as never,
      execute: () => 'ok',
    });
    const error = await buildError(tool.parameters);
    expect(error.message).toContain('zod 4 is needed');
  });

  it('rejects parameters that are no schema at all with INVALID_INPUT', async () => {
    for (const parameters of [undefined, { type: 'object' }, 'q']) {
      const error = await buildError(parameters);
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toContain('tools[0].parameters: must be a zod schema');
    }
  });
});
