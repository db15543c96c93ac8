/**
 * The chat API (issue 7; design: "chat/chat-routes.ts"): create, list, show and delete a user's chats,
 * run a turn as a `text/event-stream` (one `data: {json}` line per turn event), and cancel it. Thin:
 * each route calls one `ChatService` method; `ChatError` codes become statuses in `http-errors.ts`.
 */
import { Elysia } from 'elysia';
import { createTurnEventStream, SSE_HEADERS } from '../../chat/turn-sse.ts';
import type { AppDependencies } from '../app-dependencies.ts';
import { parseJsonBody } from '../json-body.ts';
import { chatIdParamsSchema, createChatBodySchema, startTurnBodySchema } from './chat-schemas.ts';

export function createChatRoutes(deps: AppDependencies) {
  const parse = ({ request }: { request: Request }) =>
    parseJsonBody(request, deps.config.maxRequestBodyBytes);
  return new Elysia({ name: 'mango-chat-routes', seed: deps })
    .use(deps.authentication)
    .post(
      '/api/chats',
      async ({ user, body, set }) => {
        const chat = await deps.chats.createChat(user.id, body);
        set.status = 201;
        return chat;
      },
      {
        parse,
        body: createChatBodySchema,
        detail: {
          summary: 'Create a chat bound to a provider, a model and optionally a working directory',
          tags: ['chats'],
          operationId: 'createChat',
        },
      },
    )
    .get('/api/chats', async ({ user }) => ({ chats: await deps.chats.listChats(user.id) }), {
      detail: { summary: "List the user's chats", tags: ['chats'], operationId: 'listChats' },
    })
    .get('/api/chats/:id', ({ user, params }) => deps.chats.getChat(user.id, params.id), {
      params: chatIdParamsSchema,
      detail: { summary: 'A chat with its stored messages', tags: ['chats'], operationId: 'getChat' },
    })
    .delete(
      '/api/chats/:id',
      async ({ user, params, set }) => {
        await deps.chats.deleteChat(user.id, params.id);
        set.status = 204;
      },
      {
        params: chatIdParamsSchema,
        detail: { summary: 'Delete a chat and its messages', tags: ['chats'], operationId: 'deleteChat' },
      },
    )
    .post(
      '/api/chats/:id/turns',
      async ({ user, params, body, request }) => {
        const events = await deps.chats.startTurn(user.id, params.id, body.message, {
          signal: request.signal,
        });
        return new Response(createTurnEventStream(events), { headers: { ...SSE_HEADERS } });
      },
      {
        parse,
        params: chatIdParamsSchema,
        body: startTurnBodySchema,
        detail: {
          summary: 'Send a message and stream the turn as text/event-stream',
          tags: ['chats'],
          operationId: 'startTurn',
        },
      },
    )
    .post(
      '/api/chats/:id/cancel',
      async ({ user, params }) => ({ cancelled: await deps.chats.cancelTurn(user.id, params.id) }),
      {
        params: chatIdParamsSchema,
        detail: {
          summary: "Cancel the chat's running turn (stops its tools)",
          tags: ['chats'],
          operationId: 'cancelTurn',
        },
      },
    );
}
