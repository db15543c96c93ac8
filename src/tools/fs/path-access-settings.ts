/**
 * The settings every path-taking tool shares (read_file, list_directory, glob, grep, write_file,
 * edit_file; the shell tools' `cwd` follows the same rules). A tool spreads `PATH_ACCESS_SETTINGS` into
 * its `defineTool` settings so every tool names, defaults and validates them the same way; the call's
 * access policy (access/access-policy.ts) reads them from `context.settings.parameters`. They only
 * narrow what the chat can reach; they never widen it.
 */
import { type TString, Type } from '@sinclair/typebox';
import type { ToolParameterDescriptor } from '../../contracts/tool-parameter-descriptor.ts';
import { defaultSettingValues, describeSettings, setting } from '../tool-settings.ts';

/** `allowedPaths` and `deniedPaths`: lists of `{path, enabled}`; `~` and relative entries allowed. */
export const PATH_ACCESS_SETTINGS = {
  allowedPaths: setting.pathList({
    label: 'Allowed paths',
    description:
      'Only paths inside one of these directories (or equal to one of these files) may be used. An empty list allows every path the chat can reach; no entry makes a path reachable that the chat cannot reach anyway. Entries may start with ~ (the personal workspace) or be relative to the chat working directory; disabled entries are ignored.',
  }),
  deniedPaths: setting.pathList({
    label: 'Denied paths',
    description:
      'Paths inside any of these are refused, even when an allowed path contains them (deny wins over allow). Entries may start with ~ (the personal workspace) or be relative to the chat working directory; disabled entries are ignored.',
  }),
};

/** The descriptors of {@link PATH_ACCESS_SETTINGS}, for code that works with descriptors. */
export const PATH_ACCESS_PARAMETER_DESCRIPTORS: ToolParameterDescriptor[] =
  describeSettings(PATH_ACCESS_SETTINGS);

/** The defaults of {@link PATH_ACCESS_SETTINGS}: nothing allowed-listed, nothing denied. */
export const PATH_ACCESS_DEFAULT_PARAMETERS = defaultSettingValues(PATH_ACCESS_SETTINGS) as {
  allowedPaths: [];
  deniedPaths: [];
};

/** The `path` argument of the tools that take one file (read_file, write_file, edit_file). */
export function filePathParameter(): TString {
  return Type.String({
    description: 'File path: absolute, ~-prefixed, or relative to the working directory.',
    minLength: 1,
  });
}
