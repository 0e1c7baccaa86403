/**
 * What the offline model answers: rules over the request, no network. It calls the demo tools
 * when a message asks for them (arithmetic, the time, notes), follows the `/stepwise` skill,
 * streams a long story to try Stop on, gets stuck in a loop on request (to show the runtime's
 * repeated-call guard), and echoes anything else back as plain text.
 * @module
 */
import type { ChatRequest, Message } from 'youyou-agent';

/** One planned response: reasoning, then text, then tool calls. */
export interface OfflineReply {
  reasoning?: string;
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  /** Milliseconds between two streamed words. */
  pace?: number;
  /** Stream each call's arguments in pieces (`tool_call_delta`) before the whole call. */
  streamArguments?: boolean;
}

/** The plan the offline model writes when a turn asks for a structured trip plan. */
const KYOTO_PLAN = {
  title: 'Three days in Kyoto',
  days: [
    { day: 1, plan: 'Fushimi Inari at dawn, then the Nishiki market and an evening walk through Gion.' },
    { day: 2, plan: 'The Arashiyama bamboo grove, the monkey park, and a boat down the Hozu river.' },
    { day: 3, plan: "Kiyomizu-dera, the Philosopher's Path, and tea near Ginkaku-ji before the train home." },
  ],
};

const HELP =
  'I am the scripted offline model that ships with this demo: no network, no key. Try "what is 12 * (3 + 4)?", ' +
  '"what time is it in Tokyo?", "note: buy oat milk", "list my notes", "/stepwise (12 + 30) * 2", "tell me a long story" ' +
  '(and press Stop), or "loop" (a model stuck repeating one call). Set an OpenAI-compatible endpoint in Settings to talk to a real model.';

const STORY =
  'Once upon a time, in a browser tab far away, a small agent woke up inside IndexedDB. It remembered every word ' +
  'it had ever said, because each one was written down the moment it was spoken. One day a user asked it a question ' +
  'that needed a calculator, a clock and a notebook all at once. The agent thought for a while, called its tools one ' +
  'after the other, and wrote the answers down as they came. Then the page was reloaded. The agent did not panic: it ' +
  'opened its database, read its history back in the same order, and carried on exactly where it had stopped, as if ' +
  'nothing had happened. The user smiled, pressed Stop in the middle of the next story, and the agent kept the words ' +
  'it had already written, marked them as incomplete, and waited politely for the next message. The end.';

/** Decides the reply to `request`. */
export function planReply(request: ChatRequest): OfflineReply {
  switch (request.purpose) {
    case 'memory_extraction':
      return { text: JSON.stringify({ memories: rememberedFacts(request.messages) }) };
    case 'memory_consolidation':
      return { text: JSON.stringify({ memories: [], delete: [] }) };
    case 'compaction':
      return { text: `Summary: the user and the assistant exchanged ${request.messages.length} messages.` };
    case 'turn':
      // A turn that asks for structured output offers `final_answer`: answer with it.
      if (request.tools.some((tool) => tool.name === 'final_answer'))
        return {
          toolCalls: [{ name: 'final_answer', arguments: KYOTO_PLAN }],
          streamArguments: true,
          pace: 25,
        };
      return planTurn(request.messages, request.systemPrompt);
  }
}

function planTurn(messages: readonly Message[], systemPrompt: string): OfflineReply {
  const lastUser = lastIndexOfUser(messages);
  const user = messages[lastUser];
  const text = user?.type === 'user' ? textOf(user) : '';
  const since = messages.slice(lastUser + 1);
  const results = since.flatMap((m) => (m.type === 'tool_result' ? [m] : []));
  const stepwise =
    messages[lastUser - 1]?.type === 'system' &&
    /<name>stepwise<\/name>/.test(content(messages[lastUser - 1]));

  if (/\bloop\b/i.test(text)) return loopReply(results);
  if (results.length > 0) return answerFromResults(results, stepwise);
  const expression = stepwise ? text.replace(/\/stepwise\b/, '').trim() : findExpression(text);
  if (expression) {
    const steps = stepwise ? [...innerGroups(expression), expression] : [expression];
    return {
      reasoning: stepwise
        ? `The /stepwise skill asks for one calculator call per step: ${steps.join(' ; ')}.`
        : `This is arithmetic, so I will use the calculator on "${expression}".`,
      toolCalls: steps.map((step) => ({ name: 'calculator', arguments: { expression: step } })),
    };
  }
  if (/\b(time|clock|date|day)\b/i.test(text)) {
    const timeZone = timeZoneIn(text);
    return {
      reasoning: 'The user wants the current time; the clock tool knows it.',
      toolCalls: [{ name: 'clock', arguments: timeZone ? { timeZone } : {} }],
    };
  }
  if (/\bwhat do you remember\b/i.test(text)) return { text: recall(systemPrompt) };
  if (/^\s*remember\b/i.test(text)) {
    return {
      text: 'Noted. When this session closes (open another one, or start a new chat), memory extraction saves it, and later sessions get it in their prompt: ask me "what do you remember?" there.',
    };
  }
  const note = /^\s*note\s*:?\s+(.+)$/is.exec(text)?.[1];
  if (note) {
    return {
      reasoning: 'A note to keep: the notes tool saves it.',
      toolCalls: [{ name: 'notes', arguments: { action: 'add', text: note } }],
    };
  }
  if (/\bnotes\b/i.test(text)) {
    const action = /\b(clear|delete|remove)\b/i.test(text) ? 'clear' : 'list';
    return { toolCalls: [{ name: 'notes', arguments: { action } }] };
  }
  if (/\b(long|story)\b/i.test(text))
    return { reasoning: 'A story, then, told slowly.', text: STORY, pace: 60 };
  if (text.trim() === '') return { text: HELP };
  return { text: `You said: ${text}\n\n${HELP}` };
}

