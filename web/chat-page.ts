/**
 * The Chat page: the user's chats beside either the new-chat form or the open chat, a turn
 * read as an SSE stream. The two panels live in `new-chat-form.ts` and `chat-view.ts`, the list (search,
 * groups, pin, archive, export) in `chat-list.ts`; on a phone the chat list is a drawer
 * (`chat-drawer.ts`) and the Files panel a bottom sheet (`files-sheet.ts`), so the chat is one column
 * with its composer on screen. The panel hears the chat view's tool results through the layout (it
 * lists its folder again) and fills the composer's attachments (`message-attachments.ts`).
 */
import { createChatDrawer } from './chat-drawer.ts';
import { mountChatList } from './chat-list.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { renderChatView } from './chat-view.ts';
import { h, replaceChildren } from './dom.ts';
import { mountFilesPanel } from './files-panel.ts';
import { createFilesSheet } from './files-sheet.ts';
import { createAttachmentTray } from './message-attachments.ts';
import { renderNewChatForm } from './new-chat-form.ts';

export async function renderChatPage(container: HTMLElement, options: ChatPageOptions): Promise<void> {
  const chatList = h('div', { class: 'chat-list-panel' });
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
  // The files panel attaches files to the message the chat view's composer sends.
  const attachments = options.chatId ? createAttachmentTray() : undefined;
  if (files && sheet && options.chatId) {
    void mountFilesPanel(files, { api: options.api, chatId: options.chatId, events: layout, attachments });
    // After the panel drew its content (it does so before its first request).
    files.prepend(sheet.close);
  }

  mountChatList(chatList, { api: options.api, activeId: options.chatId, events: layout });

  if (options.chatId) await renderChatView(main, { ...options, attachments }, options.chatId);
  else await renderNewChatForm(main, options);
}
