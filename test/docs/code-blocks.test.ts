/**
 * Every ```ts block of the documentation is a complete example, and this test runs each one as
 * written: the block is written to `test/.generated/docs/` with its `youyou-agent`,
 * `youyou-agent/openai`, `youyou-agent/testing` and `youyou-agent/mcp` imports pointed at this
 * repository's sources, all of them are
 * type-checked with the project's compiler options (diagnostics name the Markdown file and line),
 * then each is imported and run. What it prints (console.log, info, warn and error, formatted as
 * Node formats them) must equal the ```text block that directly follows it — and a block with no
 * output block must print nothing.
 *
 * Blocks that need an OpenAI-compatible server read its address from `LLM_BASE_URL`, which points
 * at a local server on 127.0.0.1 here. Each block gets a fresh in-memory IndexedDB when it
 * installs `fake-indexeddb/auto`.
 *
 * A ```tsx block is a React page, which cannot run in Node: each one is run in Chromium by the
 * browser test that {@link TSX_RUN_BY} names, and a ```tsx block no test runs fails here.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { formatWithOptions } from 'node:util';
import { IDBFactory } from 'fake-indexeddb';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChatCompletionsServer, sseEvent, startSse } from '../support/chat-completions-server.js';
import { ROOT, codeBlocks, docFiles, examples, readDoc, type Example } from './markdown.js';

const GENERATED = `${ROOT}test/.generated/docs/`;
const SOURCES = {
  'youyou-agent': 'src/index.js',
  'youyou-agent/openai': 'src/openai.js',
  'youyou-agent/testing': 'src/testing/index.js',
  'youyou-agent/mcp': 'src/mcp.js',
  'youyou-agent/server': 'src/server.js',
  'youyou-agent/remote': 'src/remote.js',
  'youyou-agent/postgres': 'src/postgres.js',
  'youyou-agent/otel': 'src/otel.js',
} as const;

/**
 * The pages with a ```tsx block, and the browser test that reads that block from the Markdown and
 * runs it in Chromium (one block per page).
 */
const TSX_RUN_BY: Record<string, string> = {
  'docs/use-chat.md': 'test/browser/use-chat.docs-example.browser.test.ts',
};

/** The documentation's examples, each with the file it is written to. */
const all = docFiles().flatMap((file) =>
  examples(file).map((example) => ({
    ...example,
    where: `${example.block.file}:${example.block.line}`,
    path: `${GENERATED}${example.block.file.replace(/\.md$/, '').replace(/[/.]/g, '-')}-L${example.block.line}.ts`,
  })),
);

/**
 * The block as a module: package imports redirected, line for line, so a diagnostic's line in the
 * generated file is the same offset in the block. `export {}` keeps a block without imports a module.
 */
function generated(example: Example): string {
  const redirected = example.block.code.replace(
    /(\bfrom\s+|\bimport\s+)(['"])(youyou-agent(?:\/[\w-]+)?)\2/g,
    (match, keyword: string, quote: string, specifier: string) => {
      const target = SOURCES[specifier as keyof typeof SOURCES];
      if (!target)
        throw new Error(`${example.block.file}:${example.block.line}: unknown entry '${specifier}'`);
      return `${keyword}${quote}../../../${target}${quote}`;
    },
  );
  return `${redirected}\nexport {};\n`;
}

/** Type-checks every generated file with the options of `tsconfig.json`; one line per diagnostic. */
function typeCheck(): string[] {
  const configFile = ts.readConfigFile(`${ROOT}tsconfig.json`, (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const program = ts.createProgram(
    all.map((e) => e.path),
    options,
  );
  const byPath = new Map(all.map((e) => [e.path, e]));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...all.flatMap((e) => {
      const source = program.getSourceFile(e.path);
      return source
        ? [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
        : [];
    }),
  ];
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const example = d.file ? byPath.get(d.file.fileName) : undefined;
    if (!d.file || d.start === undefined || !example) return `TS${d.code}: ${message}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${example.block.file}:${example.block.line + line}:${character + 1}: TS${d.code}: ${message}`;
  });
}

/** A model answer for any request, streamed the way OpenAI streams Chat Completions. */
async function answerHello(_req: unknown, res: ServerResponse): Promise<void> {
  startSse(res);
  const chunk = (delta: object, finish: string | null = null) =>
    sseEvent({
      id: 'c1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  res.write(chunk({ role: 'assistant', content: 'Hello!' }));
  res.write(chunk({ content: ' Bonjour !' }));
  res.write(chunk({ content: ' ¡Hola!' }));
  res.write(chunk({}, 'stop'));
  res.write(
    sseEvent({ id: 'c1', choices: [], usage: { prompt_tokens: 24, completion_tokens: 9, total_tokens: 33 } }),
  );
  res.end('data: [DONE]\n\n');
}

/**
 * The same answer from the Responses API (`POST /responses`), as OpenAI streams it: a reasoning
 * item with a summary and encrypted content, then the message.
 */
async function answerHelloResponses(_req: unknown, res: ServerResponse): Promise<void> {
  startSse(res);
  const send = (event: Record<string, unknown>) =>
    res.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
  const reasoning = {
    id: 'rs_1',
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 'Three greetings.' }],
    encrypted_content: 'gAAAAB-opaque',
  };
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Hello! Bonjour ! ¡Hola!', annotations: [] }],
  };
  send({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } });
  send({ type: 'response.output_item.added', output_index: 0, item: { ...reasoning, summary: [] } });
  send({
    type: 'response.reasoning_summary_text.delta',
    output_index: 0,
    summary_index: 0,
    delta: 'Three greetings.',
  });
  send({ type: 'response.output_item.done', output_index: 0, item: reasoning });
  send({ type: 'response.output_item.added', output_index: 1, item: { ...message, content: [] } });
  for (const delta of ['Hello!', ' Bonjour !', ' ¡Hola!'])
    send({ type: 'response.output_text.delta', output_index: 1, content_index: 0, delta });
  send({ type: 'response.output_item.done', output_index: 1, item: message });
  const usage = {
    input_tokens: 24,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 30,
    output_tokens_details: { reasoning_tokens: 21 },
    total_tokens: 54,
  };
  send({
    type: 'response.completed',
    response: { id: 'resp_1', status: 'completed', output: [reasoning, message], usage },
  });
  res.end();
}

