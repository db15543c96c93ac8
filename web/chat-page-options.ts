/**
 * What the Chat page and its two panels (`new-chat-form.ts`, `chat-view.ts`) are given: the API client,
 * the open chat, navigation and the image loader. A file of its own so the panels do not import the
 * page that imports them.
 */
import type { ApiClient } from './api-client.ts';
import type { AttachmentTray } from './message-attachments.ts';
import type { ImageLoader } from './tool-result-view.ts';

export interface ChatPageOptions {
  api: ApiClient;
  chatId: string | undefined;
  navigate: (path: string) => void;
  loadImage: ImageLoader;
  /** The open chat's message attachments, shared by its composer and the files panel. */
  attachments?: AttachmentTray;
}
