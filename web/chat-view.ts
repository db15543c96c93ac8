/**
 * One open chat: its stored history, a composer, and the live turn — the answer rendered as markdown
 * as it arrives (`markdown-view.ts`, appended block by block), a card per tool call, and a Cancel
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
 * view. Escape stops the running turn. Between turns messages can be edited and answers regenerated or
 * retried (`transcript-rerun-controller.ts`), streamed like a new turn; the header's model picker sets
 * the next turns' model (`chat-model-picker.ts`).
 */
import {
  ApiError,
  type ChatSummary,
  type CurrentTurn,
  type ToolResultView,
  type ToolSettingsDescriptor,
} from './api-client.ts';
import { autoGrow } from './auto-grow.ts';
import { createChatApprovals } from './chat-approvals.ts';
import { createChatHeader } from './chat-header.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { createChatTitleEditor } from './chat-title-editor.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
import { createElapsedTicker } from './elapsed-time.ts';
import { entrySignature, keepDisclosureState, renderEntry } from './entry-node.ts';
import { finishTurn } from './finish-turn.ts';
import { takeFirstMessage } from './first-message.ts';
import { createLiveAnnouncer } from './live-announcer.ts';
import { createMarkdownView, type MarkdownView } from './markdown-view.ts';
import { createScrollFollower } from './scroll-follower.ts';
import { readTurnStream } from './sse-parser.ts';
import { applyTurnEvent, type Transcript, type TranscriptEntry } from './transcript.ts';
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
  /** Approval panels already brought into view once; the reader may scroll away from them after. */
  const revealed = new WeakSet<HTMLElement>();
  const rendered = new Map<TranscriptEntry, { node: HTMLElement; signature: string }>();
  /** One incremental markdown view per answer: streaming appends to it instead of replacing it. */
  const answers = new Map<TranscriptEntry, { node: HTMLElement; view: MarkdownView }>();
  const answerNode = (entry: TranscriptEntry & { kind: 'assistant' }, complete: boolean): HTMLElement => {
    let answer = answers.get(entry);
    if (!answer) {
      const view = createMarkdownView(options.loadImage, follower.update);
      const node = h(
        'div',
        { class: 'message message-assistant' },
        h('span', { class: 'visually-hidden' }, 'Model: '),
        view.element,
      );
      answer = { node, view };
      answers.set(entry, answer);
    }
    if (complete) {
      answer.view.finish(entry.text);
      announcer.finish(entry, entry.text);
    } else {
      answer.view.update(entry.text);
      announcer.update(entry, entry.text);
    }
    return answer.node;
  };
  const emptyNote = h('p', { class: 'list-empty' }, 'No messages yet. Say something below.');
  const chatUsage = h('p', { class: 'chat-usage' });

  const renderTranscript = () => {
    const nodes: HTMLElement[] = [];
    const toReveal: HTMLElement[] = [];
    for (const [index, entry] of transcript.entries.entries()) {
      if (entry.kind === 'assistant' || entry.kind === 'user') {
        const complete = !transcript.running || index < transcript.entries.length - 1;
        nodes.push(entry.kind === 'user' ? reruns.userNode(entry) : answerNode(entry, complete));
        continue;
      }
      const signature = entrySignature(entry);
      const previous = rendered.get(entry);
      if (previous && previous.signature === signature) {
        nodes.push(previous.node);
        continue;
      }
      const node = renderEntry(entry, options.loadImage, resultViewOf, approvals.panelFor);
      const panel = entry.kind === 'tool' ? approvals.panelFor(entry) : undefined;
      if (panel && !revealed.has(panel)) {
        revealed.add(panel);
        toReveal.push(node);
      }
      if (previous) keepDisclosureState(previous.node, node);
      rendered.set(entry, { node, signature });
      nodes.push(node);
    }
    const current = new Set(transcript.entries);
    for (const key of rendered.keys()) if (!current.has(key)) rendered.delete(key);
    for (const key of answers.keys()) if (!current.has(key)) answers.delete(key);
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

  const textarea = h('textarea', {
    id: uniqueId('message'),
    name: 'message',
    rows: 2,
    required: true,
    placeholder: 'Ask something… (Enter sends, Shift+Enter for a new line)',
  });
  const composerSize = autoGrow(textarea);
  const turnStatus = h('p', { class: 'turn-status' });
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
  const sendButton = h('button', { type: 'submit', class: 'button-primary' }, 'Send');
  const cancelButton = h('button', { type: 'button', class: 'button-danger', hidden: true }, 'Cancel');
  let turnController: AbortController | undefined;

  const setRunning = (running: boolean) => {
    transcript.running = running;
    sendButton.disabled = running;
    cancelButton.hidden = !running;
    cancelButton.disabled = false;
    runningStatus = WORKING_TEXT;
    showStatus(running ? WORKING_TEXT : '');
  };

  const runModelLoop = async (message: string) => {
    const entry: TranscriptEntry = { kind: 'user', text: message };
    transcript.entries.push(entry);
    const started = await streamTurn(
      (signal) => api.startTurn(chatId, message, signal),
      () => follower.jumpToLatest(),
    );
    if (started !== 'refused') return;
    // Nothing was stored: the bubble goes and the text comes back, unless something new was typed.
    transcript.entries = transcript.entries.filter((candidate) => candidate !== entry);
    renderTranscript();
    if (textarea.value.trim() === '') textarea.value = message;
    composerSize.resize();
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

  const form = h(
    'form',
    {
      class: 'composer',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const message = textarea.value.trim();
        if (message === '' || transcript.running) return;
        textarea.value = '';
        composerSize.resize();
        void runModelLoop(message);
      },
    },
    h('label', { for: textarea.id, class: 'visually-hidden' }, 'Message'),
    textarea,
    h('div', { class: 'composer-actions' }, turnStatus, cancelButton, sendButton),
  );
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
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
    form,
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
