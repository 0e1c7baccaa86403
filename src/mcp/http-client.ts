/**
 * `McpHttpClient`: the small built-in client of MCP's Streamable HTTP transport — JSON-RPC over
 * POST, answers as `application/json` or `text/event-stream`.
 *
 * - Connects on first use: `initialize`, then `notifications/initialized`; keeps the server's
 *   `Mcp-Session-Id` and sends it, and `MCP-Protocol-Version`, with every later request.
 * - A 404 to a request that carried a session id means the session expired: it initializes once
 *   more and sends the request again.
 * - A request whose signal aborts before its answer is cancelled at the server with
 *   `notifications/cancelled`.
 * - `notifications/tools/list_changed` is heard on a request's SSE answer, and on the GET stream
 *   it opens when the server announces `tools.listChanged` (not reopened when it ends; the next
 *   connect does). A server's `ping` is answered; other server requests get "method not found".
 * - `close()` ends the session with DELETE.
 * @module
 */
import { describeError } from '../errors.js';
import { serverSentEvents } from '../providers/openai/server-sent-events.js';
import type { McpCallToolResult, McpClientLike, McpHeaders, McpToolInfo } from './types.js';

/** The protocol revision this client speaks (the server may answer an older one it supports). */
const PROTOCOL_VERSION = '2025-06-18';

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A 404 to a request sent in a session: the session is gone. */
class SessionExpired extends Error {}

/** The built-in Streamable HTTP client. */
export class McpHttpClient implements McpClientLike {
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #ready: Promise<void> | undefined;
  #lastId = 0;
  #stream: AbortController | undefined;

  constructor(
    private readonly url: string,
    private readonly headers: McpHeaders | undefined,
    /** Called on `notifications/tools/list_changed`. */
    private readonly onToolsChanged: () => void,
  ) {}

