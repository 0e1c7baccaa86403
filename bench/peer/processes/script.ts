/**
 * The scripted "model" of the peer bench: which scenario a request belongs to (its model id), what
 * the model answers next, and what a client must end up with. Shared by the SSE server and both
 * clients, so a client can check that its turn did the whole scripted work.
 * @module
 */

/** The four scenarios: one long answer, sequential tool rounds, one parallel batch, many short turns. */
export type ScenarioKind = 'text' | 'tools' | 'par' | 'long';

/** A scenario and its size: deltas (`text`), tool rounds (`tools`), parallel calls (`par`) or turns (`long`). */
export interface Scenario {
  kind: ScenarioKind;
  size: number;
}

/** Deltas of the answer that ends a tool scenario. */
export const CLOSING_ANSWER_DELTAS = 20;

/** Deltas of each answer in the `long` scenario (short turns). */
export const SHORT_ANSWER_DELTAS = 10;

/** The one tool both clients offer; the model calls it with `{ key }`. */
export const TOOL_NAME = 'lookup';

/** What the tool returns for `key`: trivial work, so the loop around it is what is measured. */
export const toolOutput = (key: string): string => `value of ${key}`;

/** The model id that selects a scenario on the server: `<kind>-<size>`, e.g. `text-5000`. */
export const modelIdOf = (scenario: Scenario): string => `${scenario.kind}-${scenario.size}`;

/** The scenario a model id names, or `undefined`. */
export function scenarioOf(modelId: string): Scenario | undefined {
  const match = /^(text|tools|par|long)-(\d+)$/.exec(modelId);
  return match ? { kind: match[1] as ScenarioKind, size: Number(match[2]) } : undefined;
}

/** The delta texts of an answer of `count` deltas. */
export const answerDeltas = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `w${i % 100} `);

/** One tool call as the model makes it. */
export interface ScriptedCall {
  id: string;
  key: string;
}

/** What the model does for one request: stream an answer, or call tools. */
export type ScriptedStep = { type: 'answer'; deltas: string[] } | { type: 'calls'; calls: ScriptedCall[] };

/** The least of a wire message the script reads. */
export interface ScriptMessage {
  role: string;
}

/**
 * The model's next step for a request with these messages. The round is the number of tool
 * results since the last user message, so the server keeps no state between requests.
 */
export function nextStep(scenario: Scenario, messages: readonly ScriptMessage[]): ScriptedStep {
  let results = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role !== 'user'; i--) {
    if (messages[i]?.role === 'tool') results++;
  }
  switch (scenario.kind) {
    case 'text':
      return { type: 'answer', deltas: answerDeltas(scenario.size) };
    case 'long':
      return { type: 'answer', deltas: answerDeltas(SHORT_ANSWER_DELTAS) };
    case 'tools':
      return results < scenario.size
        ? { type: 'calls', calls: [{ id: `call_${results}`, key: `k${results}` }] }
        : { type: 'answer', deltas: answerDeltas(CLOSING_ANSWER_DELTAS) };
    case 'par':
      return results === 0
        ? {
            type: 'calls',
            calls: Array.from({ length: scenario.size }, (_, i) => ({ id: `call_${i}`, key: `k${i}` })),
          }
        : { type: 'answer', deltas: answerDeltas(CLOSING_ANSWER_DELTAS) };
  }
}

/** What one turn of a scenario must produce: the answer's text and how many tools ran. */
export function expectedTurn(scenario: Scenario): { answer: string; toolCalls: number } {
  switch (scenario.kind) {
    case 'text':
      return { answer: answerDeltas(scenario.size).join(''), toolCalls: 0 };
    case 'long':
      return { answer: answerDeltas(SHORT_ANSWER_DELTAS).join(''), toolCalls: 0 };
    case 'tools':
    case 'par':
      return { answer: answerDeltas(CLOSING_ANSWER_DELTAS).join(''), toolCalls: scenario.size };
  }
}

/** Throws when a client's turn did not do the scripted work (so a failure is never timed as a turn). */
export function checkTurn(scenario: Scenario, outcome: { answer: string; toolCalls: number }): void {
  const expected = expectedTurn(scenario);
  if (outcome.answer !== expected.answer || outcome.toolCalls !== expected.toolCalls) {
    throw new Error(
      `${modelIdOf(scenario)}: expected ${expected.toolCalls} tool calls and a ${expected.answer.length}-character answer, ` +
        `got ${outcome.toolCalls} and ${outcome.answer.length} characters`,
    );
  }
}
