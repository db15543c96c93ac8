/**
 * Small tools for registry and execution tests. They declare the cautious traits except that their
 * calls run without asking (`approvalDefault: 'never'`): approvals are tested where they are the
 * subject. A test about a tool that declares no traits at all passes `traits: undefined`.
 */
import { CAUTIOUS_TRAITS, type ToolTraits } from '../../src/tools/tool-traits.ts';
import type { RegisteredTool, ToolContext } from '../../src/tools/types.ts';

export const TEST_TOOL_TRAITS: ToolTraits = { ...CAUTIOUS_TRAITS, approvalDefault: 'never' };

/** The settings every tool gets from the settings machinery, at their defaults for a test tool. */
export const TEST_TOOL_UNIVERSAL_DEFAULTS = { approval: 'never', approvalTimeoutSeconds: 600 } as const;

export function makeTool(overrides: Partial<RegisteredTool> & { name: string }): RegisteredTool {
  return {
    definition: {
      name: overrides.name,
      description: `Test tool ${overrides.name}.`,
      parameters: {
        type: 'object',
        properties: { value: { type: 'string' } },
        required: [],
        additionalProperties: false,
      },
    },
    settings: {
      title: overrides.name,
      description: 'test',
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
    },
    execute: async (args: unknown, _context: ToolContext) => ({ echoed: args }),
    traits: TEST_TOOL_TRAITS,
    ...overrides,
  };
}

/** A tool with one setting of every descriptor type. */
export function makeSettingsTool(): RegisteredTool {
  return makeTool({
    name: 'tunable',
    settings: {
      title: 'Tunable',
      description: 'test',
      category: 'system',
      enabledByDefault: false,
      canDisable: true,
      defaultParameters: {
        timeoutSeconds: 30,
        ratio: 0.5,
        verbose: false,
        label: 'x',
        quality: 'medium',
        names: [],
        allowedPaths: [],
      },
      parameterDescriptors: [
        {
          name: 'timeoutSeconds',
          label: 'Timeout',
          description: 's',
          type: 'integer',
          min: 5,
          max: 600,
          default: 30,
        },
        { name: 'ratio', label: 'Ratio', description: 'r', type: 'number', min: 0, max: 1, default: 0.5 },
        { name: 'verbose', label: 'Verbose', description: 'v', type: 'boolean', default: false },
        { name: 'label', label: 'Label', description: 'l', type: 'string', default: 'x' },
        {
          name: 'quality',
          label: 'Quality',
          description: 'q',
          type: 'select',
          allowedValues: ['low', 'medium', 'high'],
          default: 'medium',
        },
        { name: 'names', label: 'Names', description: 'n', type: 'string_list', default: [] },
        { name: 'allowedPaths', label: 'Allowed', description: 'p', type: 'path_list', default: [] },
      ],
    },
  });
}

/**
 * `block` (or `name`): each call records its `value` argument when it starts and runs until the test
 * releases that value, or until its signal fires (then it fails with the signal's reason).
 */
export function blockingTool(name = 'block') {
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const tool = makeTool({
    name,
    execute: (args: unknown, context: ToolContext) => {
      const value = (args as { value: string }).value;
      started.push(value);
      return new Promise((resolve, reject) => {
        releases.set(value, () => resolve({ done: value }));
        context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
      });
    },
  });
  return {
    tool,
    /** The values of the calls that started, in the order they started. */
    started,
    /** Lets the running call with this value finish with `{done: value}`. */
    release: (value: string) => {
      const release = releases.get(value);
      if (!release) throw new Error(`No running call ${value}.`);
      release();
    },
  };
}
