// Confinement of the filesystem tools to one root directory, fixed when the
// tool is made. A string-prefix test is not enough (upstream defect F6):
// `/srv/app-secrets` starts with `/srv/app`, and a symlink inside the root
// can point anywhere. So every path is resolved to its real path and the
// real path is compared with the root's real path component by component;
// the tools then open that checked real path, never the name they were given.
//
// What remains: a process that can change the tree between our check and
// our open could still swap a directory for a symlink. The final component
// is opened with O_NOFOLLOW, which narrows that race to parent directories.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { q } from '@endo/errors';

/** Where a root came from, so help texts can say so. */
export type RootOrigin = 'FAE_CWD' | 'worker-cwd' | 'given';

export interface FsRoot {
  /** The real path of the root directory. */
  readonly root: string;
  readonly origin: RootOrigin;
  /** One sentence for help texts: where the root is and where it came from. */
  readonly description: string;
  /** Real path of an existing entry inside the root (the root itself allowed). */
  resolveExisting(userPath: string): Promise<string>;
  /**
   * Where to write `userPath`: the real path of the file if it exists, or
   * the real path of its nearest existing ancestor joined with the missing
   * names. The root itself is not a writable target.
   */
  resolveForWrite(userPath: string): Promise<string>;
  /** How to show a checked real path to the model: relative to the root. */
  display(realPath: string): string;
}

const errorCode = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error
    ? (error as { code: unknown }).code
    : undefined;

const isSymlink = async (p: string) =>
  (await fs.promises.lstat(p).catch(() => undefined))?.isSymbolicLink() ?? false;

