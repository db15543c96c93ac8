/**
 * `autoApprovedPaths`, the auto-approve rule of the file-writing tools (write_file, edit_file): a write
 * whose resolved real target lies inside an enabled entry runs without asking. Entries have the shape of
 * `allowedPaths` and are resolved the same way (`~`, relative to the working directory, symlinks
 * followed), never compared as strings. The rule only skips the question: the path policy still decides
 * whether the write may happen at all. A tool spreads `WRITE_APPROVAL_SETTINGS` into its settings.
 */
import { setting } from '../tool-settings.ts';

export const WRITE_APPROVAL_SETTINGS = {
  autoApprovedPaths: setting.pathList({
    label: 'Auto-approved paths',
    description:
      'A write to a file inside one of these directories (or to one of these files) runs without asking for approval. Entries may start with ~ (the personal workspace) or be relative to the chat working directory; disabled entries are ignored. This does not widen what the tool may write.',
  }),
};
