/**
 * TypeBox schemas of the chat API: create a chat, send a turn. Limits mirror the service's
 * own checks so an oversized field is a 400 before the service runs.
 */

import { t } from 'elysia';
import { MAX_APPROVAL_REASON_LENGTH } from '../../approvals/answer-tool-approval.ts';
import {
  MAX_MESSAGE_LENGTH,
  MAX_MODEL_LENGTH,
  MAX_SYSTEM_PROMPT_LENGTH,
  MAX_TITLE_LENGTH,
} from '../../chat/chat-service.ts';
import { MAX_ATTACHMENTS } from '../../chat/message-attachments.ts';
import { PROVIDER_IDS } from '../../contracts/provider-id.ts';
import { describeProviderIds } from '../../providers/provider-adapters.ts';

export const chatIdParamsSchema = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) });

export const createChatBodySchema = t.Object(
  {
    title: t.Optional(t.String({ maxLength: MAX_TITLE_LENGTH })),
    provider: t.String({
      minLength: 1,
      maxLength: 100,
      description: describeProviderIds(PROVIDER_IDS),
    }),
    model: t.String({ minLength: 1, maxLength: MAX_MODEL_LENGTH }),
    workingDirectory: t.Optional(
      t.String({
        maxLength: 4096,
        description:
          'Absolute path, ~ or ~/… inside one of your workspaces (GET /api/workspaces); omitted = your personal workspace.',
      }),
    ),
    unrestricted: t.Optional(
      t.Boolean({
        description:
          'True: tools reach all of your workspaces, not only the working directory. Only for users an operator allowed it.',
      }),
    ),
    systemPrompt: t.Optional(t.String({ maxLength: MAX_SYSTEM_PROMPT_LENGTH })),
  },
  { additionalProperties: false },
);

