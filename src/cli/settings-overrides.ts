/**
 * `--set PARAM=VALUE` parsing shared by `mango tool call` and `mango tool replay`. Values are parsed as
 * JSON when they parse (`--set maxResults=10`, `--set 'allowedPaths=[{"path":"/tmp","enabled":true}]'`)
 * and taken as strings otherwise (`--set defaultQuality=high`).
 */
import { UsageError } from './usage-error.ts';

export function parseSettingValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Splits `NAME=VALUE` at the first `=`. */
export function parseAssignment(assignment: string): { name: string; value: unknown } {
  const index = assignment.indexOf('=');
  if (index <= 0) throw new UsageError(`--set expects NAME=VALUE, got ${JSON.stringify(assignment)}.`);
  return { name: assignment.slice(0, index), value: parseSettingValue(assignment.slice(index + 1)) };
}
