/**
 * The Chat page: the user's chats beside either the new-chat form or the open chat, a turn
 * read as an SSE stream. The two panels live in `new-chat-form.ts` and `chat-view.ts`; on a phone the
 * chat list is a drawer (`chat-drawer.ts`) and the Files panel a bottom sheet (`files-sheet.ts`), so the
 * chat is one column with its composer on screen.
 */
import type { ChatSummary } from './api-client.ts';
import { createChatDrawer } from './chat-drawer.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { CHAT_RENAMED_EVENT, type ChatRenamedDetail } from './chat-title-editor.ts';
import { renderChatView } from './chat-view.ts';
import { h, replaceChildren } from './dom.ts';
import { mountFilesPanel } from './files-panel.ts';
import { createFilesSheet } from './files-sheet.ts';
import { renderNewChatForm } from './new-chat-form.ts';

export async function renderChatPage(container: HTMLElement, options: ChatPageOptions): Promise<void> {
  const chatList = h('ul', { class: 'chat-list' });
  const main = h('section', { class: 'chat-main' });
  const sidebar = h(
    'nav',
    { class: 'chat-sidebar', 'aria-label': 'Chats' },
    h(
      'div',
      { class: 'sidebar-header' },
      h('h2', {}, 'Chats'),
      h('a', { href: '/chats', class: 'button-primary', 'data-link': true }, 'New chat'),
    ),
    chatList,
  );
  const files = options.chatId ? h('aside', { class: 'files-panel' }) : undefined;
  const layout = h('div', { class: files ? 'chat-layout has-files' : 'chat-layout' });
  const drawer = createChatDrawer(layout, sidebar);
  sidebar.querySelector('.sidebar-header')!.append(drawer.close);
  const sheet = files ? createFilesSheet(layout, files) : undefined;
  replaceChildren(
    layout,
    h('div', { class: 'drawer-bar' }, drawer.toggle, sheet?.open),
    sidebar,
    drawer.backdrop,
    main,
    sheet?.backdrop,
    files,
  );
  replaceChildren(container, layout);
  if (files && sheet && options.chatId) {
    void mountFilesPanel(files, options.api, options.chatId);
    // After the panel drew its content (it does so before its first request).
    files.prepend(sheet.close);
  }

  const chatsPromise = options.api.listChats().catch((error: Error) => {
    replaceChildren(chatList, h('li', { class: 'error-text' }, `Could not load chats: ${error.message}`));
    return [] as ChatSummary[];
  });
  void chatsPromise.then((chats) => {
    renderChatList(chatList, chats, options.chatId);
    layout.addEventListener(CHAT_RENAMED_EVENT, (event) => {
      const { id, title } = (event as CustomEvent<ChatRenamedDetail>).detail;
      const chat = chats.find((candidate) => candidate.id === id);
      if (!chat) return;
      chat.title = title;
      renderChatList(chatList, chats, options.chatId);
    });
  });

  if (options.chatId) await renderChatView(main, options, options.chatId);
  else await renderNewChatForm(main, options);
}

function renderChatList(list: HTMLElement, chats: ChatSummary[], activeId: string | undefined): void {
  if (chats.length === 0) {
    replaceChildren(list, h('li', { class: 'list-empty' }, 'No chats yet.'));
    return;
  }
  replaceChildren(
    list,
    chats.map((chat) =>
      h(
        'li',
        {},
        h(
          'a',
          {
            href: `/chats/${encodeURIComponent(chat.id)}`,
            class: 'chat-link',
            'data-link': true,
            'aria-current': chat.id === activeId ? 'page' : undefined,
          },
          h('span', { class: 'chat-title' }, chat.title || 'Untitled chat'),
          h(
            'span',
            { class: 'chat-meta' },
            chat.createdAt ? h('time', { datetime: chat.createdAt }, chatDate(chat.createdAt)) : undefined,
            `${chat.createdAt ? ' · ' : ''}${chat.provider} · ${chat.model}`,
          ),
        ),
      ),
    ),
  );
}

/** When a chat was started, as short as is unambiguous: the time today, the day this year, else the date. */
function chatDate(iso: string, now: Date = new Date()): string {
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
