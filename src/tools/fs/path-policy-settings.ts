/**
 * The settings every path-taking tool shares (read_file, list_directory, glob, grep, write_file,
 * edit_file; the shell tools' `cwd` follows the same rules). A tool spreads these into its
 * `parameterDescriptors` and `defaultParameters` so every tool names, defaults and validates them the
 * same way; the call's access policy (access/access-policy.ts) reads them from
 * `context.settings.parameters`. They only narrow what the chat can reach; they never widen it.
 */
import type { JsonSchema, ToolParameterDescriptor, ToolSettingsMetadata } from '../types.ts';

/** `allowedPaths` and `deniedPaths`: lists of `{path, enabled}`; `~` and relative entries allowed. */
export const PATH_POLICY_PARAMETER_DESCRIPTORS: ToolParameterDescriptor[] = [
  {
    name: 'allowedPaths',
    label: 'Allowed paths',
    description:
      'Only paths inside one of these directories (or equal to one of these files) may be used. An empty list allows every path the chat can reach; no entry makes a path reachable that the chat cannot reach anyway. Entries may start with ~ (the personal workspace) or be relative to the chat working directory; disabled entries are ignored.',
    type: 'path_list',
    default: [],
  },
  {
    name: 'deniedPaths',
    label: 'Denied paths',
    description:
      'Paths inside any of these are refused, even when an allowed path contains them (deny wins over allow). Entries may start with ~ (the personal workspace) or be relative to the chat working directory; disabled entries are ignored.',
    type: 'path_list',
    default: [],
  },
];

/** Defaults matching {@link PATH_POLICY_PARAMETER_DESCRIPTORS}: nothing allowed-listed, nothing denied. */
export const PATH_POLICY_DEFAULT_PARAMETERS: { allowedPaths: []; deniedPaths: [] } = {
  allowedPaths: [],
  deniedPaths: [],
};

/**
 * The settings of a filesystem tool whose only settings are the path policy: category `system`, on by
 * default, can be disabled.
 */
export function createPathPolicyToolSettings(title: string, description: string): ToolSettingsMetadata {
  return {
    title,
    description,
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { ...PATH_POLICY_DEFAULT_PARAMETERS },
    parameterDescriptors: [...PATH_POLICY_PARAMETER_DESCRIPTORS],
  };
}

/** The `path` argument schema of the tools that take one file (read_file, write_file, edit_file). */
export function createFilePathProperty(): JsonSchema {
  return {
    type: 'string',
    description: 'File path: absolute, ~-prefixed, or relative to the working directory.',
    minLength: 1,
  };
}
