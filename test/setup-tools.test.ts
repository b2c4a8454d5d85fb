// setup-tools.ts and setup-fs-tools.ts against the local daemon: the tool
// caplets land in the host's inventory, answer by their schema names, keep
// their root, and a second run changes nothing.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { E } from '@endo/far';
import { main as mainTools, setupTools } from '../setup-tools.js';
import { setupFsTools } from '../setup-fs-tools.js';
import type { HostPowers } from '../src/provisioning/provisioning.js';
import { makeLocalDaemon } from './support/daemon.js';
import { tempDirs } from './support/temp-dirs.js';

const tempDir = tempDirs('fae-setup-fs-');

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const start = (t: { teardown: (f: () => Promise<void>) => void }) => {
  const daemon = makeLocalDaemon();
  t.teardown(() => daemon.stop());
  return daemon.host as Promise<HostPowers & Far>;
};

const schemaName = async (host: Far, petName: string) =>
  (await E(E(host).lookup(petName)).schema()).function.name;

const tempRoot = () => {
  const root = tempDir();
  fs.writeFileSync(path.join(root, 'hello.txt'), 'hello from the root\n');
  return root;
};

test('setup-tools puts the three example tools in the host inventory', async t => {
  const host = start(t);
  t.is(
    await mainTools(host),
    'setup-tools:\n  greet-tool: created\n  math-tool: created\n  timestamp-tool: created',
  );
  t.is(await schemaName(host, 'greet-tool'), 'greet');
  t.is(await schemaName(host, 'math-tool'), 'math');
  t.is(await schemaName(host, 'timestamp-tool'), 'timestamp');
  t.is(await E(E(host).lookup('greet-tool')).execute({ name: 'Ada' }), 'Hello, Ada!');
  t.is(await E(E(host).lookup('math-tool')).execute({ operation: 'add', a: 1, b: 2 }), '3');
});

test('running setup-tools again keeps the tools it made', async t => {
  const host = start(t);
  await setupTools(host);
  const before = await Promise.all(
    ['greet-tool', 'math-tool', 'timestamp-tool'].map(name => E(host).identify(name)),
  );
  t.is(
    await setupTools(host),
    [
      'setup-tools:',
      '  greet-tool: already present, left as it is',
      '  math-tool: already present, left as it is',
      '  timestamp-tool: already present, left as it is',
    ].join('\n'),
  );
  const after = await Promise.all(
    ['greet-tool', 'math-tool', 'timestamp-tool'].map(name => E(host).identify(name)),
  );
  t.deepEqual(after, before);
});

test('setup-fs-tools roots every filesystem tool at FAE_CWD', async t => {
  const host = start(t);
  const root = tempRoot();
  const report = await setupFsTools(host, { FAE_CWD: root }, '/');
  t.is(
    report,
    [
      `setup-fs-tools (root ${root}):`,
      '  read-file: created',
      '  write-file: created',
      '  edit-file: created',
      '  edit: created',
      '  list-dir: created',
      '  run-command: created',
    ].join('\n'),
  );
  const names = ['read-file', 'write-file', 'edit-file', 'edit', 'list-dir', 'run-command'];
  const schemas = await Promise.all(names.map(name => schemaName(host, name)));
  t.deepEqual(schemas, ['readFile', 'writeFile', 'editFile', 'edit', 'listDir', 'runCommand']);
  const readFile = E(host).lookup('read-file');
  t.is(await E(readFile).execute({ filePath: 'hello.txt' }), 'hello from the root\n');
  await t.throwsAsync(E(readFile).execute({ filePath: '../etc/passwd' }), {
    message: /is outside the root/,
  });
  t.true((await E(E(host).lookup('list-dir')).help()).includes(`${root} (FAE_CWD)`));
  const ran = await E(E(host).lookup('run-command')).execute({ command: 'pwd' });
  t.true(ran.includes(`stdout:\n${root}\n`), ran);
});

test('setup-fs-tools resolves FAE_CWD, and its absence, against where it is run', async t => {
  const host = start(t);
  const parent = tempRoot();
  fs.mkdirSync(path.join(parent, 'project'));
  fs.writeFileSync(path.join(parent, 'project', 'p.txt'), 'project file');
  await setupFsTools(host, { FAE_CWD: 'project' }, parent);
  t.is(await E(E(host).lookup('read-file')).execute({ filePath: 'p.txt' }), 'project file');

  const otherHost = start(t);
  await setupFsTools(otherHost, {}, parent);
  t.is(
    await E(E(otherHost).lookup('read-file')).execute({ filePath: 'hello.txt' }),
    'hello from the root\n',
  );
});

test('setup-fs-tools refuses a missing root before creating anything', async t => {
  const host = start(t);
  await t.throwsAsync(setupFsTools(host, { FAE_CWD: '/no/such/dir' }, '/'), {
    message:
      'The root directory "/no/such/dir" cannot be used ("/no/such/dir" does not exist); set FAE_CWD to an existing directory',
  });
  t.false(await E(host).has('read-file'));
});

test('running setup-fs-tools again keeps the tools it made', async t => {
  const host = start(t);
  const root = tempRoot();
  await setupFsTools(host, { FAE_CWD: root }, '/');
  const id = await E(host).identify('run-command');
  const again = await setupFsTools(host, { FAE_CWD: root }, '/');
  t.true(again.includes('run-command: already present, left as it is'));
  t.is(await E(host).identify('run-command'), id);
});

test('under npm run, setup-fs-tools roots the tools where the user was (INIT_CWD)', async t => {
  const host = start(t);
  const root = tempRoot();
  await setupFsTools(host, { INIT_CWD: root });
  t.is(
    await E(E(host).lookup('read-file')).execute({ filePath: 'hello.txt' }),
    'hello from the root\n',
  );
});
