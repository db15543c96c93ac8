/** A tool that does nothing: what the loop benchmarks run so they measure the loop, not a tool. */
import { readOnlyLocalTraits } from '../../src/tools/tool-traits.ts';
import type { RegisteredTool } from '../../src/tools/types.ts';

export const noopTool: RegisteredTool = {
  definition: {
    name: 'noop',
    description: 'Does nothing.',
    parameters: { type: 'object', properties: { value: { type: 'string' } }, additionalProperties: false },
  },
  settings: {
    title: 'No-op',
    description: 'Does nothing.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  // It changes nothing, so it declares so: without traits it would be treated as risky and ask first.
  traits: readOnlyLocalTraits('json'),
  execute: async () => ({ ok: 1 }),
};
