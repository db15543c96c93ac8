/**
 * Every builtin's settings, pinned to their documented values (docs/tools.md: each tool's
 * settings; timeoutSeconds 5–600, default 30; the approval settings every tool gets, approval by the
 * tool's default and approvalTimeoutSeconds 10–3600, default 600): name, type, bounds and default, and
 * the policy refuses one step past each bound. zsh, registered only where it is installed, has bash's.
 */
import { describe, expect, test } from 'bun:test';
import { getTool } from '../../../src/tools/registry.ts';
import { findShellInterpreter } from '../../../src/tools/shell/shell-interpreter.ts';
import { toolSettingsMetadataOf } from '../../../src/tools/tool-settings-metadata.ts';
import {
  getDefaultToolSettings,
  normalizeToolParameters,
} from '../../../src/tools/tool-settings-resolver.ts';
import '../../../src/tools/builtin/register-builtin-tools.ts';

type Expected = [
  name: string,
  type: string,
  min: number | undefined,
  max: number | undefined,
  fallback: unknown,
];
const PATHS: Expected[] = [
  ['allowedPaths', 'path_list', undefined, undefined, []],
  ['deniedPaths', 'path_list', undefined, undefined, []],
];

/** The two settings every tool gets, with the tool's declared approval default. */
const approvalSettings = (approval: 'never' | 'always'): Expected[] => [
  ['approval', 'select', undefined, undefined, approval],
  ['approvalTimeoutSeconds', 'integer', 10, 3600, 600],
];
const AUTO_APPROVED_PATHS: Expected = ['autoApprovedPaths', 'path_list', undefined, undefined, []];

const SPEC: Record<string, Expected[]> = {
  read_file: [...PATHS, ...approvalSettings('never')],
  write_file: [...PATHS, AUTO_APPROVED_PATHS, ...approvalSettings('always')],
  edit_file: [...PATHS, AUTO_APPROVED_PATHS, ...approvalSettings('always')],
  list_directory: [...PATHS, ...approvalSettings('never')],
  get_current_datetime: approvalSettings('never'),
  glob: [
    ...PATHS,
    ['maxResults', 'integer', 1, 5000, 200],
    ['includeDotfiles', 'boolean', undefined, undefined, false],
    ['absolute', 'boolean', undefined, undefined, false],
    ...approvalSettings('never'),
  ],
  grep: [
    ...PATHS,
    ['maxResults', 'integer', 1, 5000, 100],
    ['maxMatchesPerFile', 'integer', 1, 5000, 20],
    ['maxFileSizeBytes', 'integer', 1, 64 * 1024 * 1024, 1024 * 1024],
    ['includeDotfiles', 'boolean', undefined, undefined, false],
    ...approvalSettings('never'),
  ],
  bash: [
    ['timeoutSeconds', 'integer', 5, 600, 30],
    ['maxOutputBytes', 'integer', 1024, 1024 * 1024, 100 * 1024],
    ['deniedEnvVars', 'string_list', undefined, undefined, []],
    ...PATHS,
    ['autoApprovedCommands', 'string_list', undefined, undefined, []],
    ['autoApprovedExactCommands', 'string_list', undefined, undefined, []],
    ...approvalSettings('always'),
  ],
  generate_image: [
    ['timeoutSeconds', 'integer', 5, 600, 30],
    ['maxImagesPerCall', 'integer', 1, 4, 4],
    ['defaultQuality', 'select', undefined, undefined, 'auto'],
    ['defaultModel', 'string', undefined, undefined, ''],
    ['letAiDecideQuality', 'boolean', undefined, undefined, true],
    ...approvalSettings('always'),
  ],
};
if (findShellInterpreter('zsh') !== undefined) SPEC.zsh = SPEC.bash!;

describe.each(Object.entries(SPEC))('%s settings', (name, expected) => {
  const tool = getTool(name);
  test('names, types, bounds and defaults as specified', () => {
    if (!tool) throw new Error(`${name} is not registered`);
    expect(
      toolSettingsMetadataOf(tool).parameterDescriptors.map((descriptor) => [
        descriptor.name,
        descriptor.type,
        descriptor.min,
        descriptor.max,
        descriptor.default,
      ]),
    ).toEqual(expected);
    expect(getDefaultToolSettings(tool).parameters).toEqual(
      Object.fromEntries(expected.map(([parameter, , , , fallback]) => [parameter, fallback])),
    );
  });

  test('one step past each bound is refused; the bounds themselves are accepted', () => {
    if (!tool) throw new Error(`${name} is not registered`);
    for (const [parameter, , min, max] of expected) {
      if (min !== undefined) {
        expect(normalizeToolParameters(tool, { [parameter]: min })).toEqual({ [parameter]: min });
        expect(() => normalizeToolParameters(tool, { [parameter]: min - 1 })).toThrow(`at least ${min}`);
      }
      if (max !== undefined) {
        expect(normalizeToolParameters(tool, { [parameter]: max })).toEqual({ [parameter]: max });
        expect(() => normalizeToolParameters(tool, { [parameter]: max + 1 })).toThrow(`at most ${max}`);
      }
    }
  });
});
