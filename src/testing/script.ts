/**
 * What a {@link ScriptedModelProvider} plays back: the items of a response, and the steps of a
 * script (a fixed response, or one built from the request).
 * @module
 */
import type { ChatEvent, ChatRequest } from '../types.js';

/**
 * One item of a scripted response: a {@link ChatEvent} to stream, or an instruction —
 * `delay` waits `ms` milliseconds, `throw` throws `error` as-is, `wait` holds the stream until
 * `until` settles (a test's way to hold a response open until it releases it).
 */
export type ScriptItem =
  | ChatEvent
  | { type: 'delay'; ms: number }
  | { type: 'throw'; error: unknown }
  | { type: 'wait'; until: Promise<unknown> };

/** The items of one model response, in stream order. */
export type ScriptedResponse = ScriptItem[];

/**
 * One scripted call: a fixed response, or a function that builds the response from the request
 * (a deep copy) and the zero-based index of the call.
 */
export type ScriptStep = ScriptedResponse | ((request: ChatRequest, callIndex: number) => ScriptedResponse);
