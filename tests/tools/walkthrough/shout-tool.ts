/**
 * shout: the walkthrough tool of CONTRIBUTING.md ("Adding a builtin tool"), declared the way a builtin
 * is, in one file. It returns its text in capital letters with up to `maxMarks` exclamation marks.
 * `shoutActivity` records how many calls run at once, so the walkthrough test can show that the
 * declared `readOnly` trait alone lets the loop run its calls side by side.
 */
import { Type } from '@sinclair/typebox';
import { defineTool } from '../../../src/tools/define-tool.ts';
import { ToolArgumentError } from '../../../src/tools/errors.ts';
import { StringEnum } from '../../../src/tools/tool-schema.ts';
import { setting } from '../../../src/tools/tool-settings.ts';
import { readOnlyLocalTraits } from '../../../src/tools/tool-traits.ts';

export const shoutActivity = { active: 0, maxActive: 0 };

export const shoutTool = defineTool({
  name: 'shout',
  description: 'Returns the text in capital letters, followed by exclamation marks.',
  parameters: Type.Object({
    text: Type.String({ description: 'Text to shout', minLength: 1, maxLength: 200 }),
    marks: Type.Optional(
      Type.Integer({ description: 'Exclamation marks (default 1)', minimum: 1, maximum: 5 }),
    ),
    style: Type.Optional(
      StringEnum(['plain', 'spaced'], { description: 'spaced puts a space between letters' }),
    ),
  }),
  traits: readOnlyLocalTraits('json'),
  title: 'Shout',
  summary: 'Upper-cases text.',
  category: 'interaction',
  enabledByDefault: true,
  canDisable: true,
  settings: {
    maxMarks: setting.integer({
      label: 'Most exclamation marks',
      description: 'A call asking for more gets this many.',
      min: 1,
      max: 10,
      default: 3,
    }),
    defaultStyle: setting.select({
      label: 'Default style',
      description: 'The style used when the model names none.',
      allowedValues: ['plain', 'spaced'],
      default: 'plain',
    }),
  },
  execute: async ({ text, marks, style }, _context, settings) => {
    // The one rule the schema cannot state; everything else has been checked before execute runs.
    if (text.trim() === '') throw new ToolArgumentError('Argument "text" must not be blank.');
    shoutActivity.active += 1;
    shoutActivity.maxActive = Math.max(shoutActivity.maxActive, shoutActivity.active);
    // Yield a few turns of the event loop so calls the loop runs side by side overlap.
    for (let turn = 0; turn < 3; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
    shoutActivity.active -= 1;
    const upper = text.toUpperCase();
    const shown = (style ?? settings.defaultStyle) === 'spaced' ? [...upper].join(' ') : upper;
    return { shouted: shown + '!'.repeat(Math.min(marks ?? 1, settings.maxMarks)) };
  },
});
