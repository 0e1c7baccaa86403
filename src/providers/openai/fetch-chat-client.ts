/**
 * The client `OpenAIProvider` creates when it is not given one: a streaming
 * `POST {baseURL}/chat/completions` over `fetch`, decoded by {@link chunkStream} (which keeps the
 * `[DONE]` end marker the SDK's stream hides) and failing with the `openai` package's public error
 * classes (`openai/core/error`). It does what the SDK client did for this call (authorization,
 * the environment defaults, the browser guard, a 10-minute limit on waiting for the response
 * headers, no retries) without bundling the SDK's client, which builds every API resource when
 * it is constructed.
 * @module
 */
import { APIConnectionTimeoutError, APIError } from 'openai/core/error';
import * as Errors from '../../error-constructors.js';
import type { ChatChunkStream, ChatRequestOptions, OpenAIChatClient } from './chat-client.js';
import { chunkStream } from './chunk-stream.js';

/** What configures the client. */
export interface FetchChatClientOptions {
  /** Default: the `OPENAI_API_KEY` environment variable; none at all when there is a base URL. */
  apiKey?: string | undefined;
  /** Default: the `OPENAI_BASE_URL` environment variable, else OpenAI's. */
  baseURL?: string | undefined;
  /** Allow running in a browser, where the key is visible to the page's users. */
  dangerouslyAllowBrowser?: boolean | undefined;
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** How long to wait for the response headers (the SDK's default request timeout). */
const HEADERS_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Creates the client (with its `apiKey`, as the SDK's client has it). Throws `INVALID_INPUT` when
 * there is neither an API key nor a base URL, or when a key would go into a browser page without
 * `dangerouslyAllowBrowser`. Without a key no `Authorization` header is sent.
 * @example
 * const client = createFetchChatClient({ baseURL: 'http://127.0.0.1:11434/v1' }); // no key, no Authorization
 */
export function createFetchChatClient(
  options: FetchChatClientOptions,
): OpenAIChatClient & { readonly apiKey: string | undefined } {
  const { apiKey, post } = createFetchStreamPost(options, '/chat/completions', 'OpenAIProvider');
  // Public like the SDK client's, so the provider knows which key to keep out of its errors.
  return { apiKey, chat: { completions: { create: post } } };
}

/**
 * A streaming `POST {baseURL}{path}` over `fetch`, with the SDK client's defaults (see the module
 * description); `who` names the options in its errors. Shared by the Chat Completions and the
 * Responses providers.
 * @example
 * const { post } = createFetchStreamPost({ apiKey: 'sk-…' }, '/responses', 'OpenAIResponsesProvider');
 */
export function createFetchStreamPost(
  options: FetchChatClientOptions,
  path: string,
  who: string,
): {
  readonly apiKey: string | undefined;
  post(body: unknown, options: ChatRequestOptions): Promise<ChatChunkStream>;
} {
  const apiKey = options.apiKey ?? readEnv('OPENAI_API_KEY');
  const ownBaseURL = options.baseURL ?? readEnv('OPENAI_BASE_URL');
  // OpenAI's own API always wants a key; a server of one's own may want none.
  if (apiKey === undefined && ownBaseURL === undefined) {
    throw Errors.invalidInput(
      `${who} options: pass \`apiKey\` (or set OPENAI_API_KEY), or a \`baseURL\` for a server without keys`,
    );
  }
  if (apiKey !== undefined && isBrowserLike() && !options.dangerouslyAllowBrowser) {
    throw Errors.invalidInput(
      `${who} options: in a browser the page's users can read the API key; pass ` +
        '`dangerouslyAllowBrowser: true` if that is acceptable (a public key, a proxy)',
    );
  }
  const url = `${(ownBaseURL ?? OPENAI_BASE_URL).replace(/\/+$/, '')}${path}`;
  const defaultHeaders: Record<string, string> = {
    Accept: 'application/json',
    'Content-Type': 'application/json',
  };
  if (apiKey !== undefined) defaultHeaders['Authorization'] = `Bearer ${apiKey}`;
  const organization = readEnv('OPENAI_ORG_ID');
  if (organization) defaultHeaders['OpenAI-Organization'] = organization;
  const project = readEnv('OPENAI_PROJECT_ID');
  if (project) defaultHeaders['OpenAI-Project'] = project;

  return {
    apiKey,
    post: (body, requestOptions) =>
      streamChat(url, { ...defaultHeaders, ...requestOptions.headers }, body, requestOptions),
  };
}

async function streamChat(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  { signal }: ChatRequestOptions,
): Promise<ChatChunkStream> {
  // One controller for the whole exchange: the caller's signal, the headers timeout and the
  // stream's own early stop all end the same HTTP request.
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  const timer = setTimeout(() => controller.abort(new APIConnectionTimeoutError()), HEADERS_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: controller.signal,
    });
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) throw await httpError(response);
  return chunkStream(response, controller);
}

/** A non-2xx response as the SDK reports it: its `APIError` subclass for the status. */
async function httpError(response: Response): Promise<APIError> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return APIError.generate(
    response.status,
    json as Record<string, unknown> | undefined,
    json === undefined ? text : undefined,
    response.headers,
  );
}

/** An environment variable, in Node; `undefined` elsewhere or when empty. */
function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name]?.trim() || undefined;
}

/** The SDK's test for a browser page (a web worker or Node is not one). */
function isBrowserLike(): boolean {
  const scope = globalThis as { window?: { document?: unknown }; navigator?: unknown };
  return (
    typeof scope.window !== 'undefined' &&
    typeof scope.window.document !== 'undefined' &&
    typeof scope.navigator !== 'undefined'
  );
}
