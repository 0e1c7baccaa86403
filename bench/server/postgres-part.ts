/** Placeholder replaced below. */
import type { ModelServer } from './model-server.js';
import type { InstanceConfig } from './instance-protocol.js';
import type { InstanceProcess } from './instance-process.js';
import type { Row } from './report.js';
import type { ServerSettings } from './settings.js';
export async function postgres(
  _model: ModelServer,
  _settings: ServerSettings,
  _start: (config: Partial<InstanceConfig>) => Promise<InstanceProcess>,
): Promise<{ rows: Row[]; notes: string[] }> {
  return { rows: [], notes: [] };
}