// No length limit here: the service says what was wrong with a title (422), not a generic 400.
export const updateChatBodySchema = t.Object(
  {
    title: t.Optional(
      t.String({ description: 'One line, 1–200 characters after trimming, no control characters.' }),
    ),
    pinned: t.Optional(t.Boolean({ description: 'True pins the chat (listed first); false unpins it.' })),
    archived: t.Optional(
      t.Boolean({
        description:
          'True archives the chat (listed with ?archived=true only; also unpins it); false brings it back.',
      }),
    ),
    model: t.Optional(
      t.String({
        description: `The model of the chat's next turns (1–${MAX_MODEL_LENGTH} characters), one of its provider's; a running turn keeps its own.`,
      }),
    ),
    provider: t.Optional(
      t.String({
        description:
          "The chat's provider, which cannot change: another one than the chat's is refused (422), saying to start a new chat.",
      }),
    ),
    systemPrompt: t.Optional(
      t.Union([t.String(), t.Null()], {
        description: `The chat's own instructions for its next turns, after the server's (at most ${MAX_SYSTEM_PROMPT_LENGTH} characters after trimming); blank or null removes them. A running turn keeps the prompt it started with.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'At least one of title, pinned, archived, model, provider and systemPrompt.',
  },
);

// Strings, checked by the service: a bad value is a 422 that names it, not a generic 400.
export const listChatsQuerySchema = t.Object({
  archived: t.Optional(
    t.String({ maxLength: 5, description: 'true: only archived chats; false (default): the others.' }),
  ),
});

export const searchChatsQuerySchema = t.Object({
  q: t.Optional(
    t.String({
      maxLength: 1000,
      description:
        'The words to find (1–200 characters, at most 12 words); each must begin a word of the title or of one message, case-insensitively.',
    }),
  ),
  limit: t.Optional(t.String({ maxLength: 20, description: 'Results per page, 1–50 (default 20).' })),
  offset: t.Optional(
    t.String({
      maxLength: 20,
      description: 'Results to skip, 0–10000 (default 0): the nextOffset of a page.',
    }),
  ),
});

export const exportChatQuerySchema = t.Object({
  format: t.Optional(t.String({ maxLength: 20, description: 'markdown (default) or json.' })),
});

export const messageParamsSchema = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  messageId: t.String({ minLength: 1, maxLength: 200 }),
});

export const startTurnBodySchema = t.Object(
  {
    message: t.String({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH }),
    attachments: t.Optional(
      t.Array(
        t.Object(
          {
            path: t.String({
              minLength: 1,
              maxLength: 4096,
              description:
                "A file the chat's tools can read: absolute, ~/…, or relative to the chat's working directory.",
            }),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: MAX_ATTACHMENTS,
          description:
            "Files attached to the message: the model is told each one's real path after the message; the stored user_text item lists them in attachments. 422 invalid_attachment names one that is outside the chat's reach, missing, a directory or a special file.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

// Response schemas: documented in the OpenAPI document and checked by Elysia on the way out. Open objects
// (additional properties allowed), so adding a field to a chat never breaks a response.

export const chatSchema = t.Object(
  {
    id: t.String(),
    userId: t.String(),
    title: t.String(),
    workingDirectory: t.String({
      description:
        "Real absolute path of the chat's working directory, inside one of the owner's workspaces.",
    }),
    confined: t.Boolean({
      description:
        'True: tools reach only workingDirectory. False: all of the owner’s workspaces (an unrestricted chat of a user allowed it).',
    }),
    provider: t.String(),
    model: t.String(),
    systemPrompt: t.Union([t.String(), t.Null()]),
    createdAt: t.String({ description: 'ISO 8601.' }),
    lastActivityAt: t.String({ description: 'ISO 8601: its creation or its newest message.' }),
    pinnedAt: t.Union([t.String(), t.Null()], { description: 'ISO 8601 when pinned; null when not.' }),
    archivedAt: t.Union([t.String(), t.Null()], {
      description: 'ISO 8601 when archived; null when not. A new message of the user unarchives.',
    }),
  },
  { $id: 'Chat' },
);

export const chatListSchema = t.Object({
  chats: t.Array(chatSchema, { description: 'Pinned first, then by last activity, newest first.' }),
});

const snippetPartsSchema = t.Array(
  t.Object({
    text: t.String(),
    match: t.Boolean({ description: 'True for a word that matched; plain text, never markup.' }),
  }),
);

export const chatSearchResultsSchema = t.Object({
  results: t.Array(
    t.Object({
      chat: chatSchema,
      matches: t.Integer({ minimum: 1, description: 'How many entries (title, messages) matched.' }),
      title: snippetPartsSchema,
      message: t.Union([
        t.Object({
          id: t.String(),
          seq: t.Integer({ minimum: 1 }),
          role: t.Union([t.Literal('user'), t.Literal('assistant')]),
          snippet: snippetPartsSchema,
        }),
        t.Null(),
      ]),
    }),
    { description: 'Pinned first, then by last activity, newest first.' },
  ),
  nextOffset: t.Union([t.Integer({ minimum: 1 }), t.Null()], {
    description: 'The offset of the next page; null on the last.',
  }),
});

export const chatMessageSchema = t.Object({
  id: t.String(),
  chatId: t.String(),
  seq: t.Integer({ minimum: 1, description: '1, 2, 3… in history order.' }),
  role: t.Union([t.Literal('user'), t.Literal('assistant'), t.Literal('tool')]),
  item: t.Unknown({
    description: 'The conversation item (user_text, assistant_text, tool_call, tool_result…).',
  }),
  createdAt: t.String(),
});

export const turnSummarySchema = t.Object({
  id: t.String(),
  chatId: t.String(),
  fencingToken: t.Integer({ minimum: 1 }),
  state: t.String({ description: 'running, completed, max_iterations, cancelled, error or lost.' }),
  startedAt: t.String(),
  endedAt: t.Union([t.String(), t.Null()]),
  messageSeqAtStart: t.Integer({
    minimum: 0,
    description:
      "The chat's last message seq when the turn began: later messages (up to the next turn's) are this turn's.",
  }),
  usage: t.Unknown({ description: 'modelCalls, inputTokens, outputTokens once the turn ended; else null.' }),
  durations: t.Unknown({ description: 'totalMs, toolMs once the turn ended; else null.' }),
  progress: t.Unknown({
    description:
      'The turn trace once it ended (null for turns from before traces): {version: 1, dropped, events: [{at, event}]}, where event is a tool_progress, tool_result (callId, name, ok, durationMs), provider_retry, finish or done event and at counts the turn messages saved before it.',
  }),
  error: t.Union([t.Object({ message: t.String() }), t.Null()]),
});

export const chatWithMessagesSchema = t.Object({
  chat: chatSchema,
  messages: t.Array(chatMessageSchema),
  turns: t.Array(turnSummarySchema, { description: 'Oldest first.' }),
});

export const cancelTurnResponseSchema = t.Object({
  cancelled: t.Boolean({
    description: 'Whether a running turn was stopped (it then ends with done{cancelled}).',
  }),
  reason: t.Optional(
    t.String({ description: 'Why nothing was cancelled: no turn runs, or its instance is gone.' }),
  ),
});

export const followTurnQuerySchema = t.Object({
  after: t.Optional(
    t.String({ maxLength: 20, description: 'Sequence number (SSE id) of the last event already seen.' }),
  ),
});

export const providerListSchema = t.Object({
  providers: t.Array(
    t.Object({
      id: t.String(),
      available: t.Boolean(),
      reason: t.Optional(t.String({ description: 'Why it is unavailable (the missing variable).' })),
    }),
  ),
});

export const pendingApprovalSchema = t.Object(
  {
    callId: t.String(),
    name: t.String({ description: 'The tool.' }),
    arguments: t.Record(t.String(), t.Unknown(), { description: 'The call arguments, validated.' }),
    reason: t.String({ description: 'Which setting asked, in words.' }),
    requestedAt: t.String({ description: 'ISO 8601.' }),
    expiresAt: t.String({ description: 'ISO 8601: unanswered by then, the call is denied.' }),
  },
  { $id: 'PendingApproval' },
);

export const turnRecordSchema = t.Object(
  {
    id: t.String(),
    chatId: t.String(),
    fencingToken: t.Integer({ minimum: 1, description: 'Grows by one per turn of the chat.' }),
    state: t.Union(
      [
        t.Literal('running'),
        t.Literal('completed'),
        t.Literal('max_iterations'),
        t.Literal('cancelled'),
        t.Literal('error'),
        t.Literal('lost'),
      ],
      { description: 'lost: the instance running it stopped before it ended.' },
    ),
    cancelRequestedAt: t.Union([t.String(), t.Null()]),
    leaseExpiresAt: t.Union([t.String(), t.Null()]),
    startedAt: t.String(),
    endedAt: t.Union([t.String(), t.Null()]),
    messageSeqAtStart: t.Integer({
      minimum: 0,
      description: "The chat's last message seq when the turn began: later messages are this turn's.",
    }),
    usage: t.Unknown({ description: 'modelCalls, inputTokens, outputTokens once the turn ended.' }),
    durations: t.Unknown({ description: 'totalMs, toolMs once the turn ended.' }),
    progress: t.Unknown(),
    error: t.Union([t.Object({ message: t.String() }), t.Null()]),
    pendingApprovals: t.Array(pendingApprovalSchema, {
      description:
        'The calls of a running turn that wait for the user (answer with POST /api/chats/{id}/approvals/{callId}); empty once the turn ended.',
    }),
  },
  { $id: 'TurnRecord' },
);

export const approvalParamsSchema = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  callId: t.String({ minLength: 1, maxLength: 500 }),
});

export const approvalAnswerBodySchema = t.Object(
  {
    decision: t.Union([t.Literal('approve'), t.Literal('deny')]),
    reason: t.Optional(
      t.String({
        description: `Why (at most ${MAX_APPROVAL_REASON_LENGTH} characters); on a deny the model reads it in the call's result.`,
      }),
    ),
    remember: t.Optional(
      t.Boolean({
        description:
          'Approve, bash/zsh only: add this exact command (trimmed) to the tool setting autoApprovedExactCommands.',
      }),
    ),
    rememberPrefix: t.Optional(
      t.String({
        maxLength: 10_000,
        description:
          'Approve, bash/zsh only: add this word prefix of the command (literal words) to the tool setting autoApprovedCommands.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const approvalAnswerResponseSchema = t.Object({
  callId: t.String(),
  decision: t.Union([t.Literal('approve'), t.Literal('deny')]),
  reason: t.Optional(t.String()),
  remembered: t.Optional(
    t.Object({
      setting: t.Union([t.Literal('autoApprovedCommands'), t.Literal('autoApprovedExactCommands')]),
      rule: t.String(),
    }),
  ),
});