  listTools(params: { cursor?: string } = {}, options: { signal?: AbortSignal } = {}) {
    return this.#request('tools/list', params, options.signal) as Promise<{
      tools: McpToolInfo[];
      nextCursor?: string;
    }>;
  }

  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    _resultSchema?: undefined,
    options: { signal?: AbortSignal } = {},
  ) {
    return this.#request('tools/call', params, options.signal) as Promise<McpCallToolResult>;
  }

  async close(): Promise<void> {
    this.#stream?.abort();
    const hadSession = this.#sessionId !== undefined;
    const headers = await this.#headers();
    this.#ready = this.#sessionId = this.#protocolVersion = undefined;
    // A server that does not let clients end sessions answers 405: nothing to do then.
    if (hadSession) await fetch(this.url, { method: 'DELETE', headers });
  }

  async #request(method: string, params: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const ready = (this.#ready ??= this.#initialize(signal));
    try {
      await ready;
    } catch (error) {
      if (this.#ready === ready) this.#ready = undefined;
      throw error;
    }
    try {
      return await this.#send(method, params, signal);
    } catch (error) {
      if (!(error instanceof SessionExpired)) throw error;
      // Once: a new session that expires at once is the server's failure, not a stale session.
      if (this.#ready === ready) this.#ready = this.#initialize(signal);
      await this.#ready;
      return this.#send(method, params, signal);
    }
  }

  async #initialize(signal: AbortSignal | undefined): Promise<void> {
    this.#stream?.abort();
    this.#sessionId = this.#protocolVersion = undefined;
    const result = (await this.#send(
      'initialize',
      {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'youyou-agent', version: '0.1.0' },
      },
      signal,
    )) as { protocolVersion?: string; capabilities?: { tools?: { listChanged?: boolean } } };
    this.#protocolVersion = result?.protocolVersion ?? PROTOCOL_VERSION;
    await this.#post({ jsonrpc: '2.0', method: 'notifications/initialized' }, signal);
    if (result?.capabilities?.tools?.listChanged) this.#listen();
  }

  /** Sends one request and reads its answer, from JSON or from the SSE stream. */
  async #send(method: string, params: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const id = ++this.#lastId;
    try {
      const response = await this.#post({ jsonrpc: '2.0', id, method, params }, signal);
      let answer: JsonRpcMessage | undefined;
      if (response.headers.get('content-type')?.includes('text/event-stream') && response.body) {
        const events = serverSentEvents(response.body, signal ?? new AbortController().signal);
        for await (const { data } of events) if ((answer = this.#read(data, id))) break;
      } else {
        const body: unknown = await response.json();
        for (const message of Array.isArray(body) ? body : [body]) answer ??= this.#read(message, id);
      }
      if (!answer) throw new Error(`the server sent no answer to ${method}`);
      if (answer.error) throw new Error(`${method} failed: ${answer.error.message} (${answer.error.code})`);
      return answer.result;
    } catch (error) {
      // Tell the server to stop (never for `initialize`, which cannot be cancelled).
      if (signal?.aborted && method !== 'initialize') {
        const cancel = { requestId: id, reason: describeError(signal.reason) };
        this.#post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: cancel }).catch(() => {});
      }
      throw error;
    }
  }

  /** The answer to request `id` when `message` is it; a server message is handled. */
  #read(message: unknown, id: number): JsonRpcMessage | undefined {
    let m = message as JsonRpcMessage;
    if (typeof message === 'string') {
      try {
        m = JSON.parse(message) as JsonRpcMessage;
      } catch {
        return undefined;
      }
    }
    if (m?.id === id && (m.result !== undefined || m.error !== undefined)) return m;
    if (m?.method === 'notifications/tools/list_changed') this.onToolsChanged();
    else if (m?.method && m.id !== undefined) {
      const reply =
        m.method === 'ping'
          ? { jsonrpc: '2.0' as const, id: m.id, result: {} }
          : { jsonrpc: '2.0' as const, id: m.id, error: { code: -32601, message: 'Method not found' } };
      this.#post(reply).catch(() => {});
    }
    return undefined;
  }

  /** Listens on the GET stream for the server's notifications. */
  #listen(): void {
    const stream = (this.#stream = new AbortController());
    void (async () => {
      const response = await fetch(this.url, {
        headers: { ...(await this.#headers()), accept: 'text/event-stream' },
        signal: stream.signal,
      });
      // 405: the server offers no stream.
      if (!response.ok || !response.body) return;
      for await (const { data } of serverSentEvents(response.body, stream.signal)) this.#read(data, 0);
    })().catch(() => {});
  }

  async #headers(): Promise<Record<string, string>> {
    const own = typeof this.headers === 'function' ? await this.headers() : this.headers;
    const headers: Record<string, string> = { ...own };
    if (this.#sessionId) headers['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion) headers['mcp-protocol-version'] = this.#protocolVersion;
    return headers;
  }

  async #post(message: JsonRpcMessage, signal?: AbortSignal): Promise<Response> {
    const sessionId = this.#sessionId;
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          ...(await this.#headers()),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(message),
        signal: signal ?? null,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new Error(
        `cannot reach ${this.url} (${describeError(error)}). In a browser a refused CORS request looks the same: the server must allow this origin, the methods POST, GET and DELETE, and the headers content-type, mcp-session-id, mcp-protocol-version and authorization`,
        { cause: error },
      );
    }
    if (response.ok) {
      this.#sessionId = response.headers.get('mcp-session-id') ?? this.#sessionId;
      return response;
    }
    const text = await response.text().catch(() => '');
    if (response.status === 404 && sessionId) throw new SessionExpired('session expired');
    if (!sessionId && message.method !== 'initialize' && /session/i.test(text)) {
      throw new Error(
        `the server answered initialize without a readable Mcp-Session-Id header, then asked for one (HTTP ${response.status}). A browser hides that header unless the server sends Access-Control-Expose-Headers: Mcp-Session-Id`,
      );
    }
    throw new Error(`HTTP ${response.status} from ${this.url}: ${text.slice(0, 200)}`);
  }
}
