/**
 * Where a file-writing call would write, and whether an enabled `autoApprovedPaths` entry contains it,
 * resolved before the call runs so the approval decision (`approval-decision.ts`) can skip the question.
 * The target is resolved by the one path resolver and decided by the call's access policy (a write the
 * policy refuses resolves to nothing, so it is asked about like any other); entries are resolved as the
 * access policy resolves `allowedPaths` (lexical and real location), and matched on real locations
 * only — never as string prefixes of what the model wrote.
 *
 * The tool resolves its path again when it runs: the path policy, not this check, decides whether the
 * write may happen at all; this only decides whether the user is asked first.
 */
import { resolvePathListEntries } from '../tools/access/access-policy.ts';
import { locationResolverFor } from '../tools/access/location-resolution.ts';
import { isPathInside } from '../tools/access/reachable-set.ts';
import { resolveAndValidatePath } from '../tools/access/resolve-and-validate-path.ts';
import { getEnabledPathListSetting } from '../tools/arg-parsing.ts';
import { createToolContext, type PreparedToolCall } from '../tools/execution.ts';
import type { ToolCallContext } from '../tools/types.ts';
import type { WriteTargetAssessment } from './approval-decision.ts';

/**
 * The write target of a call of a tool with `autoApprovedPaths` and a string `path` argument, or
 * undefined when the tool has no such setting, the call names no path, or the path cannot be resolved.
 */
export async function assessAutoApprovedWriteTarget(
  call: PreparedToolCall,
  context: ToolCallContext,
): Promise<WriteTargetAssessment | undefined> {
  const { parameters } = call.settings;
  const path = call.arguments.path;
  if (!('autoApprovedPaths' in parameters) || typeof path !== 'string') return undefined;
  const toolContext = createToolContext(
    context,
    call.settings,
    context.signal ?? new AbortController().signal,
  );
  let real: string;
  try {
    real = (await resolveAndValidatePath(path, toolContext, 'path', 'write')).real;
  } catch {
    return undefined;
  }
  const entries = await resolvePathListEntries(
    getEnabledPathListSetting(parameters, 'autoApprovedPaths'),
    context.reachable,
    locationResolverFor(toolContext),
  );
  const containing = entries.find((entry) => isPathInside(real, entry.real));
  return containing === undefined ? { real } : { real, autoApprovedBy: containing.setting };
}
