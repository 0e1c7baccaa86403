// `defineTool` alone: one tool whose arguments are a `zod/mini` object of one string field.
import { defineTool } from 'youyou-agent';
import * as z from 'zod/mini';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ arguments: { city } }) => `Sunny in ${city}`,
});

// An app build keeps only what runs: the app hands the tool to the page.
window.weather = weather;
