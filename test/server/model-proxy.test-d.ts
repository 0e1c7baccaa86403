/** `ModelProxyOptionsSchema` checks exactly the shape `ModelProxyOptions` declares. */
import { expectTypeOf, test } from 'vitest';
import type * as z from 'zod/mini';
import { ModelProxyOptionsSchema, type ModelProxyOptions } from '../../src/server.js';

test('the schema and the type agree', () => {
  expectTypeOf<z.output<typeof ModelProxyOptionsSchema>>().toEqualTypeOf<ModelProxyOptions>();
  expectTypeOf<z.input<typeof ModelProxyOptionsSchema>>().toEqualTypeOf<ModelProxyOptions>();
});
