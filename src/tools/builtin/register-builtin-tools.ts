/**
 * Importing this module registers every builtin tool, so the registry holds them before any user's tools are
 * loaded. Add one line per new tool file.
 */
import './get-current-datetime.ts';
import './generate-image.ts';
import './bash.ts';
import './zsh.ts';
import './powershell.ts';
import './read-file.ts';
import './write-file.ts';
import './edit-file.ts';
import './list-directory.ts';
import './glob.ts';
import './grep.ts';
