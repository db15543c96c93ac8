/**
 * What the server remembers of a user's choices between visits: the provider and model of the last
 * chat they created, which the new-chat form preselects. The contract lives here; `src/db/` stores it.
 * A preference is a convenience, never a permission: a remembered provider that is no longer
 * configured is simply not preselected.
 */

export interface ChatModelPreference {
  provider: string;
  model: string;
  /** ISO 8601. */
  updatedAt: string;
}

export interface UserPreferenceRepository {
  /** The user's last provider and model, or undefined when none was saved. */
  getChatModel(userId: string): Promise<ChatModelPreference | undefined>;
  /** Replaces the user's last provider and model. */
  putChatModel(userId: string, preference: ChatModelPreference): Promise<void>;
}
