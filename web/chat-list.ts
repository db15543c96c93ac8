/**
 * The chat list in the sidebar (the drawer on a phone): a search box over every chat's title and
 * messages, the chats in order of last activity under date groups (pinned first), the archived ones a
 * click away, and on each chat its actions: pin, archive, export as Markdown or JSON. Search excerpts
 * arrive as plain-text parts and become text nodes and `<mark>` elements built here, so no message
 * text is ever read as HTML.
 */
import type { ApiClient, ChatSearchResult, ChatSummary, SnippetPart } from './api-client.ts';
import { CHAT_RENAMED_EVENT, type ChatRenamedDetail } from './chat-title-editor.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';

export interface ChatListOptions {
  api: ApiClient;
  /** The open chat, marked in the list. */
  activeId: string | undefined;
  /** Where renames of the open chat are announced (`CHAT_RENAMED_EVENT`). */
  events: EventTarget;
}

/** How long typing pauses before the search runs (each keystroke would be a request otherwise). */
const SEARCH_DELAY_MS = 250;

type Group = 'Pinned' | 'Today' | 'Yesterday' | 'This week' | 'Older';

/** Which date group a chat's last activity falls in, in the reader's time zone. */
export function activityGroup(chat: ChatSummary, now: Date = new Date()): Group {
  if (chat.pinnedAt) return 'Pinned';
  const at = new Date(chat.lastActivityAt ?? chat.createdAt ?? '');
  if (Number.isNaN(at.getTime())) return 'Older';
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const day = 24 * 60 * 60 * 1000;
  if (at.getTime() >= startOfToday) return 'Today';
  if (at.getTime() >= startOfToday - day) return 'Yesterday';
  if (at.getTime() >= startOfToday - 6 * day) return 'This week';
  return 'Older';
}

