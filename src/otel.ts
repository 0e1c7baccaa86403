/**
 * `youyou-agent/otel`: OpenTelemetry GenAI spans of an agent's turns. `otelPlugin()` is a
 * plugin; `@opentelemetry/api` (an optional peer) is all it imports.
 * @module
 */
export { otelPlugin, type OtelPluginOptions } from './otel/otel-plugin.js';
