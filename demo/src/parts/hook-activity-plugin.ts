/**
 * The demo plugin: it taps every hook and records one line per call, which the activity panel
 * shows, so you can watch the lifecycle as it happens. It also acts once: at `turn_start` it adds
 * a dynamic prompt section (the browser's language and local time; on the demo server, the server's).
 * @module
 */
import { BehaviorSubject, type Observable } from 'rxjs';
import {
  HOOK_EVENTS,
  type HookDataMap,
  type HookEvent,
  type HookPayloadOf,
  type Plugin,
  type PluginContext,
} from 'youyou-agent';

/** One hook call, as the activity panel shows it. */
export interface HookActivity {
  /** Increases by one per recorded call. */
  seq: number;
  event: HookEvent;
  /** When the hook fired (the payload's timestamp). */
  timestamp: string;
  turnId: string | null;
  /** One line saying what the hook saw. */
  summary: string;
}

const KEEP = 200;

/** The plugin, and the activity it has recorded. */
export interface HookActivityPlugin {
  readonly plugin: Plugin;
  /** The last {@link KEEP} calls, oldest first; emits on every call. */
  readonly activity: Observable<readonly HookActivity[]>;
}

/** A new plugin with an empty log (one per agent). */
export function createHookActivityPlugin(): HookActivityPlugin {
  const activity = new BehaviorSubject<readonly HookActivity[]>([]);
  let seq = 0;
  const record = <E extends HookEvent>(payload: HookPayloadOf<E>, summary: string) => {
    seq += 1;
    const entry: HookActivity = {
      seq,
      event: payload.event,
      timestamp: payload.timestamp,
      turnId: payload.turnId,
      summary,
    };
    activity.next([...activity.value.slice(-(KEEP - 1)), entry]);
  };

  const tapForLog = <E extends HookEvent>(ctx: PluginContext, event: E) =>
    ctx.tap(event, (payload) => record(payload, SUMMARIES[event](payload.data)));

  const plugin: Plugin = {
    id: 'hook-activity',
    displayName: 'Hook activity',
    description:
      'Records every lifecycle hook for the demo UI and adds the user\u2019s locale and local time.',
    apply(ctx) {
      ctx.tap('turn_start', (payload) => ({
        type: 'continue_with',
        data: [...payload.data, localeSection()],
      }));
      // Registered after the section above, so the log shows the sections it added.
      for (const event of HOOK_EVENTS) tapForLog(ctx, event);
    },
  };
  return { plugin, activity };
}

/** One line per hook event saying what it saw. Shortened: this is a log, not a transcript. */
const SUMMARIES: { [E in HookEvent]: (data: HookDataMap[E]) => string } = {
  session_start: ({ config }) => `session opened (model ${config.modelId ?? 'default'})`,
  session_end: ({ reason, turnCount }) => `session ${reason} after ${turnCount} turn(s)`,
  turn_start: (sections) => `turn started with ${sections.length} dynamic prompt section(s)`,
  turn_end: ({ status, usage }) => `turn ${status}, ${usage.totalTokens} tokens`,
  before_tool_use: ({ toolName, arguments: args }) => `${toolName} ${short(JSON.stringify(args))}`,
  after_tool_use: ({ toolName, output, durationMs }) =>
    `${toolName} \u2192 ${short(output.content)} (${Math.round(durationMs)} ms)`,
  before_compact: ({ messageCount, tokensBefore }) =>
    `compacting ${messageCount} messages (${tokensBefore} tokens)`,
  pre_request: ({ request, attempt }) =>
    `${request.purpose} request, attempt ${attempt}, ${request.messages.length} messages, ${request.tools.length} tools`,
  post_request: ({ finishReason, durationMs }) => `finished: ${finishReason} in ${Math.round(durationMs)} ms`,
  on_retry: ({ attempt, delayMs }) => `attempt ${attempt} failed; next in ${delayMs} ms`,
  on_error: ({ error }) => `${error.code}: ${short(error.message)}`,
};

/** The browser's language and local time; on the demo server (no `navigator`), the server's. */
function localeSection(): string {
  const now = new Date().toString();
  if (typeof navigator !== 'undefined' && navigator.language)
    return `The user's browser language is ${navigator.language}; their local time is ${now}.`;
  return `The demo server's locale is ${Intl.DateTimeFormat().resolvedOptions().locale}; its local time is ${now}.`;
}

function short(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}
