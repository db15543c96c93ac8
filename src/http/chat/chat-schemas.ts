/**
 * TypeBox schemas of the chat API (issue 7): create a chat, send a turn. Limits mirror the service's
 * own checks so an oversized field is a 400 before the service runs.
 */
import { t } from 'elysia';
import {
  MAX_MESSAGE_LENGTH,
  MAX_MODEL_LENGTH,
  MAX_SYSTEM_PROMPT_LENGTH,
  MAX_TITLE_LENGTH,
} from '../../chat/chat-service.ts';

export const chatIdParamsSchema = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) });

export const createChatBodySchema = t.Object(
  {
    title: t.Optional(t.String({ maxLength: MAX_TITLE_LENGTH })),
    provider: t.String({
      minLength: 1,
      maxLength: 100,
      description: 'openai, openai-compatible, gemini or anthropic',
    }),
    model: t.String({ minLength: 1, maxLength: MAX_MODEL_LENGTH }),
    workingDirectory: t.Optional(t.String({ maxLength: 4096 })),
    restricted: t.Optional(t.Boolean()),
    systemPrompt: t.Optional(t.String({ maxLength: MAX_SYSTEM_PROMPT_LENGTH })),
  },
  { additionalProperties: false },
);

export const startTurnBodySchema = t.Object(
  { message: t.String({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH }) },
  { additionalProperties: false },
);
