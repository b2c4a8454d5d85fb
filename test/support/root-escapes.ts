// The ways out of a filesystem tool's root that every such tool must refuse,
// for the tree tools-fs.test.ts lays out under `tmp` (root `tmp/app`, a
// sibling `tmp/app-secrets`, `tmp/outside`, and links from the root to
// both). One list, so a new tool is held to exactly the same escapes.
import path from 'node:path';

export const rootEscapes = (tmp: string): readonly string[] => [
  '../app-secrets/secret.txt',
  'sub/../../app-secrets/secret.txt',
  path.join(tmp, 'app-secrets', 'secret.txt'),
  path.join(tmp, 'outside', 'x.txt'),
  '/etc/passwd',
  'link-secret',
  'link-out/x.txt',
];
