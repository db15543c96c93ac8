import { expect, test } from 'bun:test';
import { SystemCallError } from '../../../src/descriptors/system-call-error.ts';
import { describeSystemError } from '../../../src/tools/fs/describe-system-error.ts';

test.each([
  ['ELOOP', 40],
  ['EXDEV', 18],
])(
  '%s (a link met where the checked path had none) is the path changing while the tool used it',
  (_code, errno) => {
    const error = describeSystemError(new SystemCallError(errno, 'openat2', '/ws/a.txt'), 'read', 'a.txt');
    expect([error.classification, error.message]).toEqual([
      'permission_denied',
      'Cannot read "a.txt": the path changed while the tool was using it (a file or directory on it was moved, or replaced by a link), so nothing was done there. Check it with list_directory and try again.',
    ]);
  },
);
