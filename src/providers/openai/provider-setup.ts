/**
 * What both OpenAI providers (Chat Completions and Responses) derive from their parsed options
 * in the same way: the `client` option's exclusions, the pricing table, and the redactor of the
 * secrets they hold.
 * @module
 */
import * as Errors from '../../error-constructors.js';
import type { ModelInfo, ModelPricing } from '../../vocabulary/model-info.js';
import { SecretRedactor } from './redact-secrets.js';

/** The options both providers read here. */
interface SetupOptions {
  client?: unknown;
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  dangerouslyAllowBrowser?: boolean | undefined;
  headers?: Record<string, string> | undefined;
}

/** `INVALID_INPUT` when a `client` comes with options that only configure the built-in client. */
export function assertClientAlone(provider: string, options: SetupOptions): void {
  if (!options.client) return;
  const clash = (['apiKey', 'baseURL', 'dangerouslyAllowBrowser'] as const).filter(
    (key) => options[key] !== undefined,
  );
  if (clash.length > 0) {
    throw Errors.invalidInput(
      `${provider} options: 'client' excludes ${clash.map((key) => `'${key}'`).join(', ')} (configure the client instead)`,
    );
  }
}

/** The pricing of each model that has one, by model id. */
export function pricingByModel(models: readonly ModelInfo[]): ReadonlyMap<string, ModelPricing> {
  return new Map(models.flatMap((model) => (model.pricing ? [[model.id, model.pricing] as const] : [])));
}

/** Redacts the client's key (an SDK client and the fetch client have it as `apiKey`) and the extra headers. */
export function redactorFor(client: unknown, headers: Record<string, string> | undefined): SecretRedactor {
  const apiKey = (client as { apiKey?: unknown }).apiKey;
  return new SecretRedactor([
    typeof apiKey === 'string' ? apiKey : undefined,
    ...Object.values(headers ?? {}),
  ]);
}