/**
 * A model stuck in a loop: the same calculator call, again and again, until a result is an error.
 * The runtime's repeated-call guard (`maxRepeatedToolCalls`, 3 by default) refuses the fourth one,
 * and the model reads why.
 */
function loopReply(results: readonly Extract<Message, { type: 'tool_result' }>[]): OfflineReply {
  const last = results.at(-1);
  if (!last?.isError) {
    return {
      reasoning: last ? 'Let me check that sum once more, to be sure.' : 'A sum to check.',
      toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 2' } }],
    };
  }
  return {
    text: `I made the same calculator call ${results.length - 1} times; the runtime refused the next one:\n${last.content}`,
  };
}

function lastIndexOfUser(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]!.type === 'user') return i;
  return -1;
}

function answerFromResults(
  results: readonly Extract<Message, { type: 'tool_result' }>[],
  stepwise: boolean,
): OfflineReply {
  if (stepwise) {
    const steps = results.map((r, i) => `${i + 1}. ${r.content}`);
    const last = results.at(-1)?.content.split(' = ').at(-1) ?? '?';
    return { text: `${steps.join('\n')}\n\n**Result: ${last}**` };
  }
  const lines = results.map((r) => (r.isError ? `The tool reported a problem: ${r.content}` : r.content));
  return { text: `Here is what the tools said:\n${lines.join('\n')}` };
}

/** An arithmetic expression in `text`: digits with at least one operator, e.g. `12 * (3 + 4)`. */
function findExpression(text: string): string | undefined {
  const candidates = text.match(/[-+(]*\d[\d.\s()+\-*/%^]*/g) ?? [];
  return candidates
    .map((c) => c.trim().replace(/[\s=?]+$/, ''))
    .find((c) => /\d\s*[-+*/%^]\s*[\d(-]/.test(c));
}

/** The innermost parenthesized groups of `expression`, in order. */
function innerGroups(expression: string): string[] {
  return [...expression.matchAll(/\(([^()]+)\)/g)].map((m) => m[1]!.trim());
}

const CITY_ZONES: Record<string, string> = {
  tokyo: 'Asia/Tokyo',
  paris: 'Europe/Paris',
  london: 'Europe/London',
  'new york': 'America/New_York',
  sydney: 'Australia/Sydney',
  shanghai: 'Asia/Shanghai',
  beijing: 'Asia/Shanghai',
};

function timeZoneIn(text: string): string | undefined {
  const iana = /\b[A-Z][a-z]+\/[A-Z][A-Za-z_]+\b/.exec(text)?.[0];
  if (iana) return iana;
  const lower = text.toLowerCase();
  return Object.entries(CITY_ZONES).find(([city]) => lower.includes(city))?.[1];
}

/**
 * Memory extraction reads a transcript (`User: …` lines); each "remember …" line of the user that
 * is not a known memory yet becomes one.
 */
function rememberedFacts(messages: readonly Message[]): { content: string; tags: string[] }[] {
  const input = messages.map((m) => (m.type === 'user' ? textOf(m) : '')).join('\n');
  const facts = [...input.matchAll(/^User:\s*remember\s*:?\s+(.+)$/gim)].map((m) => m[1]!.trim());
  return [...new Set(facts)]
    .map((fact) => `The user asked to remember: ${fact}`)
    .filter((memory) => !input.includes(`- ${memory}`))
    .map((memory) => ({ content: memory, tags: ['demo'] }));
}

/** The memories the runtime put in the system prompt (one `- ` line each, after `## Memory`). */
function recall(systemPrompt: string): string {
  const section = systemPrompt.split('## Memory')[1] ?? '';
  const memories = section.split('\n').filter((line) => /^- The user asked to remember/.test(line));
  return memories.length === 0
    ? 'I remember nothing yet. Say "remember …", then open another session: memory extraction runs when a session closes.'
    : `From earlier sessions I remember:\n${memories.join('\n')}`;
}

function textOf(message: Extract<Message, { type: 'user' }>): string {
  return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');
}

function content(message: Message | undefined): string {
  return message?.type === 'system' ? message.content : '';
}
