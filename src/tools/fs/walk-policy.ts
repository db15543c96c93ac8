/**
 * Policy checks for the candidates of a directory walk (glob, grep). A walk rooted at a real directory
 * that does not follow symlinks yields paths whose real location is their lexical one, except for the
 * symlink entries themselves, whose targets are resolved here. With no policy to enforce (no allow or
 * deny entries, chat not restricted) every candidate passes without a system call.
 */
import { lstat, realpath } from 'node:fs/promises';
import { getEnabledPathListSetting } from '../arg-parsing.ts';
import type { ToolContext } from '../types.ts';
import type { PathPolicy } from './path-policy.ts';

export interface WalkPolicy {
  /** False when no rule can refuse anything: callers may skip the checks entirely. */
  readonly active: boolean;
  /** Lexical check of a non-symlink candidate (its real location is its absolute path). */
  allowsLexical(absolute: string): boolean;
  /** Full check: lstat, and for a symlink its resolved target. */
  allows(absolute: string): Promise<boolean>;
}

export function createWalkPolicy(policy: PathPolicy, context: ToolContext): WalkPolicy {
  const parameters = context.settings.parameters;
  const active =
    context.restricted ||
    getEnabledPathListSetting(parameters, 'allowedPaths').length > 0 ||
    getEnabledPathListSetting(parameters, 'deniedPaths').length > 0;
  const allowsLexical = (absolute: string) => policy.refusalFor(absolute, absolute, absolute) === undefined;
  return {
    active,
    allowsLexical,
    async allows(absolute: string): Promise<boolean> {
      if (!active) return true;
      if (!allowsLexical(absolute)) return false;
      try {
        if (!(await lstat(absolute)).isSymbolicLink()) return true;
        const target = await realpath(absolute);
        return policy.refusalFor(target, absolute, absolute) === undefined;
      } catch {
        // A dangling or unreadable link: nothing behind it can be reached; keep it out.
        return false;
      }
    },
  };
}