describe('documentation code blocks', () => {
  let server: ChatCompletionsServer;
  const previousBaseUrl = process.env.LLM_BASE_URL;

  beforeAll(async () => {
    rmSync(GENERATED, { recursive: true, force: true });
    mkdirSync(GENERATED, { recursive: true });
    for (const example of all) writeFileSync(example.path, generated(example));
    server = await ChatCompletionsServer.start();
    server.respondWith((req, res) =>
      req.url?.endsWith('/responses') ? answerHelloResponses(req, res) : answerHello(req, res),
    );
    process.env.LLM_BASE_URL = server.baseURL;
  });

  afterAll(async () => {
    if (previousBaseUrl === undefined) delete process.env.LLM_BASE_URL;
    else process.env.LLM_BASE_URL = previousBaseUrl;
    await server?.close();
    // `tsc -p .` includes test/: a file left here from an older version of a page could fail the
    // type check that `npm test` runs before this test would rewrite it. Diagnostics and test
    // names point at the Markdown instead.
    rmSync(GENERATED, { recursive: true, force: true });
  });

  afterEach(() => {
    vi.restoreAllMocks();
    // A fresh, empty IndexedDB for the next block (only where `fake-indexeddb/auto` installed one).
    if ('indexedDB' in globalThis) globalThis.indexedDB = new IDBFactory();
  });

  it('finds the examples, and every TypeScript block is marked ```ts', () => {
    expect(all.length).toBeGreaterThan(20);
    const mislabelled = docFiles().flatMap((file) =>
      codeBlocks(file, readDoc(file))
        // `tsx`: a React page, run in Chromium by its browser test (see the next test).
        .filter((b) => /^(typescript|ts|mts|js|javascript|jsx|mjs)$/i.test(b.lang) && b.lang !== 'ts')
        .map((b) => `${b.file}:${b.line} is \`\`\`${b.lang}: write \`\`\`ts so it is run`),
    );
    expect(mislabelled).toEqual([]);
  });

  it('every ```tsx block is run by the browser test TSX_RUN_BY names', () => {
    const tsx = docFiles().flatMap((file) => codeBlocks(file, readDoc(file)).filter((b) => b.lang === 'tsx'));
    expect(
      tsx
        .filter((b) => !(b.file in TSX_RUN_BY))
        .map((b) => `${b.file}:${b.line} is \`\`\`tsx, which no test runs: add a browser test to TSX_RUN_BY`),
    ).toEqual([]);
    for (const [file, test] of Object.entries(TSX_RUN_BY)) {
      expect(tsx.filter((b) => b.file === file).length, `${file} has the one tsx block ${test} runs`).toBe(1);
      expect(readFileSync(`${ROOT}${test}`, 'utf8'), `${test} reads its block from ${file}`).toContain(
        `const DOC = '${file}';`,
      );
    }
  });

  // The compiler API over every block: seconds alone, much longer on a loaded 2-core machine.
  it('type-check with the project compiler options', () => {
    expect(typeCheck()).toEqual([]);
  }, 180_000);

  for (const example of all) {
    it(`${example.where} runs and prints what its output block says`, async () => {
      const printed: string[] = [];
      for (const method of ['log', 'info', 'warn', 'error'] as const) {
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
          printed.push(formatWithOptions({ colors: false }, ...args));
        });
      }
      // A computed specifier: the file is generated, so the type checker must not resolve it.
      try {
        await import(/* @vite-ignore */ example.path);
      } catch (error) {
        throw new Error(`${example.where} threw: ${String(error)}`, { cause: error });
      }
      const output = printed.join('\n');
      if (example.output === null) {
        expect(output, `${example.where} prints, so a \`\`\`text block with its output must follow it`).toBe(
          '',
        );
      } else {
        expect(output).toBe(example.output.replace(/\n$/, ''));
      }
    });
  }
});
