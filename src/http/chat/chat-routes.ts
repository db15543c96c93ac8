/**
 * The chat API (issue 7; design: "chat/chat-routes.ts"): create, list, show and delete a user's chats,
 * run a turn as a `text/event-stream` (one `data: {json}` line per turn event), and cancel it. Thin:
 * each route calls one `ChatService` method; `ChatError` codes become statuses in `http-errors.ts`.
 */
import { Elysia, t } from 'elysia';
import { keepAliveMillisecondsFor } from '../../config.ts';
import type { AppDependencies } from '../app-dependencies.ts';
import { parseJsonBody } from '../json-body.ts';
import { errorBodySchema } from '../settings/tool-settings-schemas.ts';
import {
  cancelTurnResponseSchema,
  chatIdParamsSchema,
  chatListSchema,
  chatSchema,
  chatWithMessagesSchema,
  createChatBodySchema,
  startTurnBodySchema,
} from './chat-schemas.ts';
import { createTurnEventStream, SSE_HEADERS } from './turn-sse.ts';

const errors = { 400: errorBodySchema, 401: errorBodySchema };
const notFound = { ...errors, 404: errorBodySchema };

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
        response: { 201: chatSchema, ...errors, 413: errorBodySchema, 422: errorBodySchema },
        detail: {
          summary: 'Create a chat bound to a provider, a model and optionally a working directory',
          tags: ['chats'],
          operationId: 'createChat',
        },
      },
    )
    .get('/api/chats', async ({ user }) => ({ chats: await deps.chats.listChats(user.id) }), {
      response: { 200: chatListSchema, ...errors },
      detail: { summary: "List the user's chats", tags: ['chats'], operationId: 'listChats' },
    })
    .get('/api/chats/:id', ({ user, params }) => deps.chats.getChat(user.id, params.id), {
      params: chatIdParamsSchema,
      response: { 200: chatWithMessagesSchema, ...notFound },
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
        response: { 204: t.Void(), ...notFound },
        detail: { summary: 'Delete a chat and its messages', tags: ['chats'], operationId: 'deleteChat' },
      },
    )
    .post(
      '/api/chats/:id/turns',
      async ({ user, params, body, request }) => {
        const events = await deps.chats.startTurn(user.id, params.id, body.message, {
          signal: request.signal,
        });
        // Keep-alives inside the server's idle timeout: a silent model or a long tool must not get
        // the connection closed (and the turn cancelled) by Bun.serve.
        const stream = createTurnEventStream(events, {
          openingComment: true,
          heartbeatMilliseconds: keepAliveMillisecondsFor(deps.config),
        });
        return new Response(stream, {
          headers: { ...SSE_HEADERS },
        });
      },
      {
        parse,
        params: chatIdParamsSchema,
        body: startTurnBodySchema,
        response: {
          ...notFound,
          409: errorBodySchema,
          413: errorBodySchema,
          422: errorBodySchema,
          503: errorBodySchema,
        },
        detail: {
          summary: 'Send a message and stream the turn as text/event-stream',
          description:
            'On success: 200 text/event-stream, first the comment ": turn started", then one "data: {json}" line per turn event (text_delta, tool_call_started, tool_call_arguments_delta, tool_call_completed, provider_item, provider_retry {attempt, waitSeconds}, finish, tool_progress, tool_result), last done {reason: completed | max_iterations | cancelled | error, message?, finishReason?: length | refusal | content_filter}. Closing the stream cancels the turn.',
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
        response: { 200: cancelTurnResponseSchema, ...notFound },
        detail: {
          summary: "Cancel the chat's running turn (stops its tools)",
          tags: ['chats'],
          operationId: 'cancelTurn',
        },
      },
    );
}
