/**
 * `GET /api/preferences/chat-model` and `PUT /api/preferences/chat-model`: the provider and model of
 * the caller's last new chat, which the web app's new-chat form preselects. Each user reads and
 * writes only their own. A provider id must be one of the server's; the model is free text (a model
 * not listed by the provider may still be right), with the same length limit as a chat's.
 */
import { Elysia, t } from 'elysia';
import { MAX_MODEL_LENGTH } from '../../chat/chat-service.ts';
import { PROVIDER_IDS } from '../../contracts/provider-id.ts';
import type { AppDependencies } from '../app-dependencies.ts';
import { errorBodySchema } from '../settings/tool-settings-schemas.ts';

const providerIdSchema = t.Union(
  PROVIDER_IDS.map((id) => t.Literal(id)),
  { description: PROVIDER_IDS.join(', ') },
);

const chatModelBodySchema = t.Object(
  {
    provider: providerIdSchema,
    model: t.String({ minLength: 1, maxLength: MAX_MODEL_LENGTH, pattern: '\\S' }),
  },
  { additionalProperties: false },
);

const chatModelResponseSchema = t.Object({
  chatModel: t.Union([
    t.Object({ provider: t.String(), model: t.String(), updatedAt: t.String({ description: 'ISO 8601.' }) }),
    t.Null(),
  ]),
});

export function createPreferenceRoutes(deps: AppDependencies) {
  return new Elysia({ name: 'mango-preference-routes', seed: deps })
    .use(deps.authentication)
    .get(
      '/api/preferences/chat-model',
      async ({ user }) => ({ chatModel: (await deps.preferences.getChatModel(user.id)) ?? null }),
      {
        response: { 200: chatModelResponseSchema, 401: errorBodySchema },
        detail: {
          summary: "The provider and model of the caller's last new chat",
          tags: ['chats'],
          operationId: 'getChatModelPreference',
        },
      },
    )
    .put(
      '/api/preferences/chat-model',
      async ({ user, body }) => {
        const chatModel = {
          provider: body.provider,
          model: body.model.trim(),
          updatedAt: new Date(deps.now()).toISOString(),
        };
        await deps.preferences.putChatModel(user.id, chatModel);
        return { chatModel };
      },
      {
        body: chatModelBodySchema,
        response: { 200: chatModelResponseSchema, 400: errorBodySchema, 401: errorBodySchema },
        detail: {
          summary: "Remember the caller's provider and model for the next new chat",
          tags: ['chats'],
          operationId: 'putChatModelPreference',
        },
      },
    );
}
