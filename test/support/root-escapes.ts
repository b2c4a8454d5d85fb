// The ways out of a filesystem tool's root that every such tool must refuse,
// and the tree they are tried on, laid out under `tmp` (root `tmp/app`, a
// sibling `tmp/app-secrets`, `tmp/outside`, and links from the root to
// both). One tree and one list, so a new tool is held to exactly the same
// escapes.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Lays out under `tmp`:
 *   app/sub/nested.txt, app/link-in -> sub, app/link-out -> ../outside,
 *   app/link-secret -> ../app-secrets/secret.txt,
 *   app-secrets/secret.txt, outside/x.txt
 * and returns the root, `tmp/app`.
 */
export const makeEscapeTree = (tmp: string): string => {
  const root = path.join(tmp, 'app');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(tmp, 'app-secrets'));
  fs.mkdirSync(path.join(tmp, 'outside'));
  fs.writeFileSync(path.join(root, 'sub', 'nested.txt'), 'nested\n');
  fs.writeFileSync(path.join(tmp, 'app-secrets', 'secret.txt'), 'SECRET\n');
  fs.writeFileSync(path.join(tmp, 'outside', 'x.txt'), 'outside\n');
  fs.symlinkSync('sub', path.join(root, 'link-in'));
  fs.symlinkSync('../outside', path.join(root, 'link-out'));
  fs.symlinkSync('../app-secrets/secret.txt', path.join(root, 'link-secret'));
  return root;
};

export const rootEscapes = (tmp: string): readonly string[] => [
  '../app-secrets/secret.txt',
  'sub/../../app-secrets/secret.txt',
  path.join(tmp, 'app-secrets', 'secret.txt'),
  path.join(tmp, 'outside', 'x.txt'),
  '/etc/passwd',
  'link-secret',
  'link-out/x.txt',
];
