/**
 * One open chat: its stored history, a composer, and the live turn — the answer rendered as markdown
 * as it arrives (`answer-nodes.ts`, appended block by block), the tool calls of each model response as
 * one group of one-line cards (`tool-call-nodes.ts`), and a Cancel
 * button that asks the server to stop the turn. The turn runs on the server whatever the page does:
 * opening the chat while a turn runs (a reload, another tab) shows the history before it and
 * re-attaches to the turn's stream. Entries are rendered keyed, so streaming never resets open sections.
 * A call waiting for approval shows its answer panel (`chat-approvals.ts`); after a reload the turn
 * record's `pendingApprovals` shows it at once, before the replayed stream places it.
 *
 * Every open tab of a chat stays current (`turn-poller.ts`): it follows a turn another tab (or device)
 * started, and rebuilds from the history when one ended unseen. A send the server refuses (a turn
 * already runs) leaves the text in the composer. The log follows its end while the reader is there
 * (`scroll-follower.ts`); a message just sent and a call waiting for an answer are always brought into
 * view. Escape stops the running turn. The composer (`chat-composer.ts`) sends the message with its
 * attachments; every tool result is announced to the page (`files-refresh.ts`), so the files panel
 * shows what a tool changed. Between turns messages can be edited and answers regenerated or
 * retried (`transcript-rerun-controller.ts`), streamed like a new turn; the header's model picker sets
 * the next turns' model (`chat-model-picker.ts`).
 */

import { createAnswerNodes } from './answer-nodes.ts';
import {
  ApiError,
  type ChatSummary,
  type CurrentTurn,
  type ToolResultView,
  type ToolSettingsDescriptor,
} from './api-client.ts';
import { createChatApprovals } from './chat-approvals.ts';
import { createComposer } from './chat-composer.ts';
import { createChatHeader } from './chat-header.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { createChatTitleEditor } from './chat-title-editor.ts';
import { h, replaceChildren } from './dom.ts';
import { createElapsedTicker } from './elapsed-time.ts';
import { entrySignature, renderEntry } from './entry-node.ts';
import { announceToolResult } from './files-refresh.ts';
import { finishTurn } from './finish-turn.ts';
import { takeFirstMessage } from './first-message.ts';
import { createLiveAnnouncer } from './live-announcer.ts';
import type { MessageAttachment } from './message-attachments.ts';
import { createScrollFollower } from './scroll-follower.ts';
import { readTurnStream } from './sse-parser.ts';
import { createToolCallNodes } from './tool-call-nodes.ts';
import { applyTurnEvent, pendingToolCalls, type Transcript, type TranscriptEntry } from './transcript.ts';
import { transcriptItems } from './transcript-groups.ts';
import { createRerunController } from './transcript-rerun-controller.ts';
import { createTurnPoller, transcriptAt } from './turn-poller.ts';
import { totalUsage, usageText } from './usage-text.ts';

