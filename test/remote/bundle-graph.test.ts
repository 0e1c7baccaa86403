/**
 * What each entry pulls in: `youyou-agent/remote` loads neither xstate nor the runtime (machines,
 * steps, services) — only the conversation schema, errors and its own folder — and the core
 * entry imports neither the server nor the remote code.
 */
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

async function inputsOf(entry: string): Promise<string[]> {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    logLevel: 'silent',
    tsconfigRaw: '{}',
  });
  return Object.keys(result.metafile.inputs);
}

describe('the module graph', () => {
  it('youyou-agent/remote loads neither xstate nor the runtime', async () => {
    const inputs = await inputsOf('src/remote.ts');
    expect(inputs.some((p) => p.includes('src/remote/remote-session.ts'))).toBe(true);
    const forbidden = inputs.filter((p) =>
      /node_modules\/xstate\/|\/machines\/|src\/runtime\/|src\/agent\.ts|src\/session\.ts|src\/server\//.test(
        p,
      ),
    );
    expect(forbidden).toEqual([]);
  });

  it('the core entry imports neither the server nor the remote code', async () => {
    const inputs = await inputsOf('src/index.ts');
    expect(inputs.filter((p) => /src\/(server|remote)\//.test(p))).toEqual([]);
  });
});
