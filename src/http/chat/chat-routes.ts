/**
 * The chat API (docs/http-api.md, "Chats"): create, list, show and delete a user's chats,
 * run a turn as a `text/event-stream` (one `data: {json}` line per turn event), and cancel it. Thin:
 * each route calls one `ChatService` method; `ChatError` codes become statuses in `http-errors.ts`.
 */
import { Elysia, t } from 'elysia';
import { parseChatSearch } from '../../chat/chat-search.ts';
import { keepAliveMillisecondsFor } from '../../config.ts';
import { TURN_LIMIT_RETRY_AFTER_SECONDS } from '../../turns/turn-coordinator.ts';
import type { AppDependencies } from '../app-dependencies.ts';
import { parseJsonBody } from '../json-body.ts';
import { errorBodySchema } from '../settings/tool-settings-schemas.ts';
import { exportChatResponse, parseArchivedFilter } from './chat-export-response.ts';
import {
  approvalAnswerBodySchema,
  approvalAnswerResponseSchema,
  approvalParamsSchema,
  cancelTurnResponseSchema,
  chatIdParamsSchema,
  chatListSchema,
  chatSchema,
  chatSearchResultsSchema,
  chatWithMessagesSchema,
  createChatBodySchema,
  exportChatQuerySchema,
  followTurnQuerySchema,
  listChatsQuerySchema,
  searchChatsQuerySchema,
  startTurnBodySchema,
  turnRecordSchema,
  updateChatBodySchema,
} from './chat-schemas.ts';
import { parseAfterSeq } from './follow-turn-query.ts';
import { createTurnEventStream, SSE_HEADERS } from './turn-sse.ts';

const errors = { 400: errorBodySchema, 401: errorBodySchema };
const notFound = { ...errors, 404: errorBodySchema };
/** A turn's events as the OpenAPI document states them: a server-sent event stream (see turn-sse.ts). */
const TURN_EVENT_STREAM_RESPONSE = {
  description: 'The turn as a server-sent event stream, one "data: {json}" event per turn event.',
  content: { 'text/event-stream': { schema: { type: 'string' as const } } },
};

