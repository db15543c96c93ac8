/**
 * Importing this module registers every builtin tool (spec: "Tool Lifecycle" step 1).
 * Add one line per new tool file.
 */
import './get-current-datetime.ts';
import './bash.ts';
import './zsh.ts';
import './powershell.ts';
import './read-file.ts';
import './write-file.ts';
import './edit-file.ts';
import './list-directory.ts';
import './glob.ts';
import './grep.ts';
