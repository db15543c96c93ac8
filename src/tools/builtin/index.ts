/**
 * Importing this module registers every builtin tool (spec: "Tool Lifecycle" step 1).
 * Add one line per new tool file.
 */
import './get-current-datetime.ts';
import './bash.ts';
import './zsh.ts';
import './powershell.ts';