/** The refusal past the user's turn limit: the JSON error body (declared above), and when to retry. */
const TOO_MANY_TURNS_RESPONSE = {
  description:
    'too_many_turns: the user already runs MANGO_USER_MAX_TURNS turns at once (any chat, any instance); nothing was stored and the chat is not busy',
  headers: {
    'Retry-After': {
      description: `Seconds to wait before sending the message again (always ${TURN_LIMIT_RETRY_AFTER_SECONDS})`,
      schema: { type: 'integer' as const, minimum: 1 },
    },
  },
};

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
    .get(
      '/api/chats',
      async ({ user, query }) => ({
        chats: await deps.chats.listChats(user.id, parseArchivedFilter(query.archived)),
      }),
      {
        query: listChatsQuerySchema,
        response: { 200: chatListSchema, ...errors, 422: errorBodySchema },
        detail: {
          summary: "List the user's chats: the others, or with ?archived=true the archived ones",
          tags: ['chats'],
          operationId: 'listChats',
        },
      },
    )
    .get(
      '/api/chats/search',
      ({ user, query }) => deps.chats.organizer.search(user.id, parseChatSearch(query)),
      {
        query: searchChatsQuerySchema,
        response: { 200: chatSearchResultsSchema, ...errors, 422: errorBodySchema },
        detail: {
          summary: "Search the user's chats: titles and user and assistant messages (archived too)",
          description:
            "Full-text search (SQLite FTS5, PostgreSQL tsvector) over the caller's own chats only. Each word of q must begin a word of one entry (the title, or one message), case-insensitively; tool calls and results are not searched. One result per chat with its newest matching message and an excerpt, the matched words marked in plain-text parts. 422 names a bad q, limit or offset.",
          tags: ['chats'],
          operationId: 'searchChats',
        },
      },
    )
    .get('/api/chats/:id', ({ user, params }) => deps.chats.getChat(user.id, params.id), {
      params: chatIdParamsSchema,
      response: { 200: chatWithMessagesSchema, ...notFound },
      detail: { summary: 'A chat with its stored messages', tags: ['chats'], operationId: 'getChat' },
    })
    .patch(
      '/api/chats/:id',
      ({ user, params, body }) => deps.chats.organizer.update(user.id, params.id, body),
      {
        parse,
        params: chatIdParamsSchema,
        body: updateChatBodySchema,
        response: { 200: chatSchema, ...notFound, 413: errorBodySchema, 422: errorBodySchema },
        detail: {
          summary: 'Rename, pin or archive a chat (title: one line, 1–200 characters, no control characters)',
          tags: ['chats'],
          operationId: 'updateChat',
        },
      },
    )
    .get(
      '/api/chats/:id/export',
      async ({ user, params, query }) =>
        exportChatResponse(await deps.chats.organizer.export(user.id, params.id), query.format),
      {
        params: chatIdParamsSchema,
        query: exportChatQuerySchema,
        response: { ...notFound, 422: errorBodySchema },
        detail: {
          summary: 'Download a chat as Markdown or JSON (messages, tool calls and results, usage)',
          description:
            'An attachment named after the title. json: {format: "mango-chat", version: 1, exportedAt, chat, messages (every stored item, provider items included), turns (state, usage, durations, error), usage (the totals)}. markdown: the same for reading, without provider items.',
          tags: ['chats'],
          operationId: 'exportChat',
          responses: {
            200: {
              description: 'The chat as a download',
              headers: {
                'Content-Disposition': {
                  description: 'attachment; filename="<title>.md" or ".json"',
                  schema: { type: 'string' as const },
                },
              },
              content: {
                'text/markdown': { schema: { type: 'string' as const } },
                'application/json': { schema: { type: 'object' as const } },
              },
            },
          },
        },
      },
    )
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
      async ({ user, params, body }) => {
        const events = await deps.chats.startTurn(user.id, params.id, body.message);
        return new Response(
          createTurnEventStream(events, {
            openingComment: true,
            heartbeatMilliseconds: keepAliveMillisecondsFor(deps.config),
          }),
          { headers: { ...SSE_HEADERS } },
        );
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
          429: errorBodySchema,
          503: errorBodySchema,
        },
        detail: {
          summary: 'Send a message and stream the turn as text/event-stream',
          description:
            'On success: 200 text/event-stream, first the comment ": turn started", then one "data: {json}" line per turn event (text_delta, tool_call_started, tool_call_arguments_delta, tool_call_completed, provider_item, provider_retry {attempt, waitSeconds}, finish, tool_approval_requested {callId, name, arguments, reason, expiresAt}, tool_approval_resolved {callId, name, decision: approved | denied, by: user | timeout | cancel | interrupted, reason?, remembered?: {setting, rule}}, tool_progress, tool_result), last done {reason: completed | max_iterations | cancelled | error, message?, finishReason?: length | refusal | content_filter}. Each event has an SSE id (its sequence number). The turn runs until it ends or is cancelled (POST …/cancel): closing the stream does not stop it, and GET …/turns/current/events?after=ID resumes it on any instance. 429 too_many_turns, with Retry-After: the user already runs MANGO_USER_MAX_TURNS turns at once; nothing was stored.',
          tags: ['chats'],
          operationId: 'startTurn',
          responses: { 200: TURN_EVENT_STREAM_RESPONSE, 429: TOO_MANY_TURNS_RESPONSE },
        },
      },
    )
    .get('/api/chats/:id/turns/current', ({ user, params }) => deps.chats.currentTurn(user.id, params.id), {
      params: chatIdParamsSchema,
      response: { 200: turnRecordSchema, ...notFound },
      detail: {
        summary: "The chat's current turn record: running or how it ended, usage and durations",
        tags: ['chats'],
        operationId: 'getCurrentTurn',
      },
    })
    .get(
      '/api/chats/:id/turns/current/events',
      async ({ user, params, query, headers }) => {
        const after = parseAfterSeq(query.after ?? headers['last-event-id']);
        const events = await deps.chats.followTurn(user.id, params.id, after);
        return new Response(
          createTurnEventStream(events, {
            openingComment: true,
            heartbeatMilliseconds: keepAliveMillisecondsFor(deps.config),
          }),
          { headers: { ...SSE_HEADERS } },
        );
      },
      {
        params: chatIdParamsSchema,
        query: followTurnQuerySchema,
        response: { ...notFound, 422: errorBodySchema },
        detail: {
          summary: "Follow the chat's current turn: replay its events after a sequence number, then live",
          description:
            'text/event-stream as for startTurn, from the event after `after` (default 0: every event; the Last-Event-ID header works too) of the newest turn, running or ended, on whichever instance runs it; it ends with done. 404 when the chat never ran a turn.',
          tags: ['chats'],
          operationId: 'followTurn',
          responses: { 200: TURN_EVENT_STREAM_RESPONSE },
        },
      },
    )
    .post(
      '/api/chats/:id/approvals/:callId',
      ({ user, params, body }) => deps.chats.answerApproval(user.id, params.id, params.callId, body),
      {
        parse,
        params: approvalParamsSchema,
        body: approvalAnswerBodySchema,
        response: {
          200: approvalAnswerResponseSchema,
          ...notFound,
          409: errorBodySchema,
          413: errorBodySchema,
          422: errorBodySchema,
        },
        detail: {
          summary: 'Approve or deny a tool call that waits for the user',
          description:
            "Answers a call of the chat's running turn listed in its tool_approval_requested event or the turn record's pendingApprovals, on any instance. approve runs it; deny gives the model a denied result carrying the reason. remember / rememberPrefix (approve, bash and zsh only) also add an auto-approve rule to the user's settings of that tool. 404: no such call asked in the chat's newest turn (or not your chat); 409 approval_closed: already answered, timed out, or its turn ended or lost its lease; 422: a remember that cannot apply.",
          tags: ['chats'],
          operationId: 'answerApproval',
        },
      },
    )
    .post('/api/chats/:id/cancel', ({ user, params }) => deps.chats.cancelTurn(user.id, params.id), {
      params: chatIdParamsSchema,
      response: { 200: cancelTurnResponseSchema, ...notFound },
      detail: {
        summary: "Cancel the chat's running turn (stops its tools)",
        tags: ['chats'],
        operationId: 'cancelTurn',
      },
    });
}
