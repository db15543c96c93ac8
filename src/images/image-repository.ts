/**
 * Records of generated images, per user and chat. The file itself lives under the data directory
 * (see image-files.ts); a record says whose it is, where it is and what it is. This module holds
 * the contract and the in-memory implementation; the server adds a database one (an `images` table)
 * so records survive a restart and are shared by every API instance.
 */

export interface ImageRecord {
  id: string;
  /** The owner: only this user may fetch the image. */
  userId: string;
  /** The chat whose turn produced it; absent for calls outside a chat (e.g. `mango tool call`). */
  chatId: string | undefined;
  /** The model that produced it. */
  model: string;
  prompt: string;
  /** `image/png`, `image/jpeg`, `image/webp` or `image/gif`, from the file's own bytes. */
  mimeType: string;
  /** Absolute path of the stored file. */
  filePath: string;
  byteLength: number;
  /** Epoch milliseconds. */
  createdAt: number;
}

export interface ImageRepository {
  save(record: ImageRecord): Promise<void>;
  /** The record with this id, whoever owns it (callers check ownership). */
  get(imageId: string): Promise<ImageRecord | undefined>;
  /** One user's images in one chat, oldest first. */
  listForChat(userId: string, chatId: string): Promise<ImageRecord[]>;
}

/** A repository that lives as long as the process. */
export class InMemoryImageRepository implements ImageRepository {
  readonly #records = new Map<string, ImageRecord>();

  async save(record: ImageRecord): Promise<void> {
    this.#records.set(record.id, { ...record });
  }

  async get(imageId: string): Promise<ImageRecord | undefined> {
    const record = this.#records.get(imageId);
    return record ? { ...record } : undefined;
  }

  async listForChat(userId: string, chatId: string): Promise<ImageRecord[]> {
    return [...this.#records.values()]
      .filter((record) => record.userId === userId && record.chatId === chatId)
      .sort((left, right) => left.createdAt - right.createdAt)
      .map((record) => ({ ...record }));
  }
}
