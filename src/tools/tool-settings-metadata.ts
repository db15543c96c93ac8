/**
 * A tool's settings as every consumer sees them: the tool's own settings plus the settings every tool
 * has, which no tool file declares (docs/tools.md, "Approvals"):
 * - `approval` (`never` | `always`): whether a chat call waits for the user's yes; its default is the
 *   tool's `approvalDefault` trait (a tool without traits asks).
 * - `approvalTimeoutSeconds` (10–3600, default 600): how long a call waits before it is denied.
 *
 * Guarantees: computed once per tool object and never changes afterwards; the universal settings come
 * after the tool's own, so a settings page lists the tool's own first; a tool that declares a setting of
 * the same name is a programming error and throws, rather than one silently shadowing the other.
 */

import type { ToolParameterDescriptor } from '../contracts/tool-parameter-descriptor.ts';
import { traitsOf } from './tool-traits.ts';
import type { RegisteredTool, ToolSettingsMetadata } from './types.ts';

export const APPROVAL_VALUES = ['never', 'always'] as const;
export const MIN_APPROVAL_TIMEOUT_SECONDS = 10;
export const MAX_APPROVAL_TIMEOUT_SECONDS = 3600;
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 600;

/** The names of the settings every tool has. */
export const UNIVERSAL_SETTING_NAMES = ['approval', 'approvalTimeoutSeconds'] as const;

function universalDescriptors(tool: RegisteredTool): ToolParameterDescriptor[] {
  return [
    {
      name: 'approval',
      label: 'Ask before each call',
      description:
        'always: every call in a chat waits for your approval before it runs (unless an auto-approve rule of this tool matches), and MCP clients are told to confirm it; never: calls run at once.',
      type: 'select',
      allowedValues: [...APPROVAL_VALUES],
      default: traitsOf(tool).approvalDefault,
    },
    {
      name: 'approvalTimeoutSeconds',
      label: 'Seconds to wait for approval',
      description: 'A call still waiting for your approval after this many seconds is denied.',
      type: 'integer',
      min: MIN_APPROVAL_TIMEOUT_SECONDS,
      max: MAX_APPROVAL_TIMEOUT_SECONDS,
      default: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
    },
  ];
}

const computed = new WeakMap<RegisteredTool, ToolSettingsMetadata>();

/** The tool's settings metadata with the universal settings added; the same object on every call. */
export function toolSettingsMetadataOf(tool: RegisteredTool): ToolSettingsMetadata {
  const known = computed.get(tool);
  if (known) return known;
  const own = tool.settings;
  for (const name of UNIVERSAL_SETTING_NAMES) {
    if (
      own.parameterDescriptors.some((descriptor) => descriptor.name === name) ||
      name in own.defaultParameters
    ) {
      throw new Error(
        `Tool "${tool.definition.name}" declares the setting "${name}", which every tool gets from the settings machinery; remove it from the tool.`,
      );
    }
  }
  const universal = universalDescriptors(tool);
  const metadata: ToolSettingsMetadata = {
    ...own,
    defaultParameters: {
      ...own.defaultParameters,
      ...Object.fromEntries(universal.map((descriptor) => [descriptor.name, descriptor.default])),
    },
    parameterDescriptors: [...own.parameterDescriptors, ...universal],
  };
  computed.set(tool, metadata);
  return metadata;
}