export async function renderChatView(
  main: HTMLElement,
  options: ChatPageOptions,
  chatId: string,
): Promise<void> {
  const { api } = options;
  const heading = h('h1', { tabindex: -1 }, 'Chat');
  replaceChildren(main, heading, h('p', { class: 'page-status', role: 'status' }, 'Loading chat…'));
  heading.focus();

  let transcript: Transcript;
  let chat: ChatSummary;
  let running: CurrentTurn | undefined;
  let initialTurnId: string | undefined;
  // Each tool declares how its results are shown; without the list (e.g. it failed to load) every
  // result gets the generic view, and the chat itself still opens.
  const resultViews = new Map<string, ToolResultView>();
  const resultViewOf = (toolName: string): ToolResultView => resultViews.get(toolName) ?? 'json';
  let toolList: ToolSettingsDescriptor[] = [];
  try {
    const [loaded, current, tools] = await Promise.all([
      api.getChat(chatId),
      api.currentTurn(chatId),
      api.listTools().catch(() => []),
    ]);
    toolList = tools;
    for (const tool of tools) resultViews.set(tool.name, tool.resultView);
    chat = loaded;
    running = current?.state === 'running' ? current : undefined;
    initialTurnId = current?.id;
    transcript = transcriptAt(loaded, running);
  } catch (error) {
    const message =
      error instanceof ApiError && error.status === 404
        ? 'This chat does not exist.'
        : `Could not load the chat: ${(error as Error).message}`;
    replaceChildren(main, heading, h('p', { class: 'error-text', role: 'alert' }, message));
    return;
  }
  const titleEditor = createChatTitleEditor(api, chatId, heading, chat.title);

  // Not live itself (a log is polite by default and would be read token by token): the announcer
  // speaks streamed answers sentence by sentence.
  const log = h('div', {
    class: 'transcript',
    role: 'log',
    'aria-label': 'Conversation',
    'aria-live': 'off',
  });
  const announcer = createLiveAnnouncer();
  const elapsed = createElapsedTicker(log);
  const follower = createScrollFollower(log);
  const rendered = new Map<TranscriptEntry, { node: HTMLElement; signature: string }>();
  const toolCalls = createToolCallNodes({
    loadImage: options.loadImage,
    resultViewOf,
    panelFor: (call) => approvals.panelFor(call),
  });
  const answers = createAnswerNodes({
    ...{ loadImage: options.loadImage, announcer, log },
    entries: () => transcript.entries,
    afterStep: () => follower.update(),
  });
  const emptyNote = h('p', { class: 'list-empty' }, 'No messages yet. Say something below.');
  const chatUsage = h('p', { class: 'chat-usage' });

  const renderTranscript = () => {
    const nodes: HTMLElement[] = [];
    const toReveal: HTMLElement[] = [];
    for (const item of transcriptItems(transcript.entries)) {
      if (item.kind === 'calls') {
        nodes.push(toolCalls.render(item.calls, toReveal));
        continue;
      }
      const { entry } = item;
      if (entry.kind === 'assistant' || entry.kind === 'user') {
        const complete = !transcript.running || entry !== transcript.entries.at(-1);
        nodes.push(entry.kind === 'user' ? reruns.userNode(entry) : answers.node(entry, complete));
        continue;
      }
      const signature = entrySignature(entry);
      const previous = rendered.get(entry);
      const node = previous?.signature === signature ? previous.node : renderEntry(entry);
      rendered.set(entry, { node, signature });
      nodes.push(node);
    }
    const current = new Set(transcript.entries);
    for (const key of rendered.keys()) if (!current.has(key)) rendered.delete(key);
    answers.forget(current);
    toolCalls.forget(current);
    if (nodes.length === 0) nodes.push(emptyNote);
    // Reorder/replace only where needed so open <details> and text selection survive streaming.
    nodes.forEach((node, index) => {
      if (log.children[index] !== node) log.insertBefore(node, log.children[index] ?? null);
    });
    while (log.children.length > nodes.length) log.lastElementChild!.remove();
    elapsed.sync();
    approvals.sync(transcript, runningStatus);
    reruns.syncBar();
    const usages = transcript.entries.filter((entry) => entry.kind === 'usage');
    chatUsage.textContent = usages.length > 0 ? `This chat: ${usageText(totalUsage(usages))}` : '';
    follower.update();
    for (const node of toReveal) follower.reveal(node);
  };

  let renderQueued = false;
  const scheduleRender = () => {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      renderTranscript();
    });
  };

  const composer = createComposer({
    busy: () => transcript.running,
    send: (message, attached) => void runModelLoop(message, attached),
    attachments: options.attachments,
  });
  const { textarea, turnStatus, sendButton, cancelButton } = composer;
  /** What the status line says while the turn runs and no call waits. */
  let runningStatus = WORKING_TEXT;
  /** The visible status line; what it says is spoken through the announcer, in order with the answer. */
  const showStatus = (text: string, action?: HTMLElement) => {
    replaceChildren(turnStatus, text, text !== '' ? action : undefined);
    if (text !== '') announcer.announce(text);
  };
  const approvals = createChatApprovals({
    api,
    chatId,
    log,
    showStatus,
    changed: () => scheduleRender(),
    home: textarea,
  });
  approvals.setTools(toolList);
  let turnController: AbortController | undefined;

  const setRunning = (running: boolean) => {
    transcript.running = running;
    sendButton.disabled = running;
    cancelButton.hidden = !running;
    cancelButton.disabled = false;
    runningStatus = WORKING_TEXT;
    showStatus(running ? WORKING_TEXT : '');
  };

  const runModelLoop = async (message: string, attached: MessageAttachment[] = []) => {
    const paths = attached.map((attachment) => attachment.path);
    const entry: TranscriptEntry = {
      kind: 'user',
      text: message,
      ...(paths.length > 0 ? { attachments: paths } : {}),
    };
    transcript.entries.push(entry);
    const started = await streamTurn(
      (signal) => api.startTurn(chatId, message, signal, paths),
      () => follower.jumpToLatest(),
    );
    if (started !== 'refused') return;
    // Nothing was stored: the bubble goes and the text comes back, unless something new was typed.
    transcript.entries = transcript.entries.filter((candidate) => candidate !== entry);
    renderTranscript();
    composer.restore(message, attached);
    void poller.check();
  };

  const reruns = createRerunController({
    ...{ api, chatId, log, transcript, showStatus, announcer },
    render: () => renderTranscript(),
    stream: async (open) => {
      await streamTurn(open, undefined, true);
    },
  });

  /**
   * Shows a turn's stream (a new one, a rerun, or one re-attached to) until its `done`. A refused rerun
   * reloads the chat as stored (`refusedRestores`). When a new turn is
   * refused before it starts (another tab's turn runs, too many turns), says why on the status line and
   * answers "refused"; `shown` runs once the first render is on screen.
   */
  const streamTurn = async (
    open: (signal: AbortSignal) => Promise<Response>,
    shown?: () => void,
    refusedRestores = false,
  ): Promise<'streamed' | 'refused'> => {
    setRunning(true);
    transcript.doneReason = undefined;
    renderTranscript();
    shown?.();
    turnController = new AbortController();
    let opened = false;
    try {
      const response = await open(turnController.signal);
      opened = true;
      await readTurnStream(response, (event) => {
        applyTurnEvent(transcript, event);
        if (event.type === 'tool_result')
          announceToolResult(log, String(event.name ?? ''), pendingToolCalls(transcript));
        scheduleRender();
      });
      if (transcript.doneReason === undefined)
        finishTurn(transcript, turnController.signal.aborted ? 'cancelled' : 'error');
    } catch (error) {
      if (!opened && shown && error instanceof ApiError && !turnController.signal.aborted) {
        turnController = undefined;
        setRunning(false);
        showStatus(`Not sent: ${error.message}`);
        textarea.focus();
        return 'refused';
      }
      if (turnController.signal.aborted) {
        // A `done` that arrived before the abort already said how the turn ended.
        if (transcript.doneReason === undefined) finishTurn(transcript, 'cancelled');
      } else {
        if (refusedRestores && error instanceof ApiError) await reruns.reload();
        transcript.entries.push({
          kind: 'notice',
          tone: 'error',
          text: `The turn failed: ${(error as Error).message}`,
        });
        finishTurn(transcript, 'failed');
      }
    }
    turnController = undefined;
    setRunning(false);
    renderTranscript();
    textarea.focus();
    // This view has shown that turn; later news is another tab's.
    const ended = await api.currentTurn(chatId).catch(() => undefined);
    if (ended && ended.state !== 'running') poller.know(ended.id);
    // The server names a "New chat" after its first message.
    if (chat.title === 'New chat') {
      const reloaded = await api.getChat(chatId).catch(() => undefined);
      if (reloaded) {
        chat = reloaded;
        titleEditor.setTitle(reloaded.title);
      }
    }
    poller.schedule();
    return 'streamed';
  };

  const poller = createTurnPoller({
    api,
    chatId,
    busy: () => transcript.running,
    attached: () => log.isConnected,
    news: (loaded, current) => {
      chat = loaded;
      titleEditor.setTitle(loaded.title);
      const runningNow = current.state === 'running' ? current : undefined;
      // In place: the rerun controller holds this transcript.
      Object.assign(
        transcript,
        { doneReason: undefined, turnUsage: undefined },
        transcriptAt(loaded, runningNow),
      );
      if (runningNow) void streamTurn((signal) => api.followTurn(chatId, 0, signal));
      else renderTranscript();
    },
  });
  poller.know(initialTurnId);

  cancelButton.addEventListener('click', async () => {
    cancelButton.disabled = true;
    runningStatus = 'Cancelling…';
    showStatus(runningStatus);
    try {
      await api.cancelTurn(chatId);
    } catch (error) {
      // Closing the stream would not stop the turn: say so and let the user try again.
      cancelButton.disabled = false;
      runningStatus = `Could not cancel: ${(error as Error).message}`;
      showStatus(runningStatus);
    }
  });

  replaceChildren(
    main,
    ...createChatHeader({
      api,
      chat,
      title: titleEditor.element,
      usage: chatUsage,
      announce: (text) => announcer.announce(text),
      navigate: options.navigate,
      showStatus,
    }),
    // The Regenerate / Retry bar floats over the transcript's end, so it takes none of its height; it
    // comes after the log in the page's order, so Shift+Tab from the composer reaches it first.
    h('div', { class: 'transcript-frame' }, log, follower.button, reruns.slot),
    composer.form,
    announcer.element,
  );
  renderTranscript();
  follower.jumpToLatest();
  textarea.focus();
  // Escape stops the turn, unless something inside (a title being renamed, a dialog) used it.
  main.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || event.defaultPrevented || cancelButton.hidden || cancelButton.disabled)
      return;
    event.preventDefault();
    cancelButton.click();
  });
  const firstMessage = takeFirstMessage(chatId);
  if (running) void streamTurn((signal) => api.followTurn(chatId, 0, signal));
  else if (firstMessage !== undefined) void runModelLoop(firstMessage);
  else poller.schedule();
}

const WORKING_TEXT = 'The model is working…';
