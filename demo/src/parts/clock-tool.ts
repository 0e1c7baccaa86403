/**
 * The clock tool: the current date and time, in the browser's time zone or a named one.
 * @module
 */
import { defineTool } from 'youyou-agent';
import * as z from 'zod/mini';

export const clockTool = defineTool({
  name: 'clock',
  description: 'The current date and time, optionally in an IANA time zone such as "Asia/Tokyo".',
  parameters: z.object({
    timeZone: z.optional(z.string().check(z.describe('An IANA time zone; default: the user\u2019s own'))),
  }),
  execute: ({ arguments: { timeZone } }) => {
    const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    try {
      const text = new Intl.DateTimeFormat('en-GB', {
        dateStyle: 'full',
        timeStyle: 'long',
        timeZone: zone,
      }).format(new Date());
      return { content: `${text} (${zone})`, metadata: { timeZone: zone } };
    } catch {
      return {
        content: `Unknown time zone "${zone}". Use an IANA name such as "Europe/Paris".`,
        isError: true,
      };
    }
  },
});
