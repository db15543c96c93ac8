/**
 * TypeBox schemas of the Tool Settings API (docs/http-api.md, "Tool settings"). They validate requests and
 * responses at runtime and are the source of the OpenAPI document.
 */
import { t } from 'elysia';
import { TOOL_RESULT_VIEWS } from '../../contracts/tool-result-view.ts';

export const errorBodySchema = t.Object(
  {
    error: t.String({ description: 'What went wrong, for people.' }),
    code: t.String({ description: 'Stable machine-readable code, e.g. out_of_range, cannot_disable.' }),
    parameter: t.Optional(t.String({ description: 'The setting at fault, for 422 responses.' })),
  },
  { $id: 'ErrorBody' },
);

export const toolParameterDescriptorSchema = t.Object({
  name: t.String(),
  label: t.String(),
  description: t.String(),
  type: t.Union([
    t.Literal('integer'),
    t.Literal('number'),
    t.Literal('boolean'),
    t.Literal('string'),
    t.Literal('select'),
    t.Literal('string_list'),
    t.Literal('path_list'),
  ]),
  allowedValues: t.Optional(t.Array(t.String())),
  required: t.Optional(t.Boolean()),
  default: t.Optional(t.Unknown()),
  min: t.Optional(t.Number()),
  max: t.Optional(t.Number()),
});

export const toolSettingsDescriptorSchema = t.Object({
  name: t.String(),
  title: t.String(),
  description: t.String(),
  category: t.Union([
    t.Literal('system'),
    t.Literal('image'),
    t.Literal('interaction'),
    t.Literal('external'),
  ]),
  enabled: t.Boolean(),
  canDisable: t.Boolean(),
  available: t.Boolean({ description: 'False when the tool cannot run in this deployment.' }),
  unavailableReason: t.Optional(
    t.String({ description: 'Why it cannot run (e.g. no OS sandbox for shells).' }),
  ),
  notice: t.Optional(t.String({ description: 'How it runs here (e.g. the shell sandbox mode).' })),
  confirmBeforeEnable: t.Boolean({
    description: 'The tool can do anything the server can: the page asks before switching it on.',
  }),
  readOnly: t.Boolean({
    description:
      'The tool only observes: its calls change no file (false for file writes, shells and tools of unknown kind).',
  }),
  resultView: t.UnionEnum(TOOL_RESULT_VIEWS, {
    description: 'How the web app renders its results; `json` is the generic view.',
  }),
  parameters: t.Record(t.String(), t.Unknown(), { description: 'Effective values: defaults < saved.' }),
  parameterDescriptors: t.Array(toolParameterDescriptorSchema),
});

export const toolSettingsListResponseSchema = t.Object({ tools: t.Array(toolSettingsDescriptorSchema) });

/** `UpdateToolSettingsBody`; unknown keys are refused (400), values are checked by the policy (422). */
export const updateToolSettingsBodySchema = t.Object(
  {
    enabled: t.Optional(t.Boolean()),
    parameters: t.Optional(
      t.Record(t.String(), t.Unknown(), { description: 'Settings to change; others keep their value.' }),
    ),
  },
  { additionalProperties: false },
);

export const toolNameParamsSchema = t.Object({ toolName: t.String({ maxLength: 1024 }) });