/** True when `candidate` is `root` or lies below it (both absolute, real). */
export const isWithin = (root: string, candidate: string) => {
  const rel = path.relative(root, candidate);
  return (
    rel === '' ||
    (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
  );
};
harden(isWithin);

/**
 * Turns a Node filesystem error into one the model can act on, quoting the
 * path it asked for; other errors pass through unchanged.
 */
export const explainFsError = (error: unknown, userPath: string): Error => {
  const messages: Record<string, string> = {
    ENOENT: 'does not exist',
    ENOTDIR: 'has a part that is not a directory',
    EISDIR: 'is a directory',
    EACCES: 'is not accessible (permission denied)',
    EPERM: 'is not accessible (operation not permitted)',
    ELOOP: 'is a symlink, or has too many levels of symlinks',
    ENAMETOOLONG: 'is too long',
  };
  const code = errorCode(error);
  const text = typeof code === 'string' ? messages[code] : undefined;
  if (text === undefined) {
    return error instanceof Error ? error : Error(String(error));
  }
  return Error(`${q(userPath)} ${text}`);
};
harden(explainFsError);

/**
 * Makes the confinement for `rootDir` (relative to the process's working
 * directory if it is relative). The root must exist and be a directory.
 */
const describe = (root: string, origin: RootOrigin) => {
  switch (origin) {
    case 'FAE_CWD':
      return `Paths are confined to ${root} (FAE_CWD); symlinks leading outside it are refused.`;
    case 'worker-cwd':
      return `FAE_CWD was not set when this tool was made, so paths are confined to the worker's working directory, ${root}; symlinks leading outside it are refused.`;
    default:
      return `Paths are confined to ${root}; symlinks leading outside it are refused.`;
  }
};

/**
 * The nearest entry at or above `target` that exists, and the names below
 * it still missing. lstat, not stat: a dangling symlink exists, and writing
 * through it would create its target, wherever that is.
 */
const nearestExisting = async (target: string, userPath: string) => {
  const missing: string[] = [];
  let existing = target;
  for (;;) {
    try {
      // Walking up one parent at a time: each step depends on the last.
      // eslint-disable-next-line no-await-in-loop
      await fs.promises.lstat(existing);
      return { existing, missing };
    } catch (error) {
      // ENOTDIR: a file stands where a directory should be; walking up
      // finds it, and the caller's check says so plainly.
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw explainFsError(error, userPath);
      missing.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
  }
};

export const makeFsRoot = (rootDir: string, origin: RootOrigin = 'given'): FsRoot => {
  let root: string;
  try {
    root = fs.realpathSync.native(path.resolve(rootDir));
  } catch (error) {
    throw Error(
      `The root directory ${q(rootDir)} cannot be used (${explainFsError(error, rootDir).message}); set FAE_CWD to an existing directory`,
    );
  }
  if (!fs.statSync(root).isDirectory()) {
    throw Error(`The root ${q(rootDir)} is not a directory; set FAE_CWD to a directory`);
  }

  const outside = (userPath: string) =>
    Error(
      `${q(userPath)} is outside the root ${q(root)}; use a path inside it, such as a path relative to the root`,
    );

  const leadsOutside = (userPath: string) =>
    Error(
      `${q(userPath)} leads outside the root ${q(root)} through a symlink; only paths whose real location is inside the root can be used`,
    );

  // The lexical check comes first so that nothing outside the root is even
  // probed (no answers of the form "exists" / "does not exist" about it).
  const lexical = (userPath: string) => {
    if (userPath.includes('\0')) {
      throw Error(`${q(userPath)} contains a NUL character`);
    }
    const resolved = path.resolve(root, userPath);
    if (!isWithin(root, resolved)) throw outside(userPath);
    return resolved;
  };

  const realInside = async (userPath: string, candidate: string) => {
    let real: string;
    try {
      real = await fs.promises.realpath(candidate);
    } catch (error) {
      throw explainFsError(error, userPath);
    }
    if (!isWithin(root, real)) throw leadsOutside(userPath);
    return real;
  };

  const resolveExisting = async (userPath: string) =>
    realInside(userPath, lexical(userPath));

  const resolveForWrite = async (userPath: string) => {
    const target = lexical(userPath);
    if (target === root) {
      throw Error(`${q(userPath)} is the root directory, not a file`);
    }
    const { existing, missing } = await nearestExisting(target, userPath);
    let real: string;
    try {
      real = await fs.promises.realpath(existing);
    } catch (error) {
      // The nearest existing entry may be a dangling symlink: writing
      // through it would create its target, wherever that is. Never do it,
      // and say where it leads when that is outside.
      if (errorCode(error) === 'ENOENT' && (await isSymlink(existing))) {
        const link = await fs.promises.readlink(existing);
        const target = path.resolve(path.dirname(existing), link);
        if (!isWithin(root, target)) throw leadsOutside(userPath);
        throw Error(
          `${q(userPath)} goes through a symlink to ${q(path.relative(root, target))}, which does not exist; write to that path instead`,
        );
      }
      throw explainFsError(error, userPath);
    }
    if (!isWithin(root, real)) throw leadsOutside(userPath);
    if (missing.length > 0) {
      const parent = await fs.promises.stat(real);
      if (!parent.isDirectory()) {
        throw Error(`${q(userPath)} cannot be created: ${q(path.relative(root, real) || '.')} is a file, not a directory`);
      }
    }
    return path.join(real, ...missing);
  };

  const display = (realPath: string) => path.relative(root, realPath) || '.';

  return harden({
    root,
    origin,
    description: describe(root, origin),
    resolveExisting,
    resolveForWrite,
    display,
  });
};
harden(makeFsRoot);

/**
 * Writes `contents` to a real path checked by resolveForWrite, creating its
 * missing parents, without following a symlink at the last step.
 */
export const writeChecked = async (
  realPath: string,
  contents: string,
  userPath: string,
) => {
  try {
    await fs.promises.mkdir(path.dirname(realPath), { recursive: true });
    const handle = await fs.promises.open(
      realPath,
      fs.constants.O_WRONLY |
        fs.constants.O_CREAT |
        fs.constants.O_TRUNC |
        fs.constants.O_NOFOLLOW,
      0o666,
    );
    try {
      await handle.writeFile(contents, 'utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw explainFsError(error, userPath);
  }
};
harden(writeChecked);

/**
 * The root for the filesystem tools from their caplet env: FAE_CWD, or the
 * worker's working directory when it is unset, which the description (and
 * so each tool's help) says plainly.
 */
export const fsRootFromEnv = (
  env: Readonly<Record<string, string | undefined>> = {},
): FsRoot => {
  const configured = env.FAE_CWD;
  if (configured !== undefined && configured !== '') {
    return makeFsRoot(configured, 'FAE_CWD');
  }
  return makeFsRoot(process.cwd(), 'worker-cwd');
};
harden(fsRootFromEnv);
