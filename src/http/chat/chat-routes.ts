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
  messageParamsSchema,
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

/** The statuses a route that starts a turn answers besides its stream (a rerun's as a new turn's). */
const TURN_START_ERRORS = {
  ...notFound,
  409: errorBodySchema,
  413: errorBodySchema,
  422: errorBodySchema,
  429: errorBodySchema,
  503: errorBodySchema,
};

const RERUN_DESCRIPTION =
  "A rerun is a turn like startTurn's (the same stream, approvals, cancel, lease and re-attach through GET …/turns/current/events), whose user message replaces the chat from its point on: that message and everything after it leave the chat (GET /api/chats/:id no longer lists them). Tools' effects of the replaced part (files written, commands run) are not undone; the model is told which calls ran, and forgets what that part read (write_file and edit_file ask for a read again). 409 busy while a turn runs.";

/** The options of a rerun route: a turn stream like startTurn's, and the refusal of its own. */
function rerunRoute<Params>(params: Params, operationId: string, summary: string, refusal: string) {
  return {
    params,
    response: TURN_START_ERRORS,
    detail: {
      summary,
      description: `${RERUN_DESCRIPTION} ${refusal}`,
      tags: ['chats'],
      operationId,
      responses: { 200: TURN_EVENT_STREAM_RESPONSE, 429: TOO_MANY_TURNS_RESPONSE },
    },
  };
}

export function createChatRoutes(deps: AppDependencies) {
  const parse = ({ request }: { request: Request }) =>
    parseJsonBody(request, deps.config.maxRequestBodyBytes);
  /** A started turn's follower as the SSE response every turn route answers with. */
  const turnStream = (events: Awaited<ReturnType<typeof deps.chats.startTurn>>) =>
    new Response(
      createTurnEventStream(events, {
        openingComment: true,
        heartbeatMilliseconds: keepAliveMillisecondsFor(deps.config),
      }),
      { headers: { ...SSE_HEADERS } },
    );
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
    .patch('/api/chats/:id', ({ user, params, body }) => deps.chats.updateChat(user.id, params.id, body), {
      parse,
      params: chatIdParamsSchema,
      body: updateChatBodySchema,
      response: { 200: chatSchema, ...notFound, 413: errorBodySchema, 422: errorBodySchema },
      detail: {
        summary:
          "Rename, pin or archive a chat, or change the model (among its provider's) or the system prompt of its next turns",
        description:
          "title: one line, 1–200 characters, no control characters. pinned: listed first. archived: listed with ?archived=true only (also unpins). model: used from the chat's next turn on; a running turn keeps its own. provider: a chat's provider cannot change (its history may hold items only that provider reads), so another one than the chat's is 422 invalid_request, saying to start a new chat. systemPrompt: the chat's own instructions from its next turn on (a running turn keeps its own), trimmed, at most 50,000 characters; blank or null removes them. At least one field; every field is checked before any is written.",
        tags: ['chats'],
        operationId: 'updateChat',
      },
    })
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
      async ({ user, params, body }) =>
        turnStream(
          await deps.chats.startTurn(
            user.id,
            params.id,
            body.message,
            body.attachments?.map((attachment) => attachment.path),
          ),
        ),
      {
        parse,
        params: chatIdParamsSchema,
        body: startTurnBodySchema,
        response: TURN_START_ERRORS,
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
    .post(
      '/api/chats/:id/turns/regenerate',
      async ({ user, params }) => turnStream(await deps.chats.regenerateTurn(user.id, params.id)),
      rerunRoute(
        chatIdParamsSchema,
        'regenerateTurn',
        "Answer the chat's last user message again, replacing the answer after it",
        '409 nothing_to_rerun: the chat has no user message.',
      ),
    )
    .post(
      '/api/chats/:id/turns/retry',
      async ({ user, params }) => turnStream(await deps.chats.retryTurn(user.id, params.id)),
      rerunRoute(
        chatIdParamsSchema,
        'retryTurn',
        "Run the chat's last user message again after its turn failed (error or lost)",
        "409 nothing_to_rerun: the chat's last turn did not fail (regenerate answers again anyway).",
      ),
    )
    .post(
      '/api/chats/:id/messages/:messageId/edit',
      async ({ user, params, body }) =>
        turnStream(await deps.chats.editMessage(user.id, params.id, params.messageId, body.message)),
      {
        parse,
        body: startTurnBodySchema,
        ...rerunRoute(
          messageParamsSchema,
          'editMessage',
          'Replace one of your messages and run the chat again from there',
          '404: no such message in the chat (or it was replaced already); 422: not a user message, or an empty message.',
        ),
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
        return turnStream(await deps.chats.followTurn(user.id, params.id, after));
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
