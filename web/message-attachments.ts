/**
 * The files attached to the message being written: the composer shows them as chips and sends their
 * paths with the message; the files panel adds a workspace file ("Attach") and, for an upload from the
 * composer, puts the file in the chat's folder first (`setUploader`). One tray per open chat, created
 * by the chat page and handed to both. Free of the DOM, so it is unit-tested.
 */

/** One attached file. */
export interface MessageAttachment {
  /** Its real absolute path, as the chat's tools take it: what the server checks and the model is told. */
  path: string;
  /** Its file name. */
  name: string;
  /** Where it is, as people read it ("My workspace / docs"). */
  place: string;
}

/** Most files one message carries (the server refuses more). */
export const MAX_ATTACHMENTS = 20;

export interface AttachmentTray {
  list(): readonly MessageAttachment[];
  /** Adds a file once (a second add of the same path changes nothing); false when the tray is full. */
  add(attachment: MessageAttachment): boolean;
  remove(path: string): void;
  /** Empties the tray and returns what it held (the message is being sent). */
  take(): MessageAttachment[];
  /** Puts a refused message's files back, before any attached meanwhile. */
  restore(attachments: readonly MessageAttachment[]): void;
  /** Runs `listener` after every change. */
  subscribe(listener: () => void): void;
  /** Uploads files into the chat's folder and attaches them; undefined until the files panel can. */
  upload: ((files: readonly File[]) => Promise<void>) | undefined;
  /** Set by the files panel once it knows the chat's folder (undefined: uploads cannot be attached). */
  setUploader(upload: ((files: readonly File[]) => Promise<void>) | undefined): void;
}

export function createAttachmentTray(): AttachmentTray {
  let items: MessageAttachment[] = [];
  const listeners: (() => void)[] = [];
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const tray: AttachmentTray = {
    list: () => items,
    add(attachment) {
      if (items.some((item) => item.path === attachment.path)) return true;
      if (items.length >= MAX_ATTACHMENTS) return false;
      items = [...items, attachment];
      changed();
      return true;
    },
    remove(path) {
      const kept = items.filter((item) => item.path !== path);
      if (kept.length === items.length) return;
      items = kept;
      changed();
    },
    take() {
      const taken = items;
      items = [];
      if (taken.length > 0) changed();
      return taken;
    },
    restore(attachments) {
      const paths = new Set(attachments.map((item) => item.path));
      items = [...attachments, ...items.filter((item) => !paths.has(item.path))].slice(0, MAX_ATTACHMENTS);
      changed();
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    upload: undefined,
    setUploader(upload) {
      tray.upload = upload;
      changed();
    },
  };
  return tray;
}
