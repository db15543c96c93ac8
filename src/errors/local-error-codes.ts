/**
 * The codes of the errors that stay inside the process (start-up refusals, internal signals between two
 * modules, the command line's own mistakes), each with what it means. `docs/errors.md` lists exactly
 * these (a test compares the two). A failed system call made by descriptor carries its errno name
 * (`ENOENT`, `ELOOP`…) instead, as Node's own errors do.
 */
export const LOCAL_ERROR_CODES = {
  config_invalid: 'a configuration value that cannot work; the message names the variable',
  usage_error: 'the command line was invoked wrongly; the CLI prints usage help and exits 2',
  data_directory_unusable: 'the data directory cannot be created or used; the server does not start',
  workspaces_directory_unusable: 'the workspaces directory cannot be used; the server does not start',
  web_app_integrity: 'the built web app on disk does not match its manifest; the server does not start',
  system_program_failed: 'a system program the server runs (quota, mount tools) exited with an error',
  descriptor_calls_unavailable: 'the descriptor-relative file calls (openat2) cannot run on this host',
  lock_busy: 'another process holds a file lock',
  path_changed: 'a path changed while a tool was resolving or using it',
  ELOOP: 'a chain of symbolic links is longer than the resolver follows',
  mount_source_changed: 'a sandbox mount source changed or vanished before it was mounted',
  sandbox_ids_exhausted: 'every sandbox account id of the configured range is in use',
  sandbox_id_outside_range: 'a stored sandbox account id lies outside the configured range',
  tree_changed_during_migration:
    'a tree changed while its owners were being migrated; nothing was changed since',
  tree_root_not_a_directory: 'the tree to migrate is a link, lies below one, or is no directory',
  user_name_taken: 'a user of that name exists',
  user_turn_limit: 'the user already runs the most turns one user may run at once',
  turn_fenced: 'the turn no longer holds its chat: its lease expired or another turn replaced it',
  persistence_failed: 'the conversation could not be saved; the turn ends with an error',
  provider_stalled: "the provider's stream sent nothing for longer than the stall limit",
  file_worker_protocol:
    "a file worker's reply broke its operation's shape; the worker is stopped and the call fails",
} as const;

export type LocalErrorCode = keyof typeof LOCAL_ERROR_CODES;
