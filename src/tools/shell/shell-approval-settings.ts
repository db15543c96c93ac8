/**
 * The auto-approve rules of the shells whose command grammar Mango parses (bash, zsh; not PowerShell):
 * `autoApprovedCommands` (word prefixes: `git status` approves `git status -s`, never
 * `git status-foo` or `git status; rm -rf ~`) and `autoApprovedExactCommands` (whole commands,
 * compared as the trimmed text, which is what "remember this exact command" adds). A shell tool spreads
 * `SHELL_APPROVAL_SETTINGS` into its settings; `command-approval-rules.ts` matches a command against them.
 */
import { setting } from '../tool-settings.ts';

export const SHELL_APPROVAL_SETTINGS = {
  autoApprovedCommands: setting.stringList({
    label: 'Auto-approved command prefixes',
    description:
      'A command runs without asking when it is one simple command (no ;, &&, |, redirection, $-expansion, glob, ~ or substitution) whose words start with all the words of one of these prefixes: "git status" approves "git status -s", not "git status-foo". Approving a command that runs project code (npm test) approves whatever that project contains.',
  }),
  autoApprovedExactCommands: setting.stringList({
    label: 'Auto-approved exact commands',
    description:
      'These commands run without asking when the command is exactly this text (leading and trailing spaces ignored). "Remember this exact command" adds to this list.',
  }),
};