/** When a chat was last active, as short as is unambiguous: the time today, the day this year, else the date. */
function activityDate(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (date.toDateString() === now.toDateString()) {
    return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  }
  const sameYear = date.getFullYear() === now.getFullYear();
  return date.toLocaleDateString(undefined, {
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
}

/** Text nodes and `<mark>`s: the only way an excerpt reaches the page. */
export function snippetNodes(parts: readonly SnippetPart[]): Node[] {
  return parts.map((part) => (part.match ? h('mark', {}, part.text) : document.createTextNode(part.text)));
}

function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: filename, class: 'visually-hidden' });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function mountChatList(container: HTMLElement, options: ChatListOptions): void {
  const { api } = options;
  const searchId = uniqueId('chat-search');
  const search = h('input', {
    id: searchId,
    type: 'search',
    class: 'chat-search-input',
    placeholder: 'Search chats',
    autocomplete: 'off',
    maxlength: 200,
  });
  const status = h('p', { class: 'chat-list-status', role: 'status' });
  const body = h('div', { class: 'chat-list-body' });
  const archivedToggle = h('button', { type: 'button', class: 'button-quiet chat-archived-toggle' });
  replaceChildren(
    container,
    h(
      'div',
      { class: 'chat-search', role: 'search' },
      h('label', { for: searchId, class: 'visually-hidden' }, 'Search chats'),
      search,
    ),
    status,
    body,
    archivedToggle,
  );

  let showArchived = false;
  let chats: ChatSummary[] = [];
  let searchGeneration = 0;
  let searchTimer: ReturnType<typeof setTimeout> | undefined;

  const showError = (message: string) => {
    status.textContent = message;
    status.classList.add('error-text');
  };
  const clearStatus = () => {
    status.textContent = '';
    status.classList.remove('error-text');
  };

  const act = async (work: () => Promise<unknown>, failure: string) => {
    clearStatus();
    try {
      await work();
    } catch (caught) {
      showError(`${failure}: ${(caught as Error).message}`);
    }
  };

  const actions = (chat: ChatSummary) => {
    const title = chat.title || 'Untitled chat';
    const button = (label: string, name: string, onclick: () => void) =>
      h('button', { type: 'button', class: 'button-quiet', 'data-action': name, onclick }, label);
    const change = (body: { pinned?: boolean; archived?: boolean }, failure: string) =>
      void act(async () => {
        await api.updateChat(chat.id, body);
        await reload();
      }, failure);
    const exportAs = (format: 'markdown' | 'json') =>
      void act(async () => {
        const file = await api.exportChat(chat.id, format);
        saveFile(file.blob, file.filename);
      }, `Could not export ${title}`);
    return h(
      'details',
      { class: 'chat-actions' },
      h('summary', { 'aria-label': `Actions for ${title}`, title: 'Actions' }, '⋯'),
      h(
        'div',
        { class: 'chat-actions-menu' },
        !chat.archivedAt &&
          button(chat.pinnedAt ? 'Unpin' : 'Pin', chat.pinnedAt ? 'unpin' : 'pin', () =>
            change({ pinned: !chat.pinnedAt }, `Could not pin ${title}`),
          ),
        button(chat.archivedAt ? 'Unarchive' : 'Archive', chat.archivedAt ? 'unarchive' : 'archive', () =>
          change({ archived: !chat.archivedAt }, `Could not archive ${title}`),
        ),
        button('Export Markdown', 'export-markdown', () => exportAs('markdown')),
        button('Export JSON', 'export-json', () => exportAs('json')),
      ),
    );
  };

  const chatLink = (chat: ChatSummary, title: Node[], extra?: Node) =>
    h(
      'a',
      {
        href: `/chats/${encodeURIComponent(chat.id)}`,
        class: 'chat-link',
        'data-link': true,
        'aria-current': chat.id === options.activeId ? 'page' : undefined,
      },
      h('span', { class: 'chat-title' }, title),
      extra,
      h(
        'span',
        { class: 'chat-meta' },
        chat.lastActivityAt
          ? h('time', { datetime: chat.lastActivityAt }, activityDate(chat.lastActivityAt))
          : undefined,
        `${chat.lastActivityAt ? ' · ' : ''}${chat.model}`,
      ),
    );

  const renderChats = () => {
    archivedToggle.textContent = showArchived ? '← Back to chats' : 'Archived chats';
    if (chats.length === 0) {
      replaceChildren(
        body,
        h('p', { class: 'list-empty' }, showArchived ? 'No archived chats.' : 'No chats yet.'),
      );
      return;
    }
    const groups = new Map<Group, ChatSummary[]>();
    for (const chat of chats) {
      const group = showArchived ? 'Older' : activityGroup(chat);
      groups.set(group, [...(groups.get(group) ?? []), chat]);
    }
    replaceChildren(
      body,
      [...groups].map(([group, members]) => {
        const headingId = uniqueId('chat-group');
        return h(
          'section',
          { class: 'chat-group', 'aria-labelledby': headingId },
          h('h3', { id: headingId, class: 'chat-group-heading' }, showArchived ? 'Archived' : group),
          h(
            'ul',
            { class: 'chat-list' },
            members.map((chat) =>
              h(
                'li',
                { class: 'chat-entry', 'data-chat-id': chat.id },
                chatLink(chat, [document.createTextNode(chat.title || 'Untitled chat')]),
                actions(chat),
              ),
            ),
          ),
        );
      }),
    );
  };

  const reload = async () => {
    try {
      chats = await api.listChats(showArchived);
    } catch (caught) {
      replaceChildren(
        body,
        h('p', { class: 'error-text' }, `Could not load chats: ${(caught as Error).message}`),
      );
      return;
    }
    if (search.value.trim() === '') renderChats();
    else await runSearch();
  };

  const resultEntry = (result: ChatSearchResult) =>
    h(
      'li',
      { class: 'chat-entry chat-search-result', 'data-chat-id': result.chat.id },
      chatLink(
        result.chat,
        snippetNodes(result.title),
        result.message
          ? h(
              'span',
              { class: 'chat-snippet' },
              h(
                'span',
                { class: 'chat-snippet-role' },
                result.message.role === 'user' ? 'You: ' : 'Answer: ',
              ),
              snippetNodes(result.message.snippet),
            )
          : undefined,
      ),
    );

  const runSearch = async (offset = 0) => {
    const query = search.value.trim();
    const generation = ++searchGeneration;
    clearStatus();
    let page: Awaited<ReturnType<ApiClient['searchChats']>>;
    try {
      page = await api.searchChats(query, offset);
    } catch (caught) {
      if (generation === searchGeneration) showError(`Could not search: ${(caught as Error).message}`);
      return;
    }
    // A later keystroke's search owns the list now.
    if (generation !== searchGeneration) return;
    const list = offset > 0 ? body.querySelector<HTMLUListElement>('ul.chat-search-results') : undefined;
    const target =
      list ?? h('ul', { class: 'chat-list chat-search-results', 'aria-label': 'Search results' });
    target.append(...page.results.map(resultEntry));
    body.querySelector('.chat-search-more')?.remove();
    if (!list) {
      replaceChildren(
        body,
        page.results.length === 0 ? h('p', { class: 'list-empty' }, `No chat matches “${query}”.`) : target,
      );
    }
    if (page.nextOffset !== null) {
      const next = page.nextOffset;
      body.append(
        h(
          'button',
          { type: 'button', class: 'button-secondary chat-search-more', onclick: () => void runSearch(next) },
          'More results',
        ),
      );
    }
    archivedToggle.hidden = true;
  };

  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    if (search.value.trim() === '') {
      searchGeneration += 1;
      archivedToggle.hidden = false;
      clearStatus();
      renderChats();
      return;
    }
    searchTimer = setTimeout(() => void runSearch(), SEARCH_DELAY_MS);
  });
  search.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      clearTimeout(searchTimer);
      if (search.value.trim() !== '') void runSearch();
    } else if (event.key === 'Escape' && search.value !== '') {
      // Escape clears the search first; a second one closes the drawer.
      event.stopPropagation();
      search.value = '';
      search.dispatchEvent(new Event('input'));
    }
  });
  archivedToggle.addEventListener('click', () => {
    showArchived = !showArchived;
    void reload();
  });
  options.events.addEventListener(CHAT_RENAMED_EVENT, (event) => {
    const { id, title } = (event as CustomEvent<ChatRenamedDetail>).detail;
    const chat = chats.find((candidate) => candidate.id === id);
    if (!chat) return;
    chat.title = title;
    if (search.value.trim() === '') renderChats();
  });
  void reload();
}
