/**
 * Whether a tool call must wait for the user's approval: one pure function of the tool, its effective
 * settings, the call's validated arguments and (for the file-writing tools) where the write lands
 * (docs/tools.md, "Approvals"). No I/O, so every case is pinned by a table test.
 *
 * Rules, in order: `approval: never` runs the call; a shell command matching one of the shell's
 * auto-approve rules (`autoApprovedCommands` word prefixes, `autoApprovedExactCommands` exact text;
 * matched with the shell grammar of `../tools/shell/command-approval-rules.ts`) runs; a write whose resolved real
 * target lies inside an enabled `autoApprovedPaths` entry runs; everything else asks. Whatever cannot
 * be decided (a command that does not parse, a target that could not be resolved) asks: a rule never
 * approves what it cannot see.
 */
import { matchCommandRule } from '../tools/shell/command-approval-rules.ts';
import type { EffectiveToolSettings, RegisteredTool } from '../tools/types.ts';

/** Where a file-writing call's write lands, as resolved by `auto-approved-write-target.ts`. */
export interface WriteTargetAssessment {
  /** The real location written. */
  real: string;
  /** The enabled `autoApprovedPaths` entry (as written in the settings) containing it, if any. */
  autoApprovedBy?: string;
}

export type ApprovalDecision = { ask: false; because: string } | { ask: true; reason: string };

export interface ApprovalDecisionInput {
  tool: RegisteredTool;
  settings: EffectiveToolSettings;
  arguments: Readonly<Record<string, unknown>>;
  /** For a tool with `autoApprovedPaths`: where the write lands; undefined when it could not be resolved. */
  writeTarget?: WriteTargetAssessment;
}

/** The shell grammar of a tool whose commands auto-approve rules may match (bash and zsh only). */
export function ruleShellOf(tool: RegisteredTool): 'bash' | 'zsh' | undefined {
  const name = tool.definition.name;
  if (name !== 'bash' && name !== 'zsh') return undefined;
  const names = tool.settings.parameterDescriptors.map((descriptor) => descriptor.name);
  return names.includes('autoApprovedCommands') && names.includes('autoApprovedExactCommands')
    ? name
    : undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function decideApproval(input: ApprovalDecisionInput): ApprovalDecision {
  const { tool, settings } = input;
  const name = tool.definition.name;
  const parameters = settings.parameters;
  if (parameters.approval !== 'always') {
    return { ask: false, because: `${name} runs without asking ("approval" is "never").` };
  }
  const asks = `${name} asks before every call ("approval" is "always").`;

  const shell = ruleShellOf(tool);
  if (shell !== undefined && typeof input.arguments.command === 'string') {
    const prefixes = stringList(parameters.autoApprovedCommands);
    const exact = stringList(parameters.autoApprovedExactCommands);
    if (prefixes.length === 0 && exact.length === 0) return { ask: true, reason: asks };
    const match = matchCommandRule(input.arguments.command, shell, { prefixes, exact });
    if (match.matched) {
      const setting = match.kind === 'prefix' ? 'autoApprovedCommands' : 'autoApprovedExactCommands';
      return { ask: false, because: `The command matches ${JSON.stringify(match.rule)} (${setting}).` };
    }
    return { ask: true, reason: `${asks} No auto-approve rule matched: ${match.reason}.` };
  }

  if ('autoApprovedPaths' in parameters) {
    const target = input.writeTarget;
    if (target?.autoApprovedBy !== undefined) {
      return {
        ask: false,
        because: `The write lands in ${JSON.stringify(target.autoApprovedBy)} (autoApprovedPaths).`,
      };
    }
    const hasEntries = Array.isArray(parameters.autoApprovedPaths) && parameters.autoApprovedPaths.length > 0;
    if (!hasEntries) return { ask: true, reason: asks };
    return {
      ask: true,
      reason:
        target === undefined
          ? `${asks} Where the write lands could not be resolved, so no auto-approved path applies.`
          : `${asks} ${target.real} is inside no auto-approved path.`,
    };
  }
  return { ask: true, reason: asks };
}
