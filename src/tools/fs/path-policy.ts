/**
 * The path policy of one tool call (issue 3, "Paths"; spec: "enforced by resolveAndValidatePath"):
 *
 * - `allowedPaths`: when any entry is enabled, a path must lie inside one of them; an empty list (or only
 *   disabled entries) allows everything.
 * - `deniedPaths`: a path inside any enabled entry is refused, whatever the allow list says.
 * - restricted chats: a path must also lie inside the chat's working directory.
 *
 * Decisions are taken on the real location (symlinks resolved), so a link inside an allowed directory
 * that points outside is outside. A deny entry also matches lexically, so a denied directory cannot be
 * reached under another spelling either. "Inside" is component-wise: `/allowed-evil` is not inside
 * `/allowed`.
 */
import { sep } from 'node:path';
import { getEnabledPathListSetting } from '../arg-parsing.ts';
import type { ToolContext } from '../types.ts';
import { expandAndResolvePath, resolveRealLocation } from './real-location.ts';

/** True when `candidate` equals `directory` or lies below it, compared component-wise. */
export function isPathInside(candidate: string, directory: string): boolean {
  if (candidate === directory) return true;
  const prefix = directory.endsWith(sep) ? directory : directory + sep;
  return candidate.startsWith(prefix);
}

interface PolicyEntry {
  /** As written in the settings. */
  setting: string;
  absolute: string;
  real: string;
}

/** A policy with its entries resolved once, checked synchronously for every candidate of a walk. */
export interface PathPolicy {
  /** Lexical absolute working directory of the chat (or the process). */
  readonly workingDirectory: string;
  /** Real location of the working directory. */
  readonly workingDirectoryReal: string;
  /**
   * Why a location is refused, naming the path and the rule, or `undefined` when it is allowed.
   * `shown` is how the message refers to the path (normally the model's own spelling).
   */
  refusalFor(real: string, absolute: string, shown: string): string | undefined;
}

async function resolveEntries(entries: string[], workingDirectory: string): Promise<PolicyEntry[]> {
  return Promise.all(
    entries.map(async (setting) => {
      const absolute = expandAndResolvePath(setting, workingDirectory);
      let real = absolute;
      try {
        real = (await resolveRealLocation(absolute)).real;
      } catch {
        // An unresolvable entry (loop, unreadable) still matches lexically.
      }
      return { setting, absolute, real };
    }),
  );
}

function describeLocation(shown: string, real: string): string {
  return shown === real ? JSON.stringify(shown) : `${JSON.stringify(shown)} (real location ${real})`;
}

/** Builds the policy of a call from `context.settings.parameters` and the chat's binding. */
export async function createPathPolicy(context: ToolContext, workingDirectory: string): Promise<PathPolicy> {
  const parameters = context.settings.parameters;
  const [allowed, denied, workingDirectoryLocation] = await Promise.all([
    resolveEntries(getEnabledPathListSetting(parameters, 'allowedPaths'), workingDirectory),
    resolveEntries(getEnabledPathListSetting(parameters, 'deniedPaths'), workingDirectory),
    resolveRealLocation(workingDirectory).catch(() => ({ real: workingDirectory, exists: false })),
  ]);
  const workingDirectoryReal = workingDirectoryLocation.real;
  const restricted = context.restricted;

  return {
    workingDirectory,
    workingDirectoryReal,
    refusalFor(real: string, absolute: string, shown: string): string | undefined {
      const where = describeLocation(shown, real);
      const deniedBy = denied.find(
        (entry) => isPathInside(real, entry.real) || isPathInside(absolute, entry.absolute),
      );
      if (deniedBy) {
        return `Access to ${where} is denied: it is inside the denied path ${JSON.stringify(deniedBy.setting)} (deniedPaths setting).`;
      }
      if (allowed.length > 0 && !allowed.some((entry) => isPathInside(real, entry.real))) {
        const list = allowed.map((entry) => JSON.stringify(entry.setting)).join(', ');
        return `Access to ${where} is denied: it is outside the allowed paths (allowedPaths setting: ${list}).`;
      }
      if (restricted && !isPathInside(real, workingDirectoryReal)) {
        return `Access to ${where} is denied: this chat is restricted to its working directory ${workingDirectoryReal}.`;
      }
      return undefined;
    },
  };
}
