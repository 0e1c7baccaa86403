// Not an app of this library: only what its runtime needs of its dependencies — xstate (a chart
// with an invoked promise actor, a callback actor, assign, sendTo), zod/mini (objects, unions,
// arrays, records, checks, safeParse, toJSONSchema for tool parameters) and rxjs's Observable.
// What any agent built on these pays before a line of this library's own code.
import { assertEvent, assign, createActor, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import * as z from 'zod/mini';
import { Observable } from 'rxjs/internal/Observable';

const machine = setup({
  actors: { step: fromPromise(async () => 1), runner: fromCallback(() => {}) },
}).createMachine({
  context: { n: 0 },
  initial: 'a',
  invoke: { id: 'runner', src: 'runner' },
  states: {
    a: {
      invoke: { src: 'step', onDone: { target: 'b', actions: assign({ n: 1 }) } },
      on: { X: { actions: sendTo('runner', { type: 'Y' }) } },
    },
    b: { type: 'final' },
  },
});
const Schema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('a'),
    n: z.number().check(z.int(), z.minimum(0)),
    s: z.optional(z.string()),
  }),
  z.strictObject({
    type: z.literal('b'),
    r: z.record(z.string(), z.unknown()),
    l: z.array(z.boolean()),
    e: z.enum(['x', 'y']),
  }),
]);

window.run = (value) => [
  createActor(machine).start(),
  z.safeParse(Schema, value),
  z.toJSONSchema(Schema),
  new Observable((subscriber) => subscriber.next(assertEvent)),
];
